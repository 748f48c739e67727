#!/usr/bin/env python3
"""Every command's output under one ckpt binary, written to a folder, so that two builds can be
compared byte for byte (a refactoring must not move a figure).

    python3 benches/outputs.py BINARY OUTDIR          # run the commands below into OUTDIR
    diff -r OUTDIR_OLD OUTDIR_NEW                       # then compare two builds

Run from the repository's root (the commands name files under data/). For each command, OUTDIR
gets `NN.out` (stdout), `NN.err` (stderr), `NN.status` (the exit status) and, for commands with
`--out`, the folder `NN.d/`. Every command runs in one scratch folder (`ckpt-outputs` under the
system's temporary folder, emptied first), so that the paths that reports and shards quote are
the same for both builds; name the binaries alike too (`.../ckpt`), since `--help` prints the
binary's name. The list covers every example of the README and most of docs/guide.md, the five
committed docs/ reports, a sharded run and its merge (the merge must equal the whole run, the
command before it), refusals and two help pages. Every output is deterministic: two runs of one
binary give identical folders. Takes a few seconds with a release build.
"""

import os
import shutil
import subprocess
import sys
import tempfile

LEVELS = [
    "--level", "cost=5s,restart=10s,mtbf=3h,name=local",
    "--level", "cost=30s,restart=60s,mtbf=24h,name=partner",
    "--level", "cost=600s,restart=900s,mtbf=7d,name=pfs",
]

# One entry a command: its arguments, `{out}` standing for a fresh folder.
COMMANDS = [
    "interval --mtbf 24h --cost 5m --restart 10m",
    "interval --mtbf 24h --cost 5m --restart 10m --format json",
    "interval --mtbf 24h --cost 5m --restart 10m --format env",
    "interval --mtbf 24h --cost 5m --restart 10m --downtime 1m --work 10d",
    "interval --mtbf 24h --cost 5m --restart 10m --work 500h --iteration-time 17m --format json",
    "interval --mtbf 1h --cost 60s --procs 8 --replicas 2 --detect end --restart 2m",
    "interval --mtbf 1h --cost 60s --procs 8 --replicas 2 --detect immediate --restart 2m --format json",
    "interval --mtbf 24h --cost 60s --procs 64 --replicas 2 --detect immediate",
    "interval --mtbf 6h --cost 5m --procs 16 --replicas 2 --dist weibull:0.7",
    "interval --mtbf 6h --cost 5m --procs 16 --replicas 2 --dist gamma:2 --format json",
    "interval --mtbf 24h --ckpt-bytes 64GiB --bandwidth 2GB/s --create-time 10s --latency 5ms --ack-time 1s",
    "interval --mtbf 24h --scheme weighted --checksums 4 --procs 64 --ckpt-bytes 1GiB --bandwidth 10GB/s --latency 5us --flops 1e10",
    "interval --mtbf 24h --scheme weighted --checksums 4 --procs 64 --ckpt-bytes 1GiB --bandwidth 10GB/s --format json",
    "interval --nodes 4096 --node-mtbf 5y --cost 5m",
    "interval --nodes 4096 --node-mtbf 5y --cost 5m --format json",
    "interval --mtbf 24h --cost 10m --restart 10m --dist weibull:0.7",
    "interval --mtbf 24h --cost 10m --restart 10m --dist weibull:0.7 --work 240h",
    "interval --mtbf 24h --cost 10m --restart 10m --dist gamma:0.5 --work 30d --format json",
    "interval --mtbf 24h --cost 10m --restart 10m --dist weibull:1.5 --format json",
    "interval --mtbf 24h --cost 10m --restart 10m --dist gamma:0.5 --format env",
    "interval --mtbf 24h --cost 10m --restart 10m --dist lognormal:1.5",
    "interval --mtbf 24h --cost 10m --restart 10m --dist weibull:1e4 --format json",
    "interval --mtbf 3h --cost 60s --async-write 10m",
    "interval --mtbf 3h --cost 60s --async-write 10m --async-slowdown 0.1 --format json",
    "interval --mtbf 6h --cost 5m --restart 5m --walltime 24h",
    "interval --mtbf 6h --cost 5m --restart 5m --walltime 24h --format slurm",
    "interval --mtbf 6h --cost 5m --restart 5m --walltime 24h --signal-margin 60s --format json",
    "interval --mtbf 24h --cost 10m --restart 10m --downtime 1m --work 10d --format json",
    ["interval", *LEVELS],
    ["interval", *LEVELS, "--format", "json"],
    ["interval", *LEVELS, "--format", "scr"],
    ["interval", *LEVELS, "--format", "fti"],
    ["interval", *LEVELS, "--format", "veloc"],
    "sweep --mtbf 24h --cost 5m --restart 10m --vary mtbf=15m..7d --log --points 60 --out {out}",
    "sweep --mtbf 24h --cost 5m --restart 10m --vary cost=1m..1h --points 20 --out {out}",
    "sweep --mtbf 24h --cost 10m --restart 10m --dist weibull:1 --vary shape=0.5..1.5 --points 12 --out {out}",
    ["sweep", *LEVELS, "--vary", "level2.cost=5s..10m", "--points", "60", "--log", "--out", "{out}"],
    "simulate periodic --mtbf 6h --cost 5m --restart 10m --interval 57m --work 500h",
    "simulate periodic --mtbf 6h --cost 5m --restart 10m --interval 57m --work 500h --format json",
    "simulate periodic --mtbf 6h --cost 5m --restart 5m --interval 3457 --work 1000h --walltime 24h --signal-lead 5m --format json",
    "simulate periodic --mtbf 6h --cost 5m --restart 10m --interval 57m --work 100h --async-write 10m --async-slowdown 0.1 --format json",
    "simulate periodic --nodes 64 --node-mtbf 5y --dist weibull:0.7 --partners 64 --cost 5m --restart 10m --interval 1h --work 100h --runs 200 --format json",
    "simulate periodic --trace data/paper/five-failures.csv --nodes 128 --partners 2 --cost 5m --restart 10m --interval 1h --work 100h --format json",
    "simulate periodic --mtbf 24h --cost 10m --restart 10m --dist weibull:0.7 --schedule 2h,3h,4h --work 100h --runs 300 --format json",
    "simulate replicated --mtbf 1h --cost 60s --procs 8 --replicas 2 --interval 6m --work 100h",
    "simulate replicated --mtbf 1h --cost 60s --procs 8 --replicas 2 --interval 6m --work 100h --detect immediate --format json",
    "simulate stencil --config data/paper/rollback-five-failures.ini --level 6 --recovery dependency",
    "simulate stencil --config data/paper/rollback-five-failures.ini --level 1 --recovery global --format json",
    "simulate stencil --config data/paper/rollback.ini --level 3 --recovery global --runs 50 --seed 42 --format json",
    ["simulate", "multilevel", *LEVELS, "--interval", "291s", "--strides", "1,7,91", "--work", "500h"],
    ["simulate", "multilevel", *LEVELS, "--interval", "291s", "--strides", "1,7,91", "--work", "500h", "--format", "json"],
    ["simulate", "multilevel", *LEVELS, "--interval", "291s", "--strides", "1,7,91", "--work", "500h", "--format", "csv"],
    "validate --mtbf 6h --cost 5m --restart 10m --runs 300 --work 100h --out {out}",
    "validate --mtbf 10m --cost 5m --restart 1m --runs 1000 --work 100h --out {out}",
    "validate --mtbf 1h --cost 60s --procs 8 --replicas 2 --sim replicated --runs 200 --work 50h --points 9 --out {out}",
    "validate --mtbf 3h --cost 60s --async-write 10m --runs 200 --work 50h --points 9 -q",
    "validate --mtbf 6h --cost 5m --restart 5m --work 30h --runs 200 --points 9 --format json",
    "validate --mtbf 24h --cost 10m --restart 10m --dist weibull:0.7 --runs 1000 --out {out}",
    "validate --mtbf 24h --cost 10m --restart 10m --dist weibull:1e6 --work 10h --runs 20 --format json",
    "validate --sim stencil --config data/validate/costly-checkpoint.ini --runs 200 --out {out}",
    ["validate", *LEVELS, "--runs", "200", "--work", "100h", "--points", "9", "--out", "{out}"],
    "fit data/failures/weibull-0.7.csv --cost 5m",
    "fit data/failures/weibull-0.7.csv --cost 5m --format json",
    "fit data/failures/allocations.csv --exclude-kind allocation-start --format json",
    "fit data/failures/nodes.csv --per-node --nodes 128 --exclude-kind maintenance --exclude-kind end-of-log --format json",
    "fit data/failures/aircondit7.csv",
    "survive --scheme checksum-1d --procs 64 --groups 8 --failures 0..8",
    "survive --scheme weighted --procs 64 --checksums 4 --failures 0..8 --format json",
    "survive --scheme mirror --procs 64 --failures 0..8",
    "encode --scheme weighted --procs 16 --checksums 4 --fail 3",
    "encode --scheme weighted --procs 16 --checksums 4 --fail 3 --matrix cauchy --format json",
    "encode --scheme pair --procs 16 --fail 3 --format json",
    "encode --scheme weighted --procs 16 --checksums 4 --fail-set 16,17 --format json",
    "encode --scheme weighted --procs 16 --checksums 4 --fail-set 16,17",
    "encode --scheme checksum --procs 16 --fail-set 1,2 --format json",
    "pcg --grid 64 --procs 16 --scheme weighted --checksums 3 --every 100 --fail 0..3 --at 150 --format json",
    "pcg --grid 64 --procs 16 --scheme pair --every 50 --fail 0..2 --at 60 --format json",
    # A sharded run and its merge (the merge's output must equal the whole run's).
    "simulate periodic --mtbf 6h --cost 5m --restart 10m --interval 57m --work 500h --runs 999 --shard 0/3 --format json",
    "simulate periodic --mtbf 6h --cost 5m --restart 10m --interval 57m --work 500h --runs 999 --shard 1/3 --format json",
    "simulate periodic --mtbf 6h --cost 5m --restart 10m --interval 57m --work 500h --runs 999 --shard 2/3 --format json",
    "simulate periodic --mtbf 6h --cost 5m --restart 10m --interval 57m --work 500h --runs 999 --format json",
    "merge {shards}",
    "merge data/examples/shard-format-1.json",
    # Refusals: one line, exit status 2.
    "interval --mtbf -5m --cost 5m",
    "interval --mtbf 24h --cost 5m --dist weibull:0",
    "simulate periodic --mtbf 6h --cost 5m --interval 0 --work 10h",
    "encode --scheme weighted --procs 16 --checksums 4 --fail-set 1,1",
    "fit data/failures/README.md",
    "interval --help",
    "validate --help",
    # Allocations under renewal failures and their validation (appended, so that the numbers
    # of the commands above stay those of earlier builds).
    "interval --mtbf 6h --cost 5m --restart 5m --dist weibull:50 --walltime 24h",
    "interval --mtbf 6h --cost 5m --restart 5m --dist lognormal:1.5 --walltime 24h --format json",
    "validate --mtbf 6h --cost 5m --restart 5m --walltime 24h --runs 200 --points 9 --format json",
    "validate --mtbf 6h --cost 5m --restart 5m --dist weibull:50 --walltime 24h --runs 100 --points 5 --out {out}",
    "interval --mtbf 6h --cost 5m --restart 5m --dist weibull:50 --walltime 24h --iteration-time 17m --format json",
]


def main(argv):
    if len(argv) != 2:
        sys.exit("usage: outputs.py BINARY OUTDIR")
    binary, outdir = os.path.abspath(argv[0]), os.path.abspath(argv[1])
    scratch = os.path.join(tempfile.gettempdir(), "ckpt-outputs")
    shutil.rmtree(scratch, ignore_errors=True)
    os.makedirs(scratch)
    shards = []
    for n, command in enumerate(COMMANDS):
        args = command.split() if isinstance(command, str) else list(command)
        stem = os.path.join(scratch, f"{n:02d}")
        args = [a.replace("{out}", stem + ".d") for a in args]
        if args == ["merge", "{shards}"]:
            args = ["merge", *shards]
        ran = subprocess.run([binary, *args], capture_output=True)
        if "--shard" in args:
            shards.append(stem + ".out")
        for ext, data in ((".out", ran.stdout), (".err", ran.stderr)):
            with open(stem + ext, "wb") as f:
                f.write(data)
        with open(stem + ".status", "w") as f:
            f.write(f"{ran.returncode}\n")
        print(f"{n:02d} {ran.returncode} {' '.join(args)[:110]}", flush=True)
    shutil.rmtree(outdir, ignore_errors=True)
    shutil.move(scratch, outdir)


if __name__ == "__main__":
    main(sys.argv[1:])
