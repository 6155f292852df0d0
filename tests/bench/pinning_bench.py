#!/usr/bin/env python3
"""The pinning resolver's benchmark driver, run as root in the sandbox
namespace of pinning.sh (docs/performance.md).

  usage: pinning_bench.py RESOLVER_CMD... -- N UPSTREAM

1. time to the first answer: from starting the resolver to its first
   NOERROR for rotate.test (queried every 0.5 ms);
2. added latency per lookup: N UDP A queries for rotate.test straight to
   the upstream, then N through the resolver (each answer a new address, so
   each one is pinned: a netlink batch and its ACK), interleaved in rounds
   of 100 so both see the same machine; p50 and p99 of each, and their
   difference;
3. the resolver's RSS (VmRSS and VmHWM) after the run.
"""
import os
import random
import socket
import struct
import subprocess
import sys
import time

sep = sys.argv.index("--")
cmd, (n, upstream) = sys.argv[1:sep], sys.argv[sep + 1:]
n = int(n)


def query(server, timeout=2.0):
    qid = random.randrange(65536)
    q = struct.pack("!HHHHHH", qid, 0x0100, 1, 0, 0, 0) + b"\x06rotate\x04test\x00\x00\x01\x00\x01"
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.settimeout(timeout)
    t0 = time.perf_counter_ns()
    try:
        s.sendto(q, (server, 53))
        msg = s.recv(4096)
    except OSError:
        return None, None
    finally:
        s.close()
    dt = time.perf_counter_ns() - t0
    return (msg[3] & 15) if len(msg) > 12 else None, dt


def pct(v, p):
    v = sorted(v)
    return v[min(len(v) - 1, int(len(v) * p / 100))] / 1e6


start = time.perf_counter_ns()
proc = subprocess.Popen(cmd, stderr=subprocess.DEVNULL)
first = None
for _ in range(4000):
    rcode, _ = query("127.0.0.1", timeout=0.05)
    if rcode == 0:
        first = (time.perf_counter_ns() - start) / 1e6
        break
    time.sleep(0.0005)
if first is None:
    proc.kill()
    print("the resolver never answered")
    sys.exit(1)

direct, pinned = [], []
for r in range(0, n, 100):
    for _ in range(min(100, n - r)):
        rc, dt = query(upstream)
        if rc != 0:
            print("a direct query failed")
            sys.exit(1)
        direct.append(dt)
    for _ in range(min(100, n - r)):
        rc, dt = query("127.0.0.1")
        if rc != 0:
            print("a query through the resolver failed")
            sys.exit(1)
        pinned.append(dt)
status = open("/proc/%d/status" % proc.pid).read()
rss = {k: v.split()[0] for k, v in (l.split(":", 1) for l in status.splitlines()) if k in ("VmRSS", "VmHWM", "RssAnon", "RssFile")}
proc.terminate()
proc.wait()
print("time to first answer: %.1f ms (resolver start to the first NOERROR)" % first)
print("direct to the upstream:  p50 %.3f ms  p99 %.3f ms  (%d queries)" % (pct(direct, 50), pct(direct, 99), n))
print("through the resolver:    p50 %.3f ms  p99 %.3f ms  (each answer pinned)" % (pct(pinned, 50), pct(pinned, 99)))
print("added per lookup:        p50 %.3f ms  p99 %.3f ms  (goal: p50 <= 0.3 ms)" % (
    pct(pinned, 50) - pct(direct, 50), pct(pinned, 99) - pct(direct, 99)))
print("resolver RSS: %s KiB (anonymous %s, file-backed %s), peak %s KiB (goal: <= 2048 KiB)" % (
    rss.get("VmRSS"), rss.get("RssAnon"), rss.get("RssFile"), rss.get("VmHWM")))
