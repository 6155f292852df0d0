#!/usr/bin/env python3
"""A stand-in for a Docker engine's API socket, enough for `docker version` and `docker ps`.

The image tests mount it at /var/run/docker.sock with the socket's group passed by
--group-add, the way `host/cli-sandbox --docker-socket` does, to show that the image's Docker
CLI (and nothing else: no daemon) reaches an engine through it as the unprivileged user.
It answers /_ping, /version and /containers/json with one made-up container, logs one line
per request, and ends by itself after --max-seconds.

usage: fake_docker_api.py --socket PATH --log FILE [--group GID] [--max-seconds N]
"""
import argparse
import http.server
import json
import os
import socketserver
import threading

API = "1.45"
CONTAINERS = [{
    "Id": "f00dfeedf00dfeedf00dfeedf00dfeedf00dfeedf00dfeedf00dfeedf00dfeed",
    "Names": ["/fake-engine-container"], "Image": "fake/image:1", "ImageID": "sha256:00",
    "Command": "sleep infinity", "Created": 1700000000, "Ports": [], "Labels": {},
    "State": "running", "Status": "Up 1 minute", "Mounts": [],
}]
VERSION = {"Version": "26.1.5", "ApiVersion": API, "MinAPIVersion": "1.24", "Os": "linux",
           "Arch": "amd64", "KernelVersion": "fake", "GoVersion": "go1", "GitCommit": "fake"}


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def _send(self, body, ctype="application/json"):
        data = body.encode() if isinstance(body, str) else body
        self.send_response(200)
        self.send_header("Api-Version", API)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(data)

    def _route(self):
        with open(self.server.log_path, "a") as log:
            log.write(f"{self.command} {self.path}\n")
        path = self.path.split("?")[0]
        if path.startswith("/v"):
            path = "/" + path.split("/", 2)[2]
        if path == "/_ping":
            self._send("OK", "text/plain")
        elif path == "/version":
            self._send(json.dumps(VERSION))
        elif path == "/containers/json":
            self._send(json.dumps(CONTAINERS))
        else:
            self.send_response(404)
            self.send_header("Content-Length", "0")
            self.end_headers()

    do_GET = do_HEAD = _route

    def log_message(self, *args):
        pass


class Server(socketserver.ThreadingMixIn, socketserver.UnixStreamServer):
    daemon_threads = True

    def get_request(self):
        # AF_UNIX peers have no address; http.server wants a (host, port) pair.
        sock, _ = super().get_request()
        return sock, ("local", 0)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--socket", required=True)
    ap.add_argument("--log", required=True)
    ap.add_argument("--group", type=int)
    ap.add_argument("--max-seconds", type=float, default=300)
    a = ap.parse_args()
    if os.path.exists(a.socket):
        os.unlink(a.socket)
    srv = Server(a.socket, Handler)
    srv.log_path = a.log
    if a.group is not None:
        os.chown(a.socket, -1, a.group)
    os.chmod(a.socket, 0o660)
    threading.Timer(a.max_seconds, srv.shutdown).start()
    srv.serve_forever()
    os.unlink(a.socket)


if __name__ == "__main__":
    main()
