#!/usr/bin/env python3
"""A tiny authoritative DNS responder for the profile tests (stdlib only).

--listen ADDR:PORT      serve UDP and TCP there (repeatable)
--name NAME=A[,A...]    answer A queries for NAME with these IPv4 addresses
--max-seconds N         exit after N seconds (default 120)
--delay-ms N            answer each query N ms late, as a distant resolver
                        does (queries are served concurrently)
--ignore-first          leave the first UDP query for each name unanswered,
                        as a lost datagram: whoever asked first can never
                        get an answer in time, however loaded the machine

Known names get their A records (and an empty NOERROR answer for other
types); unknown names get NXDOMAIN.  Every query is logged to stderr as
"query NAME TYPE", so a test can tell whether a query arrived at all, and
then as "client NAME TYPE PORT" with the asking socket's port, so a test can
tell which queries came from one socket (an ignored one as "ignored NAME
TYPE PORT" too).  A UDP query is logged by the thread that receives it,
before it is answered: the log is in arrival order, and once a client has
its answer every query it sent before is in the log, whatever the load.
"""
import argparse
import signal
import socket
import socketserver
import struct
import sys
import threading
import time

NAMES = {}
DELAY = 0.0
IGNORE_FIRST = False
SEEN = set()       # names asked over UDP so far (the receiving thread's)


def parse_question(msg):
    """(qid, flags, qname, qtype, end of question) or None."""
    if len(msg) < 12:
        return None
    qid, flags, qdcount = struct.unpack("!HHH", msg[:6])
    if qdcount != 1:
        return None
    labels, i = [], 12
    while i < len(msg) and msg[i] != 0:
        n = msg[i]
        if n > 63 or i + 1 + n > len(msg):
            return None
        labels.append(msg[i + 1:i + 1 + n].decode("ascii", "replace").lower())
        i += 1 + n
    if i + 5 > len(msg):
        return None
    qtype = struct.unpack("!H", msg[i + 1:i + 3])[0]
    return qid, flags, ".".join(labels), qtype, i + 5


def log_query(msg, port):
    """Logs the query; False when it is to be ignored (--ignore-first)."""
    q = parse_question(msg)
    if not q:
        return True
    name, qtype = q[2], q[3]
    print(f"query {name} {qtype}\nclient {name} {qtype} {port}", file=sys.stderr, flush=True)
    if IGNORE_FIRST and name not in SEEN:
        SEEN.add(name)
        print(f"ignored {name} {qtype} {port}", file=sys.stderr, flush=True)
        return False
    SEEN.add(name)
    return True


def answer(msg):
    q = parse_question(msg)
    if not q:
        return None
    qid, flags, name, qtype, end = q
    addrs = NAMES.get(name)
    rcode = 0 if addrs is not None else 3  # NXDOMAIN
    records = addrs if (addrs and qtype == 1) else []
    rd = flags & 0x0100
    header = struct.pack("!HHHHHH", qid, 0x8400 | rd | 0x0080 | rcode, 1, len(records), 0, 0)
    body = msg[12:end]
    for a in records:
        body += b"\xc0\x0c" + struct.pack("!HHIH", 1, 1, 5, 4) + socket.inet_aton(a)
    return header + body


class Udp(socketserver.BaseRequestHandler):
    def handle(self):  # logged already, by the receiving thread
        data, sock = self.request
        if DELAY:
            time.sleep(DELAY)
        reply = answer(data)
        if reply:
            sock.sendto(reply, self.client_address)


def udp_verify(server, request, client_address):
    """Runs in the receiving thread, before the handler's thread starts."""
    return log_query(request[0], client_address[1])


class Tcp(socketserver.StreamRequestHandler):
    def handle(self):
        n = self.rfile.read(2)
        if len(n) == 2:
            msg = self.rfile.read(struct.unpack("!H", n)[0])
            log_query(msg, self.client_address[1])
            reply = answer(msg)
            if reply:
                self.wfile.write(struct.pack("!H", len(reply)) + reply)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--listen", action="append", required=True)
    ap.add_argument("--name", action="append", default=[])
    ap.add_argument("--max-seconds", type=float, default=120)
    ap.add_argument("--delay-ms", type=float, default=0)
    ap.add_argument("--ignore-first", action="store_true")
    args = ap.parse_args()
    global DELAY, IGNORE_FIRST
    DELAY = args.delay_ms / 1000
    IGNORE_FIRST = args.ignore_first
    for spec in args.name:
        name, _, addrs = spec.partition("=")
        NAMES[name.lower().rstrip(".")] = [a for a in addrs.split(",") if a]
    for spec in args.listen:
        host, _, port = spec.rpartition(":")
        for kind, handler in ((socketserver.UDPServer, Udp), (socketserver.TCPServer, Tcp)):
            attrs = {"allow_reuse_address": True, "daemon_threads": True}
            if handler is Udp:
                attrs["verify_request"] = udp_verify
            cls = type("S", (socketserver.ThreadingMixIn, kind), attrs)
            srv = cls((host, int(port)), handler)
            threading.Thread(target=srv.serve_forever, daemon=True).start()
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    print("ready", file=sys.stderr, flush=True)
    threading.Event().wait(args.max_seconds)


if __name__ == "__main__":
    main()
