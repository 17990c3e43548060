#!/usr/bin/env bash
# Regenerates corpus/regression/ (replayed by CI with `convparity check`):
#  - known_bugs/: for every known-bug reproduction, its trigger and the case `convparity shrink`
#    minimizes it to, each expected to show the bug's symptom (`list --json`: failed, unwritten,
#    shape_mismatch, broken_promise) on the reproduction and to pass on our kernel (for a transform
#    bug: on the same pipeline with the correct pass);
#  - benchdnn/: the shared benchdnn lists, scaled down, in every direction, exact and uniform fill;
#  - chains/: cases as residual blocks (core/graph.h ChainGraph), checked against the graph oracle:
#    every transform bug's trigger (differing on the bug, agreeing on the correct pipeline), and the
#    first benchdnn cases through each default transform pipeline.
# Every case states the verdict `convparity check` must see, exactly. The benchdnn cases expect
# passed, except those whose reference is mostly zero where the problem's structure reaches: they
# expect mistrusted (their values agree, but zeros of the data prove little; docs/TOLERANCE.md;
# zeros of the structure do not count, harness/engine/judge.h); any other verdict stops this script.
# Usage: scripts/make_regression_corpus.sh [convparity binary]
set -euo pipefail
cd "$(dirname "$0")/.."
cp=${1:-./build/harness/convparity}
shared=../shared/benchdnn
out=corpus/regression
py=/usr/bin/python3
rm -rf "$out/known_bugs" "$out/benchdnn" "$out/chains"
mkdir -p "$out/known_bugs" "$out/benchdnn" "$out/chains"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# case <file> <descriptor> <sut> <fill> <expect> <note>
write_case() {
  $py - "$@" <<'PY'
import json, sys
path, descriptor, sut, fill, expect, note = sys.argv[1:]
case = {"schema": "convparity.case/1", "descriptor": descriptor, "sut": sut, "fill": fill,
        "seed": 1, "expect": expect, "note": note}
with open(path, "w") as f:
    json.dump(case, f, indent=2, sort_keys=True)
    f.write("\n")
PY
}

"$cp" list --json | $py -c '
import json, sys
for b in json.load(sys.stdin)["known_bugs"]:
    print(b["id"], b["trigger"], b["symptom"],
          b.get("transform", "").replace("@" + b["id"], "") or "direct")' |
while read -r id trigger symptom ours; do
  kind=$([ "$ours" = direct ] && echo direct || echo fixed)
  write_case "$tmp/$id.json" "$trigger" "known-bug:$id" exact "$symptom" "$id"
  "$cp" shrink "$tmp/$id.json" --out "$tmp/$id" --quiet >/dev/null
  minimal=$($py -c 'import json,sys,glob; print(json.load(open(glob.glob(sys.argv[1])[0]))["descriptor"])' "$tmp/$id/corpus/*.json")
  for fill in exact uniform; do
    write_case "$out/known_bugs/$id-trigger-$fill.json" "$trigger" "known-bug:$id" $fill "$symptom" "$id (trigger)"
    write_case "$out/known_bugs/$id-minimal-$fill.json" "$minimal" "known-bug:$id" $fill "$symptom" "$id (shrunk from the trigger)"
    write_case "$out/known_bugs/$id-trigger-$kind-$fill.json" "$trigger" "$ours" $fill passed "$id: $ours agrees"
    write_case "$out/known_bugs/$id-minimal-$kind-$fill.json" "$minimal" "$ours" $fill passed "$id: $ours agrees"
  done
  echo "$id: $trigger -> $minimal"
done

for fill in exact uniform; do
  "$cp" import-benchdnn "$shared"/conv/* "$shared"/deconv/* --max-batch 2 --max-spatial 6 \
    --scale-macs 20000 --fill $fill --corpus "$out/benchdnn" 2>/dev/null
done
# Chains: the same cases with "graph": "chain".
"$cp" list --json | $py -c '
import glob, json, os, sys
out = sys.argv[1]
listing = json.load(sys.stdin)
def write(name, case):
    with open(os.path.join(out, "chains", name), "w") as f:
        json.dump(case, f, indent=2, sort_keys=True)
        f.write("\n")
for path in sorted(glob.glob(os.path.join(out, "known_bugs", "*-trigger-*.json"))):
    case = json.load(open(path))
    if case["sut"].startswith("transform:") or (case["sut"].startswith("known-bug:") and any(
            b["id"] == case["sut"][len("known-bug:"):] and b.get("transform") for b in listing["known_bugs"])):
        case["graph"] = "chain"
        case["note"] += " (as a chain)"
        write(os.path.basename(path), case)
pipelines = ["transform:legalize", "transform:convert_layout,fold_constants",
             "transform:lower_conv1d", "transform:canonicalize_depthwise",
             "transform:transpose_to_conv", "transform:split_groups"]  # as in the default campaign
# The first benchdnn cases by content, not by file name: a file name is a hash of the whole case.
benchdnn = sorted(((json.load(open(p)), p) for p in glob.glob(os.path.join(out, "benchdnn", "*.json"))),
                  key=lambda cp: json.dumps(cp[0], sort_keys=True))[:24]
for sut in pipelines:
    for first, path in benchdnn:
        case = dict(first)
        case.update(graph="chain", sut=sut, note=case["note"] + " (as a chain)")
        write(sut.replace("transform:", "").replace(",", "+") + "-" + os.path.basename(path), case)
' "$out"
# Cases whose reference is mostly zero by its data: mistrusted, and expected so.
"$cp" check "$out" --jobs 2 --quiet >"$tmp/check" || true
$py - "$tmp/check" <<'PY'
import json, re, sys
unexpected = 0
for line in open(sys.argv[1]):
    m = re.match(r"UNEXPECTED (\S+\.json): .*: expected passed, got mistrusted(: |$)", line)
    if m and "/known_bugs/" not in m.group(1):
        case = json.load(open(m.group(1)))
        case["expect"] = "mistrusted"
        with open(m.group(1), "w") as f:
            json.dump(case, f, indent=2, sort_keys=True)
            f.write("\n")
    elif line.startswith("UNEXPECTED"):
        unexpected += 1
        print(line, end="", file=sys.stderr)
sys.exit(1 if unexpected else 0)
PY
"$cp" check "$out" --jobs 2 --quiet | tail -2
