#!/usr/bin/env bash
# Fails when a C or C++ file is not as clang-format (.clang-format: Google, 100 columns) would
# write it. Usage:
#   scripts/check_format.sh [file…]          the files named (default: every tracked C/C++ file)
#   scripts/check_format.sh --changed [BASE]  what a change touched: the C/C++ files it added or
#     modified, whole, and the added lines of its other text files (scripts, CMake, Python), held
#     to 100 columns. The change is BASE..HEAD; BASE defaults to HEAD's first parent, so that on a
#     clean clone of main (at least two commits deep) it is the newest commit, or for a merge
#     commit everything the merged branch brought. On a branch: --changed main.
# Fix with: clang-format -i <file>…
set -euo pipefail
cd "$(dirname "$0")/.."
command -v clang-format >/dev/null ||
  { echo "check_format: clang-format is not installed" >&2; exit 2; }
if [ "${1:-}" = "--changed" ]; then
  base=${2:-HEAD^1}
  if ! git rev-parse -q --verify "$base^{commit}" >/dev/null; then
    echo "check_format: no commit '$base' to compare with (a shallow clone? fetch 2 deep)" >&2
    exit 2
  fi
  mapfile -t changed < <(git diff --name-only --diff-filter=AMR "$base" HEAD)
  files=()
  others=()
  for f in "${changed[@]}"; do
    case "$f" in
      *.c | *.cc | *.h | *.cpp) files+=("$f") ;;
      *.sh | *.py | *.cmake | *CMakeLists.txt | .ci/*) others+=("$f") ;;
    esac
  done
  if ((${#others[@]})); then
    # Only the lines the change added: an old long line is fixed when its own line changes.
    long=$(git diff -U0 "$base" HEAD -- "${others[@]}" |
      awk '/^\+\+\+ /{file=substr($0, 7); next} /^\+/ && length($0) > 101 {print file}' | sort -u)
    if [ -n "$long" ]; then
      echo "check_format: lines over 100 columns added in: $(echo "$long" | tr '\n' ' ')" >&2
      exit 1
    fi
  fi
  ((${#files[@]})) || { echo "check_format: the change touches no C/C++ file"; exit 0; }
elif (($#)); then
  files=("$@")
else
  mapfile -t files < <(git ls-files '*.c' '*.cc' '*.h' '*.cpp')
fi
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
