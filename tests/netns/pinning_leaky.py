#!/usr/bin/env python3
"""A leaky stand-in for the pinning resolver, for --verify-only's test: it
listens on 127.0.0.1:53 (UDP) and relays a query for the one allowed name to
the real resolver (so that the name resolves and is pinned), but answers
every other name itself with an address, as a forwarder that passes
subdomains would.  --verify-only must see the subdomain's answer and stop.

usage: pinning_leaky.py ALLOWED_NAME REAL_RESOLVER_PORT
"""
import socket
import struct
import sys

ALLOWED, REAL = sys.argv[1].lower(), int(sys.argv[2])


def qname(msg):
    off, labels = 12, []
    while msg[off]:
        labels.append(msg[off + 1:off + 1 + msg[off]].decode().lower())
        off += 1 + msg[off]
    return ".".join(labels), off + 5


def leaked_answer(msg, qend):
    # NOERROR, one A record 192.0.2.100 owned by the question's name
    hdr = msg[:2] + struct.pack("!HHHHH", 0x8180, 1, 1, 0, 0)
    rr = b"\xc0\x0c" + struct.pack("!HHIH", 1, 1, 1, 4) + socket.inet_aton("192.0.2.100")
    return hdr + msg[12:qend] + rr


s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind(("127.0.0.1", 53))
for _ in range(1000):   # bounded: the test sends a handful
    msg, peer = s.recvfrom(1500)
    name, qend = qname(msg)
    if name == ALLOWED:
        r = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        r.settimeout(3)
        r.sendto(msg, ("127.0.0.1", REAL))
        try:
            s.sendto(r.recv(1500), peer)
        except socket.timeout:
            pass
        r.close()
    else:
        s.sendto(leaked_answer(msg, qend), peer)
