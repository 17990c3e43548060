#!/usr/bin/env bash
# Fails when a C or C++ file is not as clang-format (.clang-format: Google, 100 columns) would
# write it. Usage: scripts/check_format.sh [file…] (default: every tracked C/C++ file).
# Fix with: clang-format -i <file>…
set -euo pipefail
cd "$(dirname "$0")/.."
command -v clang-format >/dev/null || { echo "check_format: clang-format is not installed" >&2; exit 2; }
if (($#)); then files=("$@"); else mapfile -t files < <(git ls-files '*.c' '*.cc' '*.h' '*.cpp'); fi
bad=()
for f in "${files[@]}"; do
  [ -f "$f" ] || continue
  clang-format --dry-run -Werror "$f" >/dev/null 2>&1 || bad+=("$f")
done
if ((${#bad[@]})); then
  echo "check_format: ${#bad[@]} file(s) not clang-formatted: ${bad[*]}" >&2
  exit 1
fi
echo "check_format: ${#files[@]} files formatted"
