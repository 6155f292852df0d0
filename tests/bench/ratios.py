#!/usr/bin/env python3
"""Timer for the start-up benchmark; run it inside the network namespace.

  ratios.py time RUNS LABEL DUMP NOPRELUDE -- INIT [ARG...]
      RUNS rounds; each round times, each from an empty ruleset (`nft flush
      ruleset` first, untimed): the init's real start, `nft -f DUMP` (the
      init's own dry-run) and `nft -f NOPRELUDE` (the same without the
      `table` / `delete table` replace prelude).  The three alternate, so
      drift on a shared machine hits all alike.  Prints medians, fastest
      runs and the ratios init / nft; exits 1 if any run failed.
  ratios.py wall RUNS LABEL -- CMD [ARG...]
      One command alone (the init's real start, or a reference), RUNS
      times from an empty ruleset: median and fastest.
  ratios.py rss INIT [ARG...]
      Runs the init as PID 1 of a new pid namespace (unshare --pid --fork)
      with the command given (it should sleep), waits until the init has
      dropped its privileges and started the command, then prints PID 1's
      VmRSS, RssAnon and RssFile from /proc while the command runs.  The
      init's file is evicted from the page cache first (see evict).

Wall time is measured here, from spawn to exit, with posix_spawn, so the
harness adds the same small cost to every command."""
import os
import statistics
import subprocess
import sys
import time


def spawn_wait(argv, env=None):
    devnull = os.open(os.devnull, os.O_RDWR)
    acts = [(os.POSIX_SPAWN_DUP2, devnull, 1), (os.POSIX_SPAWN_DUP2, devnull, 2)]
    t = time.perf_counter_ns()
    pid = os.posix_spawnp(argv[0], argv, env if env is not None else os.environ, file_actions=acts)
    _, status, _ = os.wait4(pid, 0)
    elapsed = (time.perf_counter_ns() - t) / 1e6
    os.close(devnull)
    return elapsed, os.waitstatus_to_exitcode(status)


def flush():
    subprocess.run(["nft", "flush", "ruleset"], check=True)


def time_cmd(args):
    runs, label, dump, noprelude = int(args[0]), args[1], args[2], args[3]
    init = args[5:]
    cmds = [("init", init), ("nft -f dump", ["nft", "-f", dump]),
            ("nft -f without prelude", ["nft", "-f", noprelude])]
    times = {name: [] for name, _ in cmds}
    failed = 0
    for r in range(runs):
        order = cmds if r % 2 == 0 else cmds[::-1]
        for name, argv in order:
            flush()
            ms, rc = spawn_wait(argv)
            times[name].append(ms)
            if rc != 0:
                failed += 1
                print(f"# {label}: {name} failed with status {rc}", file=sys.stderr)
    flush()
    med = {k: statistics.median(v) for k, v in times.items()}
    for name, _ in cmds:
        print(f"# {label}: {name}: median {med[name]:.2f} ms, fastest {min(times[name]):.2f} ms ({runs} runs)")
    print(f"{label}: init {med['init']:.2f} ms; "
          f"init / nft -f dump = {med['init'] / med['nft -f dump']:.2f}; "
          f"init / nft -f without prelude = {med['init'] / med['nft -f without prelude']:.2f}")
    return 1 if failed else 0


def wall_cmd(args):
    runs, label, init = int(args[0]), args[1], args[3:]
    times, failed = [], 0
    for _ in range(runs):
        flush()
        ms, rc = spawn_wait(init)
        times.append(ms)
        failed += rc != 0
    flush()
    print(f"{label}: median {statistics.median(times):.2f} ms, fastest {min(times):.2f} ms ({runs} runs)")
    return 1 if failed else 0


def status_of(pid):
    try:
        with open(f"/proc/{pid}/status") as f:
            return dict(line.rstrip("\n").split(":\t", 1) for line in f if ":\t" in line)
    except OSError:
        return None


def children(pid):
    try:
        with open(f"/proc/{pid}/task/{pid}/children") as f:
            return [int(x) for x in f.read().split()]
    except OSError:
        return []


def evict(path):
    """Drops the binary's pages from the page cache, so that it is read the
    way a container reads its image's file.  A file just written (a build,
    cp, strip) sits in the cache in large folios, and one fault then maps a
    whole folio: PID 1's RSS would measure how the file was written."""
    os.sync()
    fd = os.open(path, os.O_RDONLY)
    try:
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
    finally:
        os.close(fd)


def rss_cmd(args):
    flush()
    evict(args[0])
    p = subprocess.Popen(["unshare", "--pid", "--fork", "--kill-child"] + args,
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 10
    fields = None
    try:
        while time.monotonic() < deadline and p.poll() is None:
            init = children(p.pid)
            if init:
                st = status_of(init[0])
                # Dropped (real uid no longer 0) and the command started.
                if st and st.get("Uid", "0").split()[0] != "0" and children(init[0]):
                    time.sleep(0.2)  # let the start settle
                    fields = status_of(init[0])
                    break
            time.sleep(0.005)
    finally:
        p.wait(timeout=30)
    flush()
    if not fields:
        print("rss: PID 1 never reached the running command", file=sys.stderr)
        return 1
    kib = {k: int(fields.get(k, "0 kB").split()[0]) for k in ("VmRSS", "RssAnon", "RssFile", "VmHWM")}
    print(f"PID 1 RSS while the command runs: {kib['VmRSS']} KiB = {kib['VmRSS'] / 1024:.2f} MiB "
          f"(anon {kib['RssAnon']} KiB, file {kib['RssFile']} KiB; peak during start {kib['VmHWM']} KiB)")
    return 0


def main():
    if len(sys.argv) > 6 and sys.argv[1] == "time" and sys.argv[6] == "--":
        sys.exit(time_cmd(sys.argv[2:]))
    if len(sys.argv) > 5 and sys.argv[1] == "wall" and sys.argv[4] == "--":
        sys.exit(wall_cmd(sys.argv[2:]))
    if len(sys.argv) > 2 and sys.argv[1] == "rss":
        sys.exit(rss_cmd(sys.argv[2:]))
    sys.exit(__doc__)


main()
