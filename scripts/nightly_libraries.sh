#!/usr/bin/env bash
# nightly_libraries.sh <build dir> [seconds per adapter] [out dir]: a campaign against every adapter
# to another library built here (adapters/; `convparity list --json` says which are built and
# which directions each implements), each in its own directions only, then one merged folder.
# Layout of the out dir (default nightly-libraries/):
#   <sut>/      each adapter's campaign (--out of convparity fuzz; ':' and '#' in a name become '_')
#   merged/     convparity merge of them all: one summary.json, every report and case
#   <sut>.log   each campaign's progress lines
# Environment: JOBS (default 1): worker processes per campaign. Exit 1 when any campaign found a
# discrepancy (every library here has open findings: see findings/README.md), 2 on bad input.
set -euo pipefail
if [ $# -lt 1 ] || [ ! -x "$1/harness/convparity" ]; then
  echo "usage: nightly_libraries.sh <build dir> [seconds per adapter] [out dir]" >&2
  exit 2
fi
CONVPARITY=$(cd "$1" && pwd)/harness/convparity
SECONDS_PER_ADAPTER=${2:-600}
OUT=$(mkdir -p "${3:-nightly-libraries}" && cd "${3:-nightly-libraries}" && pwd)
JOBS=${JOBS:-1}

# One line per built adapter: its name, then its directions. An adapter with variants (onednn#2,
# …) runs as one campaign over all its members (onednn#all) instead of one per member.
adapters=$("$CONVPARITY" list --json | python3 -c '
import json, sys
suts = [s for s in json.load(sys.stdin)["suts"]
        if s.get("adapter") and s.get("built") and s["directions"]]
names = {s["name"] for s in suts}
for s in suts:
    name = s["name"]
    if ("#" in name and not name.endswith("#all")) or name + "#all" in names:
        continue
    print(name, *s["directions"])')
if [ -z "$adapters" ]; then
  echo "nightly_libraries: no adapter is built here (scripts/setup.sh installs their libraries)" >&2
  exit 2
fi

status=0
runs=()
while read -r sut directions; do
  dir=$OUT/${sut//[:#]/_}
  rm -rf "$dir"
  flags=()
  for d in $directions; do flags+=(--direction "$d"); done
  echo "nightly_libraries: $sut ($directions) for $SECONDS_PER_ADAPTER s on $JOBS jobs"
  rc=0
  "$CONVPARITY" fuzz --sut "$sut" "${flags[@]}" --time "$SECONDS_PER_ADAPTER" --jobs "$JOBS" \
    --out "$dir" >"$dir.log" 2>&1 || rc=$?
  tail -1 "$dir.log"
  [ "$rc" -le 1 ] || { echo "nightly_libraries: $sut: exit $rc (see $dir.log)" >&2; exit "$rc"; }
  [ "$rc" -eq 0 ] || status=1
  runs+=("$dir")
done <<<"$adapters"

rm -rf "$OUT/merged"
"$CONVPARITY" merge "${runs[@]}" --out "$OUT/merged"
echo "nightly_libraries: merged into $OUT/merged ($(ls "$OUT/merged/reports" 2>/dev/null | wc -l) reports)"
exit "$status"
