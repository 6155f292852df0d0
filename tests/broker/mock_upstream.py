#!/usr/bin/env python3
"""Mock model API for the key broker's tests (Python 3 standard library only).

Speaks the wire formats the broker passes on:
  Anthropic Messages   POST /v1/messages (JSON, or SSE with "stream": true),
                       POST /v1/messages/count_tokens, GET /v1/models
  OpenAI               POST /v1/chat/completions (JSON or SSE), POST /v1/responses, GET /v1/models
  Gemini API           POST /v1beta/models/M:generateContent, :streamGenerateContent?alt=sse,
                       :countTokens, GET /v1beta/models
Any other path answers 200 {"reached":"upstream"}: a probe that gets the broker's own 404
proves the broker stopped it, and the log proves it never came here.

Every request is logged on stdout as one JSON line: method, path (with query), headers,
the body's SHA-256 and length, and the SNI name of a TLS connection.

Streaming without timing: a streamed answer sends its first event, then waits (10 s at most, then RELEASED-NO)
until GET /release/ID arrives on the mock directly (ID: the request's x-probe header); the
last event says "released" when that happened. A client that sees the first event before the
end (it can only send /release after reading it) proves the stream was not buffered.

--tls CERT KEY serves HTTPS (the SNI name is logged).
"""

import argparse
import hashlib
import json
import os
import signal
import ssl
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

RELEASES = {}
LOCK = threading.Lock()
SNI = threading.local()


def release_event(probe):
    with LOCK:
        return RELEASES.setdefault(probe, threading.Event())


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "mock-upstream"
    # headers and body go out in separate writes: without TCP_NODELAY the second waits for
    # the peer's delayed ACK (40 ms), which would swamp every figure of the benchmark
    disable_nagle_algorithm = True

    def log_message(self, *args):
        pass

    def send_json(self, status, obj):
        data = (json.dumps(obj) + "\n").encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log(self, body):
        line = {
            "method": self.command,
            "path": self.path,
            "headers": {k.lower(): v for k, v in self.headers.items()},
            "body_sha256": hashlib.sha256(body).hexdigest(),
            "body_len": len(body),
            "sni": getattr(self.connection, "cli_sandbox_sni", None),
        }
        sys.stdout.write(json.dumps(line) + "\n")
        sys.stdout.flush()

    def do_GET(self):
        self.handle_any(b"")

    def do_POST(self):
        n = int(self.headers.get("Content-Length") or 0)
        self.handle_any(self.rfile.read(n))

    def do_DELETE(self):
        self.handle_any(b"")

    def stream(self, probe, events):
        """events: a list of SSE data strings; the first goes out, then the release wait."""
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()

        def chunk(text):
            data = text.encode()
            self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
            self.wfile.flush()

        chunk(events[0])
        mark = "RELEASED-YES" if release_event(probe).wait(10) else "RELEASED-NO"
        for e in events[1:]:
            chunk(e.replace("@RELEASED@", mark))
        self.wfile.write(b"0\r\n\r\n")
        self.wfile.flush()

    def handle_any(self, body):
        self.log(body)
        path = self.path.split("?", 1)[0]
        probe = self.headers.get("x-probe", "none")
        if path.startswith("/release/"):
            release_event(path[len("/release/"):]).set()
            return self.send_json(200, {"released": True})
        try:
            req = json.loads(body) if body else {}
        except ValueError:
            req = {}
        model = req.get("model", "") if isinstance(req, dict) else ""
        stream = isinstance(req, dict) and req.get("stream") is True
        if path == "/v1/messages":
            if stream:
                start = {"type": "message_start", "message": {"id": "msg_1", "type": "message", "role": "assistant",
                         "model": model, "content": [], "stop_reason": None,
                         "usage": {"input_tokens": 1, "output_tokens": 0}}}
                events = ["event: message_start\ndata: %s\n\n" % json.dumps(start),
                          'event: content_block_start\ndata: {"type":"content_block_start","index":0,'
                          '"content_block":{"type":"text","text":""}}\n\n']
                events += ['event: content_block_delta\ndata: {"type":"content_block_delta","index":0,'
                           '"delta":{"type":"text_delta","text":"%s "}}\n\n' % w for w in ("hello", "from", "mock")]
                events += ['event: content_block_delta\ndata: {"type":"content_block_delta","index":0,'
                           '"delta":{"type":"text_delta","text":"@RELEASED@"}}\n\n',
                           'event: message_stop\ndata: {"type":"message_stop"}\n\n']
                return self.stream(probe, events)
            return self.send_json(200, {"id": "msg_1", "type": "message", "role": "assistant", "model": model,
                                        "content": [{"type": "text", "text": "hello from mock"}],
                                        "stop_reason": "end_turn", "stop_sequence": None,
                                        "usage": {"input_tokens": 1, "output_tokens": 3}})
        if path == "/v1/messages/count_tokens":
            return self.send_json(200, {"input_tokens": max(1, len(body) // 4)})
        if path == "/v1/chat/completions":
            if stream:
                delta = {"id": "c1", "object": "chat.completion.chunk", "model": model,
                         "choices": [{"index": 0, "delta": {"content": "hello"}, "finish_reason": None}]}
                return self.stream(probe, ["data: %s\n\n" % json.dumps(delta),
                                           'data: {"id":"c1","object":"chat.completion.chunk","choices":[{"index":0,'
                                           '"delta":{"content":"@RELEASED@"},"finish_reason":"stop"}]}\n\n'
                                           "data: [DONE]\n\n"])
            return self.send_json(200, {"id": "c1", "object": "chat.completion", "model": model,
                                        "choices": [{"index": 0, "finish_reason": "stop",
                                                     "message": {"role": "assistant", "content": "hello from mock"}}],
                                        "usage": {"prompt_tokens": 1, "completion_tokens": 3, "total_tokens": 4}})
        if path == "/v1/responses":
            return self.send_json(200, {"id": "resp_1", "object": "response", "status": "completed", "model": model,
                                        "output": [{"type": "message", "role": "assistant", "content": [
                                            {"type": "output_text", "text": "hello from mock"}]}]})
        if path in ("/v1/models", "/v1beta/models"):
            return self.send_json(200, {"data": [{"id": "m", "type": "model"}], "models": [{"name": "models/m"}]})
        if path.startswith("/v1beta/models/") and ":" in path:
            model = path[len("/v1beta/models/"):].split(":")[0]
            reply = {"candidates": [{"content": {"role": "model", "parts": [{"text": "hello from " + model}]},
                                     "finishReason": "STOP"}], "modelVersion": model}
            if path.endswith(":streamGenerateContent"):
                return self.stream(probe, ["data: %s\n\n" % json.dumps(reply),
                                           "data: %s\n\n" % json.dumps(reply).replace("hello from", "@RELEASED@")])
            if path.endswith(":countTokens"):
                return self.send_json(200, {"totalTokens": 3})
            return self.send_json(200, reply)
        return self.send_json(200, {"reached": "upstream", "path": self.path})


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--port", type=int, default=8080)
    ap.add_argument("--tls", nargs=2, metavar=("CERT", "KEY"))
    a = ap.parse_args()
    # PID 1 of its container: SIGTERM does nothing unless handled
    signal.signal(signal.SIGTERM, lambda *_: os._exit(0))
    srv = ThreadingHTTPServer(("0.0.0.0", a.port), Handler)
    srv.daemon_threads = True
    if a.tls:
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        ctx.load_cert_chain(a.tls[0], a.tls[1])

        def sni(sock, name, _ctx):
            sock.cli_sandbox_sni = name
        ctx.sni_callback = sni
        srv.socket = ctx.wrap_socket(srv.socket, server_side=True)
    print("mock_upstream listening on %d" % a.port, flush=True)
    srv.serve_forever()


if __name__ == "__main__":
    main()
