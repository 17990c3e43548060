#!/usr/bin/env bash
# Which releases of TensorFlow.js have a finding: runs the finding's standalone reproduction
# (findings/<name>/repro.js) against every published release of @tensorflow/tfjs in a range (npm
# keeps them all), each backend on its own (TFJS_BACKENDS), and writes the affected-versions table
# into the finding's README.md, between the lines
#   <!-- affected-versions: begin -->  and  <!-- affected-versions: end -->
# (appended as a section "Affected versions" the first time).
#
# Usage: tfjs_affected_versions.sh <finding dir> <first version> [<last version>]
#          [--backends cpu,wasm] [--scratch DIR]
#   The last version defaults to the newest stable release. Pre-releases (-rc) are left out.
#   Each release is installed once into <scratch>/<version> (default /work/scratch/tfjs, outside
#   the repository; nothing installed there is ever committed) with `npm install --prefix`, install
#   scripts off; a release whose wasm backend was not published under the same version has no wasm
#   column entry ("no release"). Raw results: <scratch>/<finding>.tsv.
# A cell says what the reproduction did: "wrong" (exit 1 and a line saying WRONG: the backend
# disagrees with the plain loop), "correct" (exit 0), or "error: <the first error line>" (e.g. a
# kernel the backend did not have yet, a package that does not load).
set -euo pipefail

usage() {
  echo "usage: $0 <finding dir> <first version> [<last version>] [--backends cpu,wasm]" \
    "[--scratch DIR]" >&2
  exit 2
}
positional=() backends=cpu,wasm scratch=/work/scratch/tfjs
while (($#)); do
  case $1 in
    --backends) backends=${2:?}; shift 2 ;;
    --scratch) scratch=${2:?}; shift 2 ;;
    -*) usage ;;
    *) positional+=("$1"); shift ;;
  esac
done
((${#positional[@]} >= 2 && ${#positional[@]} <= 3)) || usage
finding=$(cd "${positional[0]}" 2>/dev/null && pwd) ||
  { echo "$0: ${positional[0]}: no such folder" >&2; exit 2; }
[ -f "$finding/repro.js" ] || { echo "$0: $finding has no repro.js" >&2; exit 2; }
first=${positional[1]} last=${positional[2]:-}
name=$(basename "$finding")
mkdir -p "$scratch"

stable_versions() {  # every stable release of an npm package, oldest first
  npm view "$1" versions --json | tr -d '[]", ' | grep -E '^[0-9]+\.[0-9]+\.[0-9]+$' | sort -V
}
mapfile -t all < <(stable_versions @tensorflow/tfjs)
mapfile -t wasm_all < <(stable_versions @tensorflow/tfjs-backend-wasm)
[ -n "$last" ] || last=${all[-1]}
in_range() {  # $1 between $first and $last (inclusive), by version order
  [ "$(printf '%s\n%s\n' "$first" "$1" | sort -V | head -1)" = "$first" ] &&
    [ "$(printf '%s\n%s\n' "$1" "$last" | sort -V | head -1)" = "$1" ]
}
has_wasm() { printf '%s\n' "${wasm_all[@]}" | grep -qx "$1"; }

IFS=, read -r -a backend_list <<<"$backends"
tsv=$scratch/$name.tsv
printf 'version\t%s\n' "$(IFS=$'\t'; echo "${backend_list[*]}")" >"$tsv"
for v in "${all[@]}"; do
  in_range "$v" || continue
  dir=$scratch/$v
  packages=("@tensorflow/tfjs@$v")
  has_wasm "$v" && packages+=("@tensorflow/tfjs-backend-wasm@$v")
  if [ ! -f "$dir/.installed" ]; then
    if ! timeout 600 npm install --prefix "$dir" --no-save --ignore-scripts --no-audit --no-fund \
        --loglevel=error "${packages[@]}" >"$dir.log" 2>&1; then
      echo "$v: npm install failed ($(grep -m1 -i err "$dir.log" || true))" >&2
      continue
    fi
    touch "$dir/.installed"
  fi
  row=$v
  for b in "${backend_list[@]}"; do
    if [ "$b" = wasm ] && ! has_wasm "$v"; then row+=$'\tno release'; continue; fi
    set +e
    # --no-experimental-fetch: the wasm backends of 1.x to 3.x load their .wasm file with fetch()
    # when one exists, and Node.js 18+'s cannot read a file path ("Failed to parse URL").
    TFJS_BACKENDS=$b NODE_PATH=$dir/node_modules timeout 300 node --no-experimental-fetch \
      "$finding/repro.js" >"$dir/$name.$b.out" 2>"$dir/$name.$b.err"
    rc=$?
    set -e
    # A result is wrong only when the reproduction said so: Node.js exits 1 as well on an exception
    # thrown while the packages load.
    if [ $rc -eq 1 ] && grep -q WRONG "$dir/$name.$b.out"; then
      cell=wrong
    elif [ $rc -eq 0 ]; then
      cell=correct
    else  # the error's first line ("TypeError: …"), without what would break a table
      line=$(grep -m1 -E '^[A-Za-z]*Error\b' "$dir/$name.$b.err" | tr -d '|`' | cut -c1-90 || true)
      line=${line//$dir\//}  # the same message for every release, so that rows merge
      cell="error: ${line:-exit $rc}"
    fi
    row+=$'\t'$cell
  done
  echo "$row" | tee -a "$tsv"
done

# The table: consecutive releases with the same cells share a row ("first – last").
table=$(awk -F'\t' '
  function flush(  n, parts, i, out) {
    out = "| " (start == end ? start : start " – " end)
    n = split(substr(cells, 2), parts, "\t")
    for (i = 1; i <= n; ++i) out = out " | " parts[i]
    print out " |"
  }
  NR == 1 { head = "| releases"; rule = "|---"
            for (i = 2; i <= NF; ++i) { head = head " | " $i; rule = rule "|---" }
            print head " |"; print rule "|"; next }
  { key = ""; for (i = 2; i <= NF; ++i) key = key "\t" $i }
  NR > 2 && key != cells { flush() }
  NR == 2 || key != cells { start = $1; cells = key }
  { end = $1 }
  END { if (NR > 1) flush() }' "$tsv")
newest=$(tail -1 "$tsv" | cut -f1)
summary="Run $(date -u +%Y-%m-%d) by"
summary+=" \`scripts/tfjs_affected_versions.sh findings/$name $first${positional[2]:+ $last}\`"
summary+=" (@tensorflow/tfjs $first to $newest, every stable release; Node.js $(node --version)):"
for i in "${!backend_list[@]}"; do
  b=${backend_list[$i]}
  col=$((i + 2))
  first_wrong=$(awk -F'\t' -v c=$col 'NR > 1 && $c == "wrong" { print $1; exit }' "$tsv")
  newest_cell=$(tail -1 "$tsv" | cut -f$col)
  summary+=" $b: first wrong in ${first_wrong:-none of them}, $newest: $newest_cell;"
done
summary=${summary%;}.

block=$(printf '%s\n\n%s\n' "$summary" "$table")
readme=$finding/README.md
begin='<!-- affected-versions: begin -->' end='<!-- affected-versions: end -->'
if ! grep -qF "$begin" "$readme"; then
  printf '\n## Affected versions\n\n%s\n%s\n' "$begin" "$end" >>"$readme"
fi
BLOCK=$block awk -v b="$begin" -v e="$end" '
  $0 == b { print; print ENVIRON["BLOCK"]; skip = 1; next }
  $0 == e { skip = 0 }
  !skip' "$readme" >"$readme.new"
mv "$readme.new" "$readme"
echo "$summary"
echo "table written into $readme"
