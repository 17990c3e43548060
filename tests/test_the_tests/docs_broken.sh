#!/usr/bin/env bash
# docs_broken.sh <break> <source dir> -- command…: runs the command with, as its last argument, a
# checkout-like copy of the source tree's tracked files (a fresh git repository; corpus/ left out:
# its 4,400 case files cite nothing and would take most of the copying) broken one way:
#   beside   the README points at the design folder beside the repository again;
#   missing  docs/TOLERANCE.md is gone, though files cite it;
#   section  docs/TOLERANCE.md's heading "The bound" is renamed, though docs/STYLE.md cites it.
# docs_self_contained_test.sh must then fail, naming the file (tests/README.md).
set -u
how=$1
src=$2
shift 3
copy=$(mktemp -d)
trap 'rm -rf "$copy"' EXIT
if [ -e "$src/.git" ]; then
  git -C "$src" ls-files -z -- . ':!corpus'
else  # an unpacked archive: what the test itself reads there
  (cd "$src" && find . -path ./corpus -prune -o -type d \( -name 'build*' -o -name node_modules \) \
    -prune -o -type f -printf '%P\0')
fi | tar -C "$src" --null --ignore-failed-read -T - -cf - 2>/dev/null | tar -C "$copy" -xf -
git -C "$copy" init -q && git -C "$copy" add -A
case "$how" in
  beside) printf 'The design: ../shared/%s/TOLERANCE.md\n' design >>"$copy/README.md" ;;
  missing) git -C "$copy" rm -qf docs/TOLERANCE.md ;;
  section) sed -i 's/^## The bound$/## The error bound/' "$copy/docs/TOLERANCE.md" ;;
  *)
    echo "docs_broken.sh: unknown break '$how' (beside, missing, section)" >&2
    exit 2
    ;;
esac
echo "broke the copy: $how"
"$@" "$copy"
