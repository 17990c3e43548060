#!/usr/bin/env bash
# The design is in the repository (issue 22, item 5): whoever clones the project has every document
# its code and docs cite. Fails, one line per problem, when a tracked file
#  - points at the design folder that once lay beside the repository (../shared + /design), which a
#    clone does not have;
#  - cites docs/<NAME>.md, or a design document by its bare name (INTERFACES.md, TOLERANCE.md,
#    BUGS.md, STYLE.md, ARCHITECTURE.md, TRIAGE.md), that docs/ does not hold;
#  - cites a section, `NAME.md, "Section"`, that the document has no heading for;
#  - is Markdown and links to a relative path that is not in the source tree.
# Tracked files are what a clone has (git ls-files); outside a checkout, every file but build trees.
# tests/test_the_tests/docs_broken.sh shows it failing (tests/README.md).
# Usage: docs_self_contained_test.sh <source dir>
set -u
src=$(cd "${1:?usage: docs_self_contained_test.sh <source dir>}" && pwd -P)
cd "$src" || exit 2
list=$(mktemp)
trap 'rm -f "$list"' EXIT
if [ -e .git ]; then
  git ls-files -z >"$list"
else
  find . -type d \( -name .git -o -name 'build*' -o -name node_modules -o -name convparity-out \) \
    -prune -o -type f -printf '%P\0' >"$list"
fi
files=$(tr -cd '\0' <"$list" | wc -c)
problems=0
fail() {
  problems=$((problems + 1))
  echo "FAIL $*"
}
# Every text file the list holds, for grep: "file:line:match" (paths hold no colon).
grep_all() { xargs -0 grep -sIno "$@" <"$list"; }

# The folder's name is built here, so that this file does not mention it.
beside=shared
beside+=/design
while IFS=: read -r file line _; do
  fail "$file:$line: points at ../$beside, which a clone does not have: cite docs/ instead"
done < <(grep_all -F -- "$beside")

# A citation: docs/<NAME>.md or a design name alone, not a path elsewhere (a/docs/X.md, a/BUGS.md).
names='INTERFACES|TOLERANCE|BUGS|STYLE|ARCHITECTURE|TRIAGE'
cited=0
while IFS=: read -r file line match; do
  doc=${match#"${match%%[A-Za-z]*}"}  # drop the character before the citation
  doc=${doc#docs/}
  cited=$((cited + 1))
  [ -f "docs/$doc" ] || fail "$file:$line: cites docs/$doc, which docs/ does not hold"
done < <(grep_all -E -- "(^|[^A-Za-z0-9_./-])(docs/[A-Za-z0-9_.-]+\.md|($names)\.md)")

# Sections: a heading of the document that starts with the cited words.
while IFS=: read -r file line match; do
  doc=${match%%.md*}.md
  section=${match#*\"}
  section=${section%\"}
  [ -f "docs/$doc" ] || continue  # reported above
  awk -v s="$section" '/^#+ / { sub(/^#+ /, ""); if (index($0, s) == 1) found = 1 }
                       END { exit !found }' "docs/$doc" ||
    fail "$file:$line: cites section \"$section\" of docs/$doc, which has no such heading"
done < <(grep_all -E -- "($names)\.md\`?, \"[^\"]+\"")

# Markdown links to relative paths: inside the source tree, and there.
while IFS=: read -r file line match; do
  target=${match#](}
  target=${target%)}
  target=${target%%#*}
  case "$target" in '' | *://* | mailto:*) continue ;; esac
  path=$(realpath -m "$(dirname "$file")/$target")
  case "$path" in
    "$src"/*) [ -e "$path" ] || fail "$file:$line: links to $target, which does not exist" ;;
    *) fail "$file:$line: links to $target, outside the repository" ;;
  esac
done < <(grep -z '\.md$' "$list" | xargs -0 grep -sno -- '](\([^) ]*\))')

if [ "$problems" -gt 0 ]; then
  echo "docs_self_contained: $problems problem(s) in $files files"
  exit 1
fi
echo "docs_self_contained: ok ($files files, $cited citations of docs/, all there)"
