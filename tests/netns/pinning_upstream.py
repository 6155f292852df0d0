#!/usr/bin/env python3
"""The pinning tests' upstream DNS server (UDP and TCP), speaking the real
wire format.  It logs every query it receives, one line "TYPE NAME", to the
log file: the exfiltration tests read it to prove what reached it.

  rotate.test     A: the next address of the pool each time, TTL 1
  pair.test       A: two addresses of the pool, TTL 1
  cname.test      CNAME edge.cdn.test, whose A is the next pool address
  cname-meta.test CNAME meta.test, A 169.254.169.254
  meta.test       A 169.254.169.254
  loopback.test   A 127.0.0.1
  private.test    A 10.0.0.1 (a public name)
  many.test       33 A records (192.0.2.200 to .232)
  trunc.test      the TC bit set, one A record
  cut.test        an answer cut off inside its record
  cloop.test      an answer whose owner name is a compression loop
  anything else   NXDOMAIN

usage: pinning_upstream.py ADDR LOG POOL_FIRST POOL_COUNT
"""
import socket
import struct
import sys
import threading

ADDR, LOG = sys.argv[1], sys.argv[2]
POOL_FIRST = struct.unpack("!I", socket.inet_aton(sys.argv[3]))[0]
POOL_COUNT = int(sys.argv[4])
state = {"next": 0}
lock = threading.Lock()
logf = open(LOG, "a", buffering=1)


def name_wire(name):
    out = b""
    for label in name.split("."):
        out += bytes([len(label)]) + label.encode()
    return out + b"\0"


def read_qname(msg, off):
    labels = []
    while True:
        n = msg[off]
        if n == 0:
            return ".".join(labels), off + 1
        if n & 0xC0:
            raise ValueError("pointer in question")
        labels.append(msg[off + 1:off + 1 + n].decode("latin-1"))
        off += 1 + n


def rr(owner, rtype, ttl, data):
    return name_wire(owner) + struct.pack("!HHIH", rtype, 1, ttl, len(data)) + data


def a(owner, addr, ttl=1):
    return rr(owner, 1, ttl, socket.inet_aton(addr) if isinstance(addr, str) else struct.pack("!I", addr))


def pool_next():
    with lock:
        i = state["next"]
        state["next"] = i + 1
    return POOL_FIRST + i % POOL_COUNT


def answer(msg):
    qid, flags, qd = struct.unpack("!HHH", msg[:6])
    qname, off = read_qname(msg, 12)
    qtype = struct.unpack("!H", msg[off:off + 2])[0]
    question = msg[12:off + 4]
    logf.write("%d %s\n" % (qtype, qname.lower()))
    name = qname.lower()
    rcode, tc, records = 0, 0, []
    if qtype != 1:
        rcode = 0
    elif name == "rotate.test":
        records = [a(qname, pool_next())]
    elif name == "pair.test":
        records = [a(qname, pool_next()), a(qname, pool_next())]
    elif name == "cname.test":
        records = [rr(qname, 5, 1, name_wire("edge.cdn.test")), a("edge.cdn.test", pool_next())]
    elif name == "cname-meta.test":
        records = [rr(qname, 5, 60, name_wire("meta.test")), a("meta.test", "169.254.169.254")]
    elif name == "meta.test":
        records = [a(qname, "169.254.169.254")]
    elif name == "loopback.test":
        records = [a(qname, "127.0.0.1")]
    elif name == "private.test":
        records = [a(qname, "10.0.0.1")]
    elif name == "many.test":
        records = [a(qname, "192.0.2.%d" % (200 + i)) for i in range(33)]
    elif name == "trunc.test":
        tc, records = 1, [a(qname, pool_next())]
    elif name == "cut.test":
        records = [a(qname, pool_next())[:-2]]
    elif name == "cloop.test":
        # the record's owner is a pointer to itself
        here = 12 + len(question)
        records = [struct.pack("!H", 0xC000 | here) + struct.pack("!HHIH", 1, 1, 1, 4) + socket.inet_aton("192.0.2.99")]
    else:
        rcode = 3
    hdr = struct.pack("!HHHHHH", qid, 0x8180 | (tc << 9) | rcode | (flags & 0x0100), 1, len(records), 0, 0)
    return hdr + question + b"".join(records)


def serve_udp():
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.bind((ADDR, 53))
    while True:
        msg, peer = s.recvfrom(4096)
        try:
            s.sendto(answer(msg), peer)
        except (ValueError, IndexError, struct.error):
            pass


def serve_tcp_conn(c):
    with c:
        try:
            n = struct.unpack("!H", c.recv(2, socket.MSG_WAITALL))[0]
            out = answer(c.recv(n, socket.MSG_WAITALL))
            c.sendall(struct.pack("!H", len(out)) + out)
        except (ValueError, IndexError, struct.error, OSError):
            pass


def serve_tcp():
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind((ADDR, 53))
    s.listen(64)
    while True:
        c, _ = s.accept()
        threading.Thread(target=serve_tcp_conn, args=(c,), daemon=True).start()


threading.Thread(target=serve_tcp, daemon=True).start()
serve_udp()
