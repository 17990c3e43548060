#!/usr/bin/env bash
# Submits a nightly campaign to Slurm: an array job of N shards (shard.sbatch) and a merge job
# (merge.sbatch) that waits for the whole array with afterany, so that it runs however the shards
# ended. Prints the two job ids ("ARRAY MERGE") on stdout.
#
# usage: submit.sh --convparity BIN --dir SHARED_DIR --shards N [--seed S] [--time SECONDS |
#                  --cases N] [--baseline LAST_NIGHTS_MERGED_DIR] [--fuzz-args "..."]
#                  [--merge-args "..."] [--replay-args "..."] [-- sbatch options for both jobs]
# SHARED_DIR must be on a file system every node sees (the shards write there, the merge reads).
# The seed defaults to the date (YYYYMMDD): one seed for the whole campaign, a new one each night.
# Example:
#   nightly/slurm/submit.sh --convparity /opt/convparity/bin/convparity \
#     --dir /shared/nightly/$(date +%F) --shards 16 --time 3600 \
#     --baseline /shared/nightly/$(date -d yesterday +%F)/merged -- -p cpu
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
convparity='' dir='' shards='' seed=$(date +%Y%m%d) budget='--time 3600' baseline=''
fuzz_args='' merge_args='' replay_args=''
while (($#)); do
  case $1 in
    --convparity) convparity=$2; shift 2 ;;
    --dir) dir=$2; shift 2 ;;
    --shards) shards=$2; shift 2 ;;
    --seed) seed=$2; shift 2 ;;
    --time) budget="--time $2"; shift 2 ;;
    --cases) budget="--cases $2"; shift 2 ;;
    --baseline) baseline=$2; shift 2 ;;
    --fuzz-args) fuzz_args=$2; shift 2 ;;
    --merge-args) merge_args=$2; shift 2 ;;
    --replay-args) replay_args=$2; shift 2 ;;
    --) shift; break ;;
    *) echo "submit.sh: unknown argument '$1' (see the usage at the top of $0)" >&2; exit 2 ;;
  esac
done
if [ -z "$convparity" ] || [ -z "$dir" ] || ! [[ $shards =~ ^[1-9][0-9]*$ ]]; then
  echo "submit.sh: --convparity, --dir and --shards N (N >= 1) are required" >&2
  exit 2
fi
convparity=$(realpath "$convparity")
mkdir -p "$dir/logs"
dir=$(realpath "$dir")
export CONVPARITY=$convparity NIGHTLY_DIR=$dir NIGHTLY_SHARDS=$shards NIGHTLY_SEED=$seed
export NIGHTLY_BUDGET=$budget NIGHTLY_BASELINE=$baseline NIGHTLY_FUZZ_ARGS=$fuzz_args
export NIGHTLY_MERGE_ARGS=$merge_args NIGHTLY_REPLAY_ARGS=$replay_args
array=$(sbatch --parsable --export=ALL --array="0-$((shards - 1))" \
  --output="$dir/logs/shard-%a.log" "$@" "$here/shard.sbatch")
array=${array%%;*}  # "id;cluster" on a federation
merge=$(sbatch --parsable --export=ALL --dependency="afterany:$array" \
  --output="$dir/logs/merge.log" "$@" "$here/merge.sbatch")
echo "${array} ${merge%%;*}"
