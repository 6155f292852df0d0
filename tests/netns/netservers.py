#!/usr/bin/env python3
"""Test servers for the namespace tests: TCP echo and a DNS responder.

--tcp ADDR:PORT   a TCP server that answers each line with "echo:<line>"
--dns ADDR:PORT   a DNS server (UDP and TCP) answering every A query
--answer A.B.C.D  the address DNS answers with (default 192.0.2.99)
--forward A.B.C.D the DNS servers answer nothing themselves: they forward each
                  query to A.B.C.D:53 (UDP over UDP, TCP over TCP) and relay
                  the reply, as Docker's embedded resolver does
Runs until SIGTERM or --max-seconds, whichever comes first.
"""
import argparse
import signal
import socket
import socketserver
import struct
import sys
import threading


def split(spec):
    host, _, port = spec.rpartition(":")
    host = host.strip("[]")
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    # fe80::1%IFACE needs its scope resolved into the sockaddr
    return family, socket.getaddrinfo(host, int(port), family, 0, 0, socket.AI_NUMERICHOST)[0][4]


def dns_answer(query, answer):
    if len(query) < 12:
        return None
    qid, _flags, qd = struct.unpack("!HHH", query[:6])
    end = 12
    while end < len(query) and query[end] != 0:
        end += query[end] + 1
    question = query[12:end + 5]
    header = struct.pack("!HHHHHH", qid, 0x8180, 1, 1, 0, 0)
    rr = b"\xc0\x0c" + struct.pack("!HHIH", 1, 1, 60, 4) + socket.inet_aton(answer)
    return header + question + rr


def serve(server):
    threading.Thread(target=server.serve_forever, daemon=True).start()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tcp", action="append", default=[])
    ap.add_argument("--dns", action="append", default=[])
    ap.add_argument("--answer", default="192.0.2.99")
    ap.add_argument("--forward")
    ap.add_argument("--max-seconds", type=float, default=300)
    args = ap.parse_args()
    answer = args.answer

    def resolve(query, tcp=False):
        if not args.forward:
            return dns_answer(query, answer)
        try:
            if not tcp:
                with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as u:
                    u.settimeout(8)  # below probe.py's 10 s, wide for a loaded machine
                    u.sendto(query, (args.forward, 53))
                    return u.recv(4096)
            with socket.create_connection((args.forward, 53), 8) as t:
                t.sendall(struct.pack("!H", len(query)) + query)
                data = b""
                while len(data) < 2 or len(data) < 2 + struct.unpack("!H", data[:2])[0]:
                    chunk = t.recv(4096)
                    if not chunk:
                        return None
                    data += chunk
                return data[2:]
        except OSError:
            return None  # the upstream refused or did not answer: neither do we

    class Echo(socketserver.StreamRequestHandler):
        def handle(self):
            for line in self.rfile:
                self.wfile.write(b"echo:" + line)

    class DnsUdp(socketserver.BaseRequestHandler):
        def handle(self):
            data, sock = self.request
            reply = resolve(data)
            if reply:
                sock.sendto(reply, self.client_address)

    class DnsTcp(socketserver.StreamRequestHandler):
        def handle(self):
            n = self.rfile.read(2)
            if len(n) == 2:
                reply = resolve(self.rfile.read(struct.unpack("!H", n)[0]), tcp=True)
                if reply:
                    self.wfile.write(struct.pack("!H", len(reply)) + reply)

    def server(kind, handler, spec):
        family, addr = split(spec)
        cls = type("S", (socketserver.ThreadingMixIn, kind),
                   {"address_family": family, "allow_reuse_address": True, "daemon_threads": True})
        return cls(addr, handler)

    for spec in args.tcp:
        serve(server(socketserver.TCPServer, Echo, spec))
    for spec in args.dns:
        serve(server(socketserver.UDPServer, DnsUdp, spec))
        serve(server(socketserver.TCPServer, DnsTcp, spec))
    done = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: done.set())
    done.wait(args.max_seconds)
    sys.exit(0)


if __name__ == "__main__":
    main()
