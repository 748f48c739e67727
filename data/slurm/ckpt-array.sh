#!/usr/bin/env bash
# Runs a long ckpt command (validate, simulate, sweep) as a Slurm job array of SHARDS tasks,
# each computing one slice (`--shard $SLURM_ARRAY_TASK_ID/$SLURM_ARRAY_TASK_COUNT`), and a
# dependent job that merges the slices into exactly what one process gives.
#
#   SHARDS=16 WORK=val-1 data/slurm/ckpt-array.sh validate --mtbf 6h --cost 5m --out val-1/report
#
# Environment:
#   SHARDS       number of array tasks (default 8)
#   WORK         folder for the shard files, the merged stdout and Slurm's logs (created;
#                default ckpt-array-<date>-<pid>); it must not hold shards of another run
#   CKPT         the ckpt binary (default: `ckpt` on PATH); made absolute before submission
#   SBATCH_ARGS  extra sbatch options for both jobs (--partition, --account, --time, ...)
#   WAIT         1: block until the merge job has finished (sbatch --wait), exit with its status
#
# The array is submitted as --array=0-(SHARDS-1) on sbatch's command line (a #SBATCH line cannot
# hold a variable), the merge with --dependency=afterok:<array job>, so it runs only when every
# task succeeded. Jobs start in the submission folder, so relative paths in the flags (--config,
# --trace, --out) mean the same in every task and in the merge; the folder must be visible from
# every node (a shared file system), as WORK must.
#
# Slurm runs a copy of this file from its spool folder, with --task or --merge first:
#   ckpt-array.sh --task WORK CKPT FLAGS...  one array task: its slice to WORK/shard-<i>.json
#   ckpt-array.sh --merge WORK CKPT N        the merge: WORK/merged.out (the command's stdout);
#                                            report files go where the command's --out says
set -euo pipefail

die() {
    echo "ckpt-array: $*" >&2
    exit 2
}

case "${1:-}" in
--task)
    work=${2:?WORK}
    ckpt=${3:?CKPT}
    shift 3
    : "${SLURM_ARRAY_TASK_ID:?not a Slurm array task}"
    : "${SLURM_ARRAY_TASK_COUNT:?not a Slurm array task}"
    # The slice number is the task id, so the ids must be exactly 0..COUNT-1.
    if [[ "${SLURM_ARRAY_TASK_MIN:-0}" != 0 ||
        "${SLURM_ARRAY_TASK_MAX:-$((SLURM_ARRAY_TASK_COUNT - 1))}" != $((SLURM_ARRAY_TASK_COUNT - 1)) ]]; then
        die "the array must be 0-$((SLURM_ARRAY_TASK_COUNT - 1)), not ${SLURM_ARRAY_TASK_MIN}-${SLURM_ARRAY_TASK_MAX}"
    fi
    part="$work/shard-$SLURM_ARRAY_TASK_ID.json.part"
    # Written aside and renamed, so that a task that fails leaves no shard behind.
    if ! "$ckpt" "$@" --shard "$SLURM_ARRAY_TASK_ID/$SLURM_ARRAY_TASK_COUNT" >"$part"; then
        rm -f "$part"
        exit 1
    fi
    mv "$part" "$work/shard-$SLURM_ARRAY_TASK_ID.json"
    exit 0
    ;;
--merge)
    work=${2:?WORK}
    ckpt=${3:?CKPT}
    n=${4:?N}
    files=()
    for ((i = 0; i < n; i++)); do files+=("$work/shard-$i.json"); done
    "$ckpt" merge "${files[@]}" >"$work/merged.out.part"
    mv "$work/merged.out.part" "$work/merged.out"
    exit 0
    ;;
-h | --help | "")
    sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'
    [[ -n "${1:-}" ]] && exit 0 || exit 2
    ;;
esac

shards=${SHARDS:-8}
[[ "$shards" =~ ^[1-9][0-9]*$ ]] || die "SHARDS=$shards: use a whole number of tasks, at least 1"
case "$1" in
validate | simulate | sweep) ;;
*) die "\`$1\`: ckpt-array runs validate, simulate or sweep" ;;
esac
for a in "$@"; do
    [[ "$a" == --shard || "$a" == --shard=* ]] && die "do not give --shard: each task gets its own"
done
ckpt=${CKPT:-ckpt}
if [[ "$ckpt" != */* ]]; then
    found=$(command -v "$ckpt") || die "no \`$ckpt\` on PATH: set CKPT to the ckpt binary (or run \`cargo install --path .\`)"
    ckpt=$found
fi
[[ -x "$ckpt" ]] || die "CKPT=$ckpt is not an executable"
ckpt=$(cd "$(dirname "$ckpt")" && pwd)/$(basename "$ckpt")
work=${WORK:-ckpt-array-$(date +%Y%m%d-%H%M%S)-$$}
mkdir -p "$work"
work=$(cd "$work" && pwd)
if compgen -G "$work/shard-*.json" >/dev/null; then
    die "$work already holds shard files: give a fresh WORK"
fi
self=$(cd "$(dirname "$0")" && pwd)/$(basename "$0")
# shellcheck disable=SC2086 # SBATCH_ARGS is a list of options
array=$(sbatch --parsable ${SBATCH_ARGS:-} --job-name=ckpt-shard --array="0-$((shards - 1))" \
    --output="$work/slurm-%A_%a.out" "$self" --task "$work" "$ckpt" "$@")
array=${array%%;*}
echo "array job $array: $shards tasks, shards in $work"
wait_flag=()
[[ "${WAIT:-0}" == 1 ]] && wait_flag=(--wait)
status=0
# shellcheck disable=SC2086
merge=$(sbatch --parsable ${SBATCH_ARGS:-} "${wait_flag[@]}" --job-name=ckpt-merge \
    --dependency="afterok:$array" --kill-on-invalid-dep=yes \
    --output="$work/slurm-merge-%j.out" "$self" --merge "$work" "$ckpt" "$shards") || status=$?
echo "merge job ${merge%%;*}: output in $work/merged.out"
# sbatch --wait returns 0 for a merge cancelled because a task failed: look at the result.
if ((status == 0)) && [[ "${WAIT:-0}" == 1 && ! -f "$work/merged.out" ]]; then
    status=1
fi
if ((status != 0)); then
    echo "ckpt-array: the merge did not succeed (status $status); see $work/slurm-*.out" >&2
fi
exit "$status"
