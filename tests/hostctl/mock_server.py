#!/usr/bin/env python3
"""mock_server.py FAMILY PORTFILE [KEY]: one model server family's answers on
127.0.0.1 (a free port, written to PORTFILE), as the real servers send them to
the probe's paths (see families.h for the C tests' copy).  With KEY, the
keyed families answer as without a key unless the request carries it
(Authorization: Bearer, x-api-key or x-goog-api-key); every request's method,
path and whether it carried the key is logged to PORTFILE.log (never the key)."""
import json
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

FAMILY, PORTFILE = sys.argv[1], sys.argv[2]
KEY = sys.argv[3] if len(sys.argv) > 3 else None


def j(status, obj):
    return status, "application/json", json.dumps(obj)


def oai_error(status, msg):
    return j(status, {"error": {"message": msg, "type": "invalid_request_error", "param": None, "code": None}})


def ant_error(status, typ, msg):
    return j(status, {"type": "error", "error": {"type": typ, "message": msg}})


def ollama(version, messages, responses):
    def answer(method, path, keyed):
        if method == "GET" and path == "/api/version":
            return j(200, {"version": version})
        if method == "POST" and path == "/v1/chat/completions":
            return oai_error(400, "[] is too short - 'messages'")
        if method == "POST" and path == "/v1/responses" and responses:
            return oai_error(400, "model is required")
        if method == "POST" and path == "/v1/messages" and messages:
            return ant_error(400, "invalid_request_error", "model is required")
        return 404, "text/plain", "404 page not found"
    return answer


def vllm(method, path, keyed):
    if path.startswith("/v1/") and not keyed:
        return j(401, {"error": "Unauthorized"})
    if method == "POST" and path == "/v1/messages":
        return ant_error(400, "invalid_request_error", "Field required: messages")
    if method == "POST" and path in ("/v1/chat/completions", "/v1/responses"):
        return j(400, {"error": {"message": "Field required", "type": "BadRequestError", "param": None, "code": 400}})
    return j(404, {"detail": "Not Found"})


def llama_server(method, path, keyed):
    if method == "POST" and path in ("/v1/messages", "/v1/chat/completions"):
        return j(400, {"error": {"code": 400, "message": "\"messages\" is required", "type": "invalid_request_error"}})
    return j(404, {"error": {"code": 404, "message": "File Not Found", "type": "not_found_error"}})


def lm_studio(method, path, keyed):
    if method == "POST" and path in ("/v1/messages", "/v1/chat/completions", "/v1/responses"):
        return oai_error(400, "'messages' field is required")
    return j(200, {"error": "Unexpected endpoint or method. (%s %s)" % (method, path)})


def openai(method, path, keyed):
    if not keyed:
        return oai_error(401, "You didn't provide an API key.")
    if method == "POST" and path == "/v1/chat/completions":
        return oai_error(400, "you must provide a model parameter")
    if method == "POST" and path == "/v1/responses":
        return oai_error(400, "Missing required parameter: 'model'.")
    return oai_error(404, "Invalid URL (%s %s)" % (method, path))


def anthropic(method, path, keyed):
    if method == "POST" and path == "/v1/messages":
        if not keyed:
            return ant_error(401, "authentication_error", "x-api-key header is required")
        return ant_error(400, "invalid_request_error", "model: Field required")
    return ant_error(404, "not_found_error", "Not Found")


def gemini(method, path, keyed):
    if method == "GET" and path == "/v1beta/models":
        if keyed:
            return j(200, {"models": [{"name": "models/gemini-2.5-flash"}]})
        return j(403, {"error": {"code": 403, "message": "Method doesn't allow unregistered callers.", "status": "PERMISSION_DENIED"}})
    return 404, "text/html", "<!DOCTYPE html><html lang=en><title>Error 404 (Not Found)!!1</title>"


def redirect(method, path, keyed):
    # not a model server: sends every request elsewhere (here: /elsewhere on itself)
    return 307, "text/plain", "moved"


FAMILIES = {
    "redirect": redirect,
    "ollama-0.12": ollama("0.12.6", False, False),
    "ollama-0.13.3": ollama("0.13.3", False, True),
    "ollama-0.14": ollama("0.14.1", True, True),
    "vllm": vllm,
    "llama-server": llama_server,
    "lm-studio": lm_studio,
    "openai": openai,
    "anthropic": anthropic,
    "gemini": gemini,
}


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def answer(self, method):
        length = int(self.headers.get("content-length") or 0)
        if length:
            self.rfile.read(min(length, 1 << 20))
        auth = self.headers.get("authorization", "")
        keyed = KEY is not None and (auth == "Bearer " + KEY or self.headers.get("x-api-key") == KEY
                                     or self.headers.get("x-goog-api-key") == KEY)
        with open(PORTFILE + ".log", "a") as log:
            log.write("%s %s key=%s\n" % (method, self.path, "yes" if keyed else "no"))
        status, ctype, body = FAMILIES[FAMILY](method, self.path, keyed)
        data = body.encode()
        self.send_response(status)
        if status == 307:
            self.send_header("location", "/elsewhere" + self.path)
        self.send_header("content-type", ctype)
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self):
        self.answer("GET")

    def do_POST(self):
        self.answer("POST")

    def log_message(self, *args):
        pass


server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
with open(PORTFILE + ".tmp", "w") as f:
    f.write(str(server.server_address[1]))
import os  # noqa: E402
os.rename(PORTFILE + ".tmp", PORTFILE)
server.serve_forever()
