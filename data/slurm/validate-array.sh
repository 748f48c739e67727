#!/usr/bin/env bash
# A validation as a Slurm job array: SHARDS tasks of `ckpt validate ... --shard
# $SLURM_ARRAY_TASK_ID/$SLURM_ARRAY_TASK_COUNT` and a dependent job that merges them.
#
#   SHARDS=16 WORK=val-1 data/slurm/validate-array.sh --mtbf 6h --cost 5m --restart 10m \
#       --runs 100000 --format json --out val-1/report
#
# The merged stdout is WORK/merged.out; the report folder is the --out given. SHARDS, WORK,
# CKPT, SBATCH_ARGS and WAIT are described in ckpt-array.sh, which does the work.
set -euo pipefail
exec "$(dirname "$0")/ckpt-array.sh" validate "$@"
