#!/usr/bin/env bash
# The nightly job scripts (nightly/slurm/) on a real one-node Slurm cluster: this test starts
# munged, slurmctld and slurmd on this machine with a configuration it writes
# (one_node_slurm.sh), submits a 4-shard campaign and its merge with nightly/slurm/submit.sh,
# cancels shard 3 mid-run, waits for the merge, and checks that
#  - the merged summary counts exactly what the four shards' summaries count (checks, verdicts per
#    SUT and direction, each bucket's cases), a bucket several shards found being one finding;
#  - the cancelled shard was merged with what it had written, and is named incomplete (in the
#    summary and by the merge), no shard missing, the others complete;
#  - the merge job replayed the merged findings (confirmed.json) and its summary validates.
# It stops the daemons by the process ids it recorded. Exit 77 (skipped) without slurm-wlm and
# munge, unless CI=true (scripts/setup.sh installs them). Usage: slurm_test.sh <convparity> <src>
set -u
cp=$(realpath "$1")
src=$(realpath "$2")
py=/usr/bin/python3
for tool in /usr/sbin/munged /usr/sbin/slurmctld /usr/sbin/slurmd /usr/bin/sbatch; do
  if ! [ -x "$tool" ]; then
    echo "$tool is missing (scripts/setup.sh installs slurm-wlm and munge)"
    [ "${CI:-}" = true ] && exit 1
    exit 77
  fi
done
tmp=$(mktemp -d)
chmod 755 "$tmp"  # the jobs run as this user; munged wants no group- or world-writable parent
# shellcheck source=one_node_slurm.sh
source "$src/tests/nightly/one_node_slurm.sh"
trap 'slurm_stop; rm -rf "$tmp"' EXIT
passed=0 failed=0
check() {  # name, command…: passes when the command succeeds
  local name=$1
  shift
  if "$@"; then passed=$((passed + 1)); else failed=$((failed + 1)) && echo "FAIL $name"; fi
}

started=$SECONDS
if ! slurm_start "$tmp/cluster"; then
  echo "FAIL the one-node cluster did not start"
  exit 1
fi
echo "cluster up in $((SECONDS - started)) s"
shared=$tmp/nightly
read -r array merge < <(bash "$src/nightly/slurm/submit.sh" --convparity "$cp" --dir "$shared" \
  --shards 4 --seed 7 --time 25 \
  --fuzz-args "--sut known-bug:tvm-7912 --sut direct --direction fwd --dims 1,2")
echo "array job $array, merge job $merge"

state() {
  scontrol show job "$1" 2>/dev/null | grep -o 'JobState=[A-Z_]*' | head -n 1 | cut -d= -f2
}
# Shard 3 is cancelled mid-run: once it has written a checkpoint with some checks in it.
running() {
  [ -f "$shared/shard-3/summary.json" ] &&
    $py -c 'import json,sys; sys.exit(json.load(open(sys.argv[1]))["cases"]["total"] < 20)' \
      "$shared/shard-3/summary.json"
}
slurm_wait_for 90 running || echo "FAIL shard 3 wrote no checkpoint with checks in 90 s"
scancel "${array}_3"
echo "cancelled shard 3 at $((SECONDS - started)) s"
over() {
  case $(state "$merge") in
    COMPLETED | FAILED | CANCELLED | TIMEOUT | NODE_FAIL) ;;
    *) false ;;
  esac
}
slurm_wait_for 120 over || echo "FAIL the merge job did not end in 120 s: $(state "$merge")"
echo "merge job $(state "$merge") at $((SECONDS - started)) s"
check shard-3-cancelled test "$(state "${array}_3")" = CANCELLED
# A shard's exit status is its campaign's: 1 when it found something, so FAILED is an end too.
for i in 0 1 2; do
  check "shard-$i-ended" grep -Eqx 'COMPLETED|FAILED' <<<"$(state "${array}_$i")"
done
check merge-job-completed test "$(state "$merge")" = COMPLETED

# Counts: the merged summary against the sum of the shards'.
check counts-exact $py - "$shared" <<'PY'
import json, sys
from collections import Counter
root = sys.argv[1]
shards = [json.load(open(f"{root}/shard-{i}/summary.json")) for i in range(4)]
merged = json.load(open(f"{root}/merged/summary.json"))
ok = True
def same(what, got, want):
    global ok
    if got != want:
        ok = False
        print(f"FAIL {what}: merged {got}, shards {want}")
same("checks", merged["cases"]["total"], sum(s["cases"]["total"] for s in shards))
verdicts, buckets = Counter(), Counter()
for s in shards:
    for sut, by_direction in s["cases"]["by_sut"].items():
        for direction, by_verdict in by_direction.items():
            for verdict, n in by_verdict.items():
                verdicts[(sut, direction, verdict)] += n
    for b in s["buckets"]:
        buckets[b["signature"]] += b["cases"]
merged_verdicts = Counter()
for sut, by_direction in merged["cases"]["by_sut"].items():
    for direction, by_verdict in by_direction.items():
        for verdict, n in by_verdict.items():
            merged_verdicts[(sut, direction, verdict)] += n
same("verdicts", +merged_verdicts, +verdicts)
same("bucket cases", {b["signature"]: b["cases"] for b in merged["buckets"]}, dict(buckets))
same("distinct findings", merged["findings"]["distinct"], len(buckets))
same("hits", merged["findings"]["hits"], sum(buckets.values()) - len(buckets))
same("shards", merged["shards"], ["0/4", "1/4", "2/4", "3/4"])
same("incomplete", merged["incomplete_shards"], ["3/4"])
same("missing", merged["missing_shards"], [])
for i in range(3):
    same(f"shard {i} incomplete", shards[i]["incomplete_shards"], [])
same("shard 3 incomplete", shards[3]["incomplete_shards"], ["3/4"])
print(f"merged {merged['cases']['total']} checks of 4 shards "
      f"({', '.join(str(s['cases']['total']) for s in shards)}), "
      f"{len(buckets)} buckets, shard 3 cancelled after {shards[3]['elapsed_seconds']:.1f} s")
sys.exit(0 if ok else 1)
PY
check merge-names-incomplete grep -q "incomplete.*3/4" "$shared/logs/merge.log"
check findings-replayed test -s "$shared/merged/confirmed.json"
if $py -c 'import jsonschema' 2>/dev/null; then
  check merged-summary-validates $py "$src/reports/schema/validate.py" \
    "$src/reports/schema/summary.schema.json" "$shared/merged/summary.json"
elif [ "${CI:-}" = true ]; then
  check python3-jsonschema false
fi
if ((failed)); then
  for f in "$shared"/logs/*.log; do echo "--- $f"; tail -n 5 "$f"; done
fi
echo "$passed passed, $failed failed in $((SECONDS - started)) s"
((failed == 0))
