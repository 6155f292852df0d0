#!/usr/bin/env python3
"""Egress probe, run as the sandboxed command: one line per check.

Checks: tcp:ADDR:PORT (connect, send a line, expect the echo),
mptcp:ADDR:PORT (the same over an MPTCP socket, IPPROTO_MPTCP 262; on the
wire it is TCP with MPTCP options, and falls back to plain TCP against a
plain server), ADDR may be fe80::1%IFACE,
dns-udp:ADDR:PORT, dns-tcp:ADDR:PORT (an A query; any answer counts),
icmp:ADDR (an echo request over an unprivileged ICMP socket).
Output: "<check> <result> <ms>" where result is ok, refused, unreachable,
timeout, noanswer or error-<errno name>.  "timeout" means the packet was
silently dropped; the firewall rejects, so a blocked check must not say it.
"""
import errno
import socket
import struct
import sys
import time

# A refused check answers at once (a reset or an ICMP error) and an allowed
# one within milliseconds; only a silent drop waits this long.  Wide, so
# that a loaded machine's slow answer is not taken for a drop.
TIMEOUT = 10.0


def split(spec):
    """ADDR:PORT or [ADDR6]:PORT (fe80::1%IFACE too) -> family, sockaddr."""
    host, _, port = spec.rpartition(":")
    host = host.strip("[]")
    fam = socket.AF_INET6 if ":" in host else socket.AF_INET
    return fam, socket.getaddrinfo(host, int(port), fam, 0, 0, socket.AI_NUMERICHOST)[0][4]


def classify(e):
    if isinstance(e, socket.timeout):
        return "timeout"
    if e.errno == errno.ECONNREFUSED:
        return "refused"
    if e.errno in (errno.EHOSTUNREACH, errno.ENETUNREACH, errno.EACCES, errno.EPERM):
        return "unreachable"
    return "error-" + errno.errorcode.get(e.errno, str(e.errno))


IPPROTO_MPTCP = 262


def tcp(spec, proto=0):
    fam, addr = split(spec)
    with socket.socket(fam, socket.SOCK_STREAM, proto) as s:
        s.settimeout(TIMEOUT)
        s.connect(addr)
        s.sendall(b"ping\n")
        data = s.recv(64)
        return "ok" if data == b"echo:ping\n" else "baddata"


def query():
    return struct.pack("!HHHHHH", 0x1234, 0x0100, 1, 0, 0, 0) + b"\x04test\x00" + struct.pack("!HH", 1, 1)


def dns_udp(spec):
    fam, addr = split(spec)
    with socket.socket(fam, socket.SOCK_DGRAM) as s:
        s.settimeout(TIMEOUT)
        s.connect(addr)
        s.send(query())
        return "ok" if s.recv(512)[:2] == b"\x12\x34" else "baddata"


def dns_tcp(spec):
    fam, addr = split(spec)
    with socket.socket(fam, socket.SOCK_STREAM) as s:
        s.settimeout(TIMEOUT)
        s.connect(addr)
        q = query()
        s.sendall(struct.pack("!H", len(q)) + q)
        return "ok" if s.recv(512)[2:4] == b"\x12\x34" else "baddata"


def icmp(host):
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM, socket.IPPROTO_ICMP) as s:
        s.settimeout(TIMEOUT)
        s.connect((host, 0))
        s.send(struct.pack("!BBHHH", 8, 0, 0, 0, 1) + b"probe")
        return "ok" if s.recv(512)[0] == 0 else "baddata"


def main():
    kinds = {"tcp": tcp, "mptcp": lambda t: tcp(t, IPPROTO_MPTCP), "dns-udp": dns_udp, "dns-tcp": dns_tcp, "icmp": icmp}
    for check in sys.argv[1:]:
        kind, _, target = check.partition(":")
        start = time.monotonic()
        try:
            result = kinds[kind](target)
        except socket.timeout as e:
            result = classify(e)
        except OSError as e:
            result = "noanswer" if kind.startswith("dns") and e.errno is None else classify(e)
        ms = int((time.monotonic() - start) * 1000)
        print(f"{check} {result} {ms}", flush=True)


if __name__ == "__main__":
    main()
