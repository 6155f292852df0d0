#!/usr/bin/env python3
"""measure.py RUNS COMMAND...: runs COMMAND RUNS times; prints its mean and
fastest wall time and its largest peak RSS (from the kernel's rusage of the
child itself); exits non-zero if any run failed."""
import os
import sys
import time

runs, cmd = int(sys.argv[1]), sys.argv[2:]
times, peak, failed = [], 0, 0
for _ in range(runs):
    start = time.monotonic()
    pid = os.fork()
    if pid == 0:
        fd = os.open(os.devnull, os.O_RDWR)
        os.dup2(fd, 1)
        os.dup2(fd, 2)
        os.execvp(cmd[0], cmd)
    _, status, usage = os.wait4(pid, 0)
    times.append((time.monotonic() - start) * 1000)
    peak = max(peak, usage.ru_maxrss)
    failed += os.waitstatus_to_exitcode(status) != 0
print(f"mean {sum(times) / runs:.1f} ms, fastest {min(times):.1f} ms, peak RSS {peak} KiB, {failed} failed")
sys.exit(1 if failed else 0)
