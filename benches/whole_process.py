#!/usr/bin/env python3
"""Whole-process cost of one command under several ckpt binaries, as a user pays it (start,
read, compute, print, exit), which the in-process criterion benchmarks do not see.

    python3 benches/whole_process.py [-n RUNS] BINARY... -- ARGUMENTS...

Runs the binaries in turn, RUNS rounds (default 21), so that a change of machine load hits
them alike, and prints per binary the median wall time, the median CPU time (user + system,
from the kernel's account of the child) and each median's ratio to the first binary's, then
the load average. On a machine shared with other work the wall time mostly measures the
scheduler; the CPU time is the steadier figure. Output goes to /dev/null.
"""

import os
import statistics
import sys
import time


def main(argv):
    runs = 21
    if argv[:1] == ["-n"]:
        runs, argv = int(argv[1]), argv[2:]
    if "--" not in argv or argv.index("--") == 0:
        sys.exit("usage: whole_process.py [-n RUNS] BINARY... -- ARGUMENTS...")
    split = argv.index("--")
    bins, args = argv[:split], argv[split + 1 :]
    wall = {b: [] for b in bins}
    cpu = {b: [] for b in bins}
    null = os.open(os.devnull, os.O_WRONLY)
    redirect = [(os.POSIX_SPAWN_DUP2, null, 1), (os.POSIX_SPAWN_DUP2, null, 2)]
    for _ in range(runs):
        for b in bins:
            start = time.perf_counter()
            pid = os.posix_spawn(b, [b] + args, os.environ, file_actions=redirect)
            _, status, usage = os.wait4(pid, 0)
            wall[b].append((time.perf_counter() - start) * 1e3)
            cpu[b].append((usage.ru_utime + usage.ru_stime) * 1e3)
            if status != 0:
                sys.exit(f"{b} exited with status {status}")
    w0, c0 = statistics.median(wall[bins[0]]), statistics.median(cpu[bins[0]])
    for b in bins:
        w, c = statistics.median(wall[b]), statistics.median(cpu[b])
        print(f"{b:40s} wall {w:8.2f} ms ({w / w0:.3f})   cpu {c:8.2f} ms ({c / c0:.3f})")
    print("load average: %.2f %.2f %.2f" % os.getloadavg())


if __name__ == "__main__":
    main(sys.argv[1:])
