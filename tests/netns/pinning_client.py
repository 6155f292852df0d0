#!/usr/bin/env python3
"""The pinning tests' client, run inside the sandbox namespace as an
unprivileged uid.  A DNS client of its own (no cache, the real wire format,
UDP or TCP) against the resolver on 127.0.0.1:53, and TCP connects to what
it answers.

  lookup NAME [TYPE] [tcp]   prints "RCODE addr,addr" (TIMEOUT when nothing came)
  direct SERVER NAME [SPORT] the same, straight to SERVER (must fail at once),
                             from source port SPORT when given
  race N NAME PORT           N times: look up (UDP and TCP in turn), connect to
                             every address; prints the counts
  race-cache N NAME PORT CACHEPORT [SECONDS]  the same through the stub cache
                             of pinning_cache.py on 127.0.0.1:CACHEPORT (UDP), going
                             on past N until SECONDS have passed (a fast machine
                             ends N lookups before anything could expire)
  race-glibc N NAME PORT     the same through glibc's getaddrinfo (resolv.conf
                             naming 127.0.0.1)
  exfil N ALLOWED            N queries for random subdomains of ALLOWED and of
                             other names, and TXT/NULL/ANY for ALLOWED; prints
                             the rcodes seen and fails if any got an address
  established NAME PORT FLAG connect, echo, wait for FLAG (a file) to appear,
                             echo again on the same connection
"""
import os
import random
import socket
import string
import struct
import sys
import time

RCODES = {0: "NOERROR", 1: "FORMERR", 2: "SERVFAIL", 3: "NXDOMAIN", 4: "NOTIMP", 5: "REFUSED"}


def query(name, qtype=1, tcp=False, server="127.0.0.1", timeout=3.0, sport=0, port=53):
    qid = random.randrange(65536)
    q = struct.pack("!HHHHHH", qid, 0x0100, 1, 0, 0, 0)
    for label in name.split("."):
        q += bytes([len(label)]) + label.encode()
    q += b"\0" + struct.pack("!HH", qtype, 1)
    try:
        if tcp:
            s = socket.create_connection((server, 53), timeout=timeout)
            s.sendall(struct.pack("!H", len(q)) + q)
            n = struct.unpack("!H", s.recv(2, socket.MSG_WAITALL))[0]
            msg = s.recv(n, socket.MSG_WAITALL)
            s.close()
        else:
            s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
            s.settimeout(timeout)
            if sport:
                s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
                s.bind(("0.0.0.0", sport))
            s.sendto(q, (server, port))
            msg = s.recv(4096)
            s.close()
    except socket.timeout:
        return "TIMEOUT", [], 0
    except OSError as e:
        return "ERROR:" + (os.strerror(e.errno) if e.errno else str(e)), [], 0
    if len(msg) < 12 or struct.unpack("!H", msg[:2])[0] != qid:
        return "BADID", [], 0
    rcode = RCODES.get(msg[3] & 15, str(msg[3] & 15))
    an = struct.unpack("!H", msg[6:8])[0]
    off = 12
    # skip the question
    while msg[off]:
        off += 1 + msg[off]
    off += 5
    addrs, ttl = [], None
    for _ in range(an):
        while msg[off] and not msg[off] & 0xC0:
            off += 1 + msg[off]
        off += 2 if msg[off] & 0xC0 else 1
        rtype, _, rttl, rdlen = struct.unpack("!HHIH", msg[off:off + 10])
        off += 10
        if rtype == 1:
            addrs.append(socket.inet_ntoa(msg[off:off + 4]))
            ttl = rttl if ttl is None else min(ttl, rttl)
        off += rdlen
    return rcode, addrs, ttl


def connect(addr, port):
    try:
        s = socket.create_connection((addr, port), timeout=3)
        s.close()
        return "ok"
    except ConnectionRefusedError:
        return "refused"
    except socket.timeout:
        return "timeout"
    except OSError as e:
        return "error:" + str(e.errno)


def race(n, name, port, cache_port=0, min_seconds=0.0):
    counts = {"connects": 0, "ok": 0, "refused": 0, "timeout": 0, "other": 0, "lookup_failed": 0}
    start = time.monotonic()
    i = 0
    while i < n or time.monotonic() - start < min_seconds:
        i += 1
        if cache_port:
            rcode, addrs, _ = query(name, port=cache_port)
        else:
            rcode, addrs, _ = query(name, tcp=bool((i - 1) % 2))
        if rcode != "NOERROR" or not addrs:
            counts["lookup_failed"] += 1
            continue
        for addr in addrs:
            counts["connects"] += 1
            r = connect(addr, port)
            counts[r if r in counts else "other"] += 1
    counts["lookups"] = i
    counts["seconds"] = round(time.monotonic() - start, 2)
    print(" ".join("%s=%s" % kv for kv in counts.items()))
    return 0 if counts["connects"] == counts["ok"] and counts["lookup_failed"] == 0 else 1


def race_glibc(n, name, port):
    """The same through glibc's getaddrinfo (A and AAAA in parallel, the
    resolver answering AAAA with NODATA itself), as a CLI resolves."""
    counts = {"connects": 0, "ok": 0, "refused": 0, "timeout": 0, "other": 0, "lookup_failed": 0}
    start = time.monotonic()
    for _ in range(n):
        try:
            infos = socket.getaddrinfo(name, port, type=socket.SOCK_STREAM)
        except socket.gaierror:
            counts["lookup_failed"] += 1
            continue
        for addr in sorted({i[4][0] for i in infos if i[0] == socket.AF_INET}):
            counts["connects"] += 1
            r = connect(addr, port)
            counts[r if r in counts else "other"] += 1
    counts["seconds"] = round(time.monotonic() - start, 2)
    print(" ".join("%s=%s" % kv for kv in counts.items()))
    return 0 if counts["connects"] == counts["ok"] and counts["lookup_failed"] == 0 else 1


def exfil(n, allowed):
    seen, leaked = {}, 0
    rnd = random.Random(33)
    for i in range(n):
        label = "".join(rnd.choice(string.ascii_lowercase + string.digits) for _ in range(20))
        name = label + "." + (allowed if i % 2 else "exfil-%d.example" % i)
        rcode, addrs, _ = query(name, qtype=rnd.choice([1, 16, 10, 255]), tcp=bool(i % 3 == 0))
        seen[rcode] = seen.get(rcode, 0) + 1
        leaked += bool(addrs)
    for qtype in (16, 10, 255, 99, 15):
        rcode, addrs, _ = query(allowed, qtype=qtype)
        seen["%d:%s" % (qtype, rcode)] = seen.get("%d:%s" % (qtype, rcode), 0) + 1
        leaked += bool(addrs)
    print(" ".join("%s=%s" % kv for kv in sorted(seen.items())), "answered=%d" % leaked)
    return 1 if leaked else 0


def established(name, port, flag):
    rcode, addrs, _ = query(name)
    if not addrs:
        print("lookup", rcode)
        return 1
    s = socket.create_connection((addrs[0], port), timeout=3)
    s.sendall(b"one\n")
    first = s.recv(16)
    for _ in range(200):
        if os.path.exists(flag):
            break
        time.sleep(0.05)
    s.sendall(b"two\n")
    second = s.recv(16)
    print("first=%s second=%s" % (first.strip().decode(), second.strip().decode()))
    return 0 if first.strip() == b"one" and second.strip() == b"two" else 1


def main():
    cmd, args = sys.argv[1], sys.argv[2:]
    if cmd == "lookup":
        rcode, addrs, ttl = query(args[0], int(args[1]) if len(args) > 1 else 1, len(args) > 2 and args[2] == "tcp")
        print(rcode, ",".join(addrs), "" if ttl is None else "ttl=%d" % ttl)
        return 0
    if cmd == "direct":
        start = time.monotonic()
        rcode, addrs, _ = query(args[1], server=args[0], timeout=3.0, sport=int(args[2]) if len(args) > 2 else 0)
        print(rcode, ",".join(addrs), "ms=%d" % ((time.monotonic() - start) * 1000))
        return 0
    if cmd == "race":
        return race(int(args[0]), args[1], int(args[2]))
    if cmd == "race-cache":
        return race(int(args[0]), args[1], int(args[2]), int(args[3]), float(args[4]) if len(args) > 4 else 0.0)
    if cmd == "race-glibc":
        return race_glibc(int(args[0]), args[1], int(args[2]))
    if cmd == "exfil":
        return exfil(int(args[0]), args[1])
    if cmd == "established":
        return established(args[0], int(args[1]), args[2])
    return 2


sys.exit(main())
