#!/usr/bin/env python3
"""The key broker's benchmark client (tests/bench/broker.sh runs it in a container).

  broker_measure.py latency DIRECT BROKER TOKEN N ROUNDS
                                             DIRECT and BROKER are HOST:PORT; for a tiny and a
                                             claude-sized Messages request, ROUNDS interleaved
                                             rounds of N requests on one keep-alive connection
                                             per path; prints p50 and p99 per path and the added
                                             p50/p99 (broker - direct), then the time to the
                                             first SSE byte, direct and through the broker
"""
import http.client
import json
import socket
import sys
import time


def conn(hostport):
    """A keep-alive connection with TCP_NODELAY: http.client writes the headers and the body
    separately, and Nagle would hold the body for the server's delayed ACK (40 ms)."""
    h, p = hostport.rsplit(":", 1)
    c = http.client.HTTPConnection(h, int(p), timeout=30)
    c.connect()
    c.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    return c


def one(c, body, headers):
    t = time.perf_counter()
    c.request("POST", "/v1/messages", body=body, headers=headers)
    r = c.getresponse()
    r.read()
    if r.status != 200:
        raise SystemExit("status %d" % r.status)
    return time.perf_counter() - t


def pct(xs, p):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(p / 100.0 * (len(xs) - 1))))]


def ttfb(hostport, headers, probe, release):
    c = conn(hostport)
    body = json.dumps({"model": "claude-test-1", "max_tokens": 16, "stream": True,
                       "messages": [{"role": "user", "content": "hi"}]})
    h = dict(headers, **{"x-probe": probe})
    t = time.perf_counter()
    c.request("POST", "/v1/messages", body=body, headers=h)
    r = c.getresponse()
    r.read1(1)
    first = time.perf_counter() - t
    rc = conn(release)
    rc.request("GET", "/release/" + probe)
    rc.getresponse().read()
    r.read()
    return first


def latency(direct, broker, token, n, rounds):
    n, rounds = int(n), int(rounds)
    base = {"content-type": "application/json", "anthropic-version": "2023-06-01"}
    tok = dict(base, **{"x-api-key": token})
    bodies = {
        "tiny": json.dumps({"model": "claude-test-1", "max_tokens": 16,
                            "messages": [{"role": "user", "content": "hi"}]}),
        # about what Claude Code sends on a first turn: a long system prompt and tool schemas
        "claude-sized": json.dumps({"model": "claude-test-1", "max_tokens": 32000,
                                    "system": [{"type": "text", "text": "You are a coding agent. " * 2500}],
                                    "tools": [{"name": "tool%d" % i, "description": "d " * 200,
                                               "input_schema": {"type": "object", "properties": {}}}
                                              for i in range(20)],
                                    "messages": [{"role": "user", "content": "hello " * 2000}]}),
    }
    for name, body in bodies.items():
        cd, cb = conn(direct), conn(broker)
        for _ in range(5):  # warm-up: connections, upstream keep-alive
            one(cd, body, base)
            one(cb, body, tok)
        d, b = [], []
        for _ in range(rounds):
            d += [one(cd, body, base) for _ in range(n)]
            b += [one(cb, body, tok) for _ in range(n)]
        dp50, dp99, bp50, bp99 = pct(d, 50), pct(d, 99), pct(b, 50), pct(b, 99)
        print("%-13s %6d B  direct p50 %.3f ms p99 %.3f ms | broker p50 %.3f ms p99 %.3f ms | added p50 %.3f ms p99 %.3f ms"
              % (name, len(body), dp50 * 1e3, dp99 * 1e3, bp50 * 1e3, bp99 * 1e3,
                 (bp50 - dp50) * 1e3, (bp99 - dp99) * 1e3))
    release = direct
    fd = sorted(ttfb(direct, base, "td%d" % i, release) for i in range(20))
    fb = sorted(ttfb(broker, tok, "tb%d" % i, release) for i in range(20))
    print("first SSE byte  direct p50 %.3f ms | broker p50 %.3f ms | added %.3f ms"
          % (pct(fd, 50) * 1e3, pct(fb, 50) * 1e3, (pct(fb, 50) - pct(fd, 50)) * 1e3))


if __name__ == "__main__":
    latency(*sys.argv[2:7])
