#!/usr/bin/env python3
"""Times a person's start: from the host script's start to the init's "firewall up" line on
stderr, and to the first request the gateway logs (the CLI's first model call).

usage: first_run.py RUNS GATEWAY-LOG -- COMMAND...
Each run starts COMMAND with stdin from /dev/null and waits for it to end (at most 120 s).
Prints one line: "firewall p50=…s min=…s max=…s; model p50=… (N runs)"; exits 1 when a run
showed no firewall line or no model request.
"""
import os
import statistics
import subprocess
import sys
import threading
import time


def one(cmd, log):
    start_size = os.path.getsize(log) if os.path.exists(log) else 0
    t0 = time.monotonic()
    p = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                         stderr=subprocess.PIPE, start_new_session=True)
    seen = {}

    def read_err():
        for line in p.stderr:
            if b"firewall up" in line and "fw" not in seen:
                seen["fw"] = time.monotonic() - t0

    th = threading.Thread(target=read_err, daemon=True)
    th.start()
    deadline = t0 + 120
    while time.monotonic() < deadline:
        if "model" not in seen and os.path.exists(log) and os.path.getsize(log) > start_size:
            with open(log, "rb") as f:
                f.seek(start_size)
                if any(l.split(b" ")[0] in (b"POST", b"GET", b"HEAD", b"WS") for l in f.read().splitlines()):
                    seen["model"] = time.monotonic() - t0
        if p.poll() is not None and "model" in seen:
            break
        if p.poll() is not None and time.monotonic() - t0 > 0 and "model" not in seen:
            time.sleep(0.2)  # the log may trail the exit
            if os.path.getsize(log) == start_size:
                break
        time.sleep(0.002)
    if p.poll() is None:
        os.killpg(p.pid, 15)
        p.wait(10)
    th.join(5)
    return seen.get("fw"), seen.get("model")


def fmt(xs):
    return "p50=%.3fs min=%.3fs max=%.3fs" % (statistics.median(xs), min(xs), max(xs))


def main():
    runs, log = int(sys.argv[1]), sys.argv[2]
    cmd = sys.argv[sys.argv.index("--") + 1:]
    fws, models = [], []
    for _ in range(runs):
        fw, model = one(cmd, log)
        if fw is None or model is None:
            print("a run showed no %s" % ("firewall line" if fw is None else "model request"))
            return 1
        fws.append(fw)
        models.append(model)
    print("firewall %s; model %s (%d runs)" % (fmt(fws), fmt(models), runs))
    return 0


if __name__ == "__main__":
    sys.exit(main())
