#!/usr/bin/env python3
"""The pinning tests' listener: a TCP echo server on every address of its
namespace (usage: pinning_listener.py PORT)."""
import socketserver
import sys


class Echo(socketserver.BaseRequestHandler):
    def handle(self):
        while True:
            data = self.request.recv(4096)
            if not data:
                return
            self.request.sendall(data)


class Server(socketserver.ThreadingTCPServer):
    allow_reuse_address = True
    daemon_threads = True
    request_queue_size = 1024


Server(("0.0.0.0", int(sys.argv[1])), Echo).serve_forever()
