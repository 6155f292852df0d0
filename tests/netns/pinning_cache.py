#!/usr/bin/env python3
"""The pinning tests' caching client: a stub cache in front of the pinning
resolver, as nscd or a local cache sits in front of a CLI.  UDP on
127.0.0.1:PORT; a question it has answered within the answer's TTL is
answered from its cache (the resolver never sees it, so nothing is
re-pinned); anything else is forwarded to 127.0.0.1:53.  It proves that an
element outlives every answer a cache may hand out: the resolver's TTL is at
most T - margin.

usage: pinning_cache.py PORT [EXTRA]
EXTRA seconds are added to every TTL: a broken cache that keeps answers too
long, the test's control (it must see refused connects).
"""
import socket
import struct
import sys
import time

PORT = int(sys.argv[1])
EXTRA = float(sys.argv[2]) if len(sys.argv) > 2 else 0.0
cache = {}  # question bytes -> (response without its id, expiry)


def question_end(msg):
    off = 12
    while msg[off]:
        off += 1 + msg[off]
    return off + 5


def min_ttl(msg, off):
    an = struct.unpack("!H", msg[6:8])[0]
    ttl = None
    for _ in range(an):
        while msg[off] and not msg[off] & 0xC0:
            off += 1 + msg[off]
        off += 2 if msg[off] & 0xC0 else 1
        rtype, _, rttl, rdlen = struct.unpack("!HHIH", msg[off:off + 10])
        off += 10 + rdlen
        if rtype == 1:
            ttl = rttl if ttl is None else min(ttl, rttl)
    return ttl


srv = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
srv.bind(("127.0.0.1", PORT))
while True:
    q, peer = srv.recvfrom(4096)
    if len(q) < 17:
        continue
    key = q[12:question_end(q)]
    hit = cache.get(key)
    if hit and hit[1] > time.monotonic():
        srv.sendto(q[:2] + hit[0], peer)
        continue
    up = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    up.settimeout(3)
    try:
        up.sendto(q, ("127.0.0.1", 53))
        r = up.recv(4096)
    except OSError:
        continue
    finally:
        up.close()
    srv.sendto(r, peer)
    ttl = min_ttl(r, question_end(r)) if (r[3] & 15) == 0 else None
    if ttl:
        cache[key] = (r[2:], time.monotonic() + ttl + EXTRA)
