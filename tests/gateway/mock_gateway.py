#!/usr/bin/env python3
"""Mock model gateway for cli-sandbox tests (Python 3 standard library only).

Speaks just enough of three wire protocols for the real claude, codex and pi
CLIs to print a fixed reply:

  * Anthropic Messages      POST .../v1/messages            (SSE and JSON)
                            POST .../v1/messages/count_tokens
  * OpenAI Responses        POST .../v1/responses           (SSE and JSON)
                            GET  .../v1/responses  WebSocket upgrade (codex's
                            default transport: "response.create" frames in,
                            the same events as the SSE stream out)
  * OpenAI Chat Completions POST .../v1/chat/completions    (SSE and JSON)
  * Google Gemini API       POST .../models/M:generateContent (JSON)
                            POST .../models/M:streamGenerateContent?alt=sse
                            POST .../models/M:countTokens   (gemini)
  * Ollama native           GET /api/tags, /api/ps, /api/version,
                            POST /api/show, /api/chat (NDJSON stream or JSON),
                            POST /api/pull (NDJSON progress), DELETE /api/delete

--speaks LIST chooses which of anthropic, chat, responses, ollama this server
serves (default: the first three); the others get a 404 as from a server that
does not have them, so a client's probe sees what a real server would.
--models NAME[:tools],... are the installed models (Ollama: /api/tags, /api/show
capabilities; a chat with another model is "not found"), --pullable NAME,...
the ones /api/pull can fetch; the first /api/chat of a model is a cold load
(--load-seconds, reported in load_duration), later ones find it loaded
(/api/ps).  --require-key KEY: every model call must carry KEY (x-api-key or
Bearer), else 401 in that API's error format.  --call-tools: a request that
offers tools and carries no tool result is answered with a call of the first
tool (arguments filled from its schema), in that API's format; without it a
plain-text model is played (tools answered in text).

Paths are matched by suffix, so a gateway prefix such as /anthropic/v1/messages
works too.  Anything else gets a harmless JSON 404 (GET .../models gets an
empty list).  Every request is logged as one line "METHOD PATH STATUS" (and
every WebSocket message as "WS PATH TYPE"), followed by the line
"HEADERS METHOD PATH {json of the request headers}", to --log (if given) and to
stderr.

Scripted mode (--tool-command CMD): a two-turn agent.  A model call whose
request offers a shell tool and carries no tool result yet is answered with a
call of that tool running CMD, in the CLI's own wire format (Anthropic
"tool_use", Responses "function_call" or "custom_tool_call", Gemini
"functionCall"); the tool's name
and arguments are read from the tools the CLI sent.  A call that carries a
tool result is answered with text quoting it.  Calls offering no shell tool
(titles, summaries) get the plain reply.  The log then has the lines
  TOOL_CALL PROTOCOL NAME      when a tool call was sent
  TOOL_RESULT "JSON STRING"    the tool output the CLI sent back
and --dump-dir keeps every model request body as NNN.json for inspection.

The server stops cleanly on SIGTERM/SIGINT and by itself after --max-seconds.
When it is ready it prints "mock_gateway listening on HOST PORT" on stdout
(useful with --port 0, which picks a free port).
"""

import argparse
import base64
import hashlib
import json
import os
import re
import signal
import socket
import struct
import sys
import threading
import time
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

MAX_BODY = 64 * 1024 * 1024  # bytes; CLIs send long system prompts and tool lists
WS_GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"
WS_IDLE_SECONDS = 120  # a WebSocket with no client frame for this long is closed


def _id(prefix):
    return prefix + uuid.uuid4().hex[:24]


# ------------------------------------------------------------ scripted turns
# Pure functions: a request body in, what this turn answers out.  A turn is
# None (the plain reply), ("tool", kind, name, arguments) or ("result", text).

def _command_args(schema, command):
    """Arguments for a shell tool, from its JSON schema: "command" as a string
    (claude's Bash, pi's bash) or as an argv array (codex's shell)."""
    props = (schema or {}).get("properties") or {}
    cmd = props.get("command") or props.get("cmd") or {}
    key = "command" if "command" in props else "cmd"
    args = {key: ["bash", "-lc", command] if cmd.get("type") == "array" else command}
    if "description" in props:
        args["description"] = "scripted by the mock model"
    return args


def _has_command(schema):
    props = (schema or {}).get("properties") or {}
    return "command" in props or "cmd" in props


def _text_of(content):
    """The text of a tool result's content: a string or a list of parts."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(str(p.get("text", "")) for p in content if isinstance(p, dict))
    return ""


def anthropic_turn(body, command):
    results = []
    for msg in body.get("messages") or []:
        if isinstance(msg, dict) and isinstance(msg.get("content"), list):
            results += [_text_of(b.get("content")) for b in msg["content"]
                        if isinstance(b, dict) and b.get("type") == "tool_result"]
    if results:
        return ("result", results[-1])
    tools = [t for t in body.get("tools") or [] if isinstance(t, dict)]
    for t in sorted(tools, key=lambda t: t.get("name") not in ("Bash", "bash")):
        if _has_command(t.get("input_schema")):
            return ("tool", "tool_use", t["name"], _command_args(t["input_schema"], command))
    return None


# codex 0.171's code mode offers one freeform tool, "exec", whose input is
# JavaScript that codex runs in a V8 isolate; the script reaches the shell
# through the nested tools the description declares
# ("declare const tools: { exec_command(args: { ... cmd: string; ..."), and
# hands output back with text().  The tools travel in an "additional_tools"
# input item, inside a "namespace" tool, rather than in body["tools"].
CODEX_EXEC_SCRIPT = (
    "const r = await tools.%s({%s: %s});\n"
    "text(typeof r === 'string' ? r : r.output);\n")


def _responses_tools(body):
    """Every tool offered, from body["tools"] and additional_tools items,
    namespaces flattened."""
    found = []

    def walk(tools, depth):
        for t in tools if isinstance(tools, list) else []:
            if not isinstance(t, dict) or depth > 4:
                continue
            if t.get("type") == "namespace":
                walk(t.get("tools"), depth + 1)
            else:
                found.append(t)

    walk(body.get("tools"), 0)
    for item in body.get("input") if isinstance(body.get("input"), list) else []:
        if isinstance(item, dict) and item.get("type") == "additional_tools":
            walk(item.get("tools"), 0)
    return found


def _exec_shell_tool(description):
    """(nested tool, argument name) of the shell tool an exec description
    declares, or None."""
    m = re.search(r"(\w+)\(args: \{[^}]*?// Shell command to execute\.\s*(\w+): string",
                  description or "")
    return (m.group(1), m.group(2)) if m else None


def responses_turn(body, command):
    items = body.get("input")
    items = items if isinstance(items, list) else []
    results = [_text_of(i.get("output")) for i in items if isinstance(i, dict)
               and i.get("type") in ("function_call_output", "custom_tool_call_output")]
    if results:
        return ("result", results[-1])
    tools = _responses_tools(body)
    for t in tools:
        nested = _exec_shell_tool(t.get("description"))
        if t.get("type") == "custom" and t.get("name") == "exec" and nested:
            return ("tool", "custom_tool_call", "exec",
                    CODEX_EXEC_SCRIPT % (nested[0], nested[1], json.dumps(command)))
    for t in tools:
        if t.get("type") == "function" and _has_command(t.get("parameters")):
            return ("tool", "function_call", t["name"],
                    json.dumps(_command_args(t["parameters"], command)))
    return None


def _gemini_schema(decl):
    return decl.get("parametersJsonSchema") or decl.get("parameters") or {}


def _value_of(schema, depth=0):
    """A minimal value that satisfies a JSON schema (Gemini's upper-case
    types too): what a CLI's structured side calls (gemini's model router
    asks for {"complexity_reasoning", "complexity_score"}) can parse."""
    schema = schema if isinstance(schema, dict) else {}
    if schema.get("enum"):
        return schema["enum"][0]
    kind = str(schema.get("type", "object")).lower()
    if kind == "object" and depth < 6:
        props = schema.get("properties") or {}
        return {k: _value_of(v, depth + 1) for k, v in props.items()}
    return {"string": "mock", "integer": 1, "number": 1, "boolean": False,
            "array": []}.get(kind, {})


def gemini_turn(body, command):
    """Gemini's generateContent: tools are functionDeclarations; a tool result
    comes back as a functionResponse part of a user turn."""
    results = []
    for c in body.get("contents") or []:
        for part in (c.get("parts") or []) if isinstance(c, dict) else []:
            fr = part.get("functionResponse") if isinstance(part, dict) else None
            if isinstance(fr, dict):
                r = fr.get("response")
                out = r.get("output", r.get("llmContent", r)) if isinstance(r, dict) else r
                results.append(out if isinstance(out, str) else json.dumps(out))
    if results:
        return ("result", results[-1])
    decls = []
    for t in body.get("tools") or []:
        if isinstance(t, dict):
            decls += [d for d in t.get("functionDeclarations") or [] if isinstance(d, dict)]
    # gemini 0.61's run_shell_command refuses command substitution ("Command
    # injection detected: ... $() ..."), which the test commands use: the
    # script goes as base64 through a pipe, as a model would work around it.
    if "$(" in command or "`" in command or "<(" in command:
        command = "echo %s | base64 -d | bash" % base64.b64encode(command.encode()).decode()
    for d in sorted(decls, key=lambda d: "shell" not in str(d.get("name"))):
        if _has_command(_gemini_schema(d)):
            return ("tool", "functionCall", d["name"], _command_args(_gemini_schema(d), command))
    return None


def chat_turn(body, command):
    """Chat Completions (and Ollama /api/chat, the same message shapes): a tool
    result in a "tool" message, else a function tool with a command."""
    msgs = [m for m in body.get("messages") or [] if isinstance(m, dict)]
    results = [_text_of(m.get("content")) for m in msgs if m.get("role") == "tool"]
    if results:
        return ("result", results[-1])
    for t in body.get("tools") or []:
        fn = t.get("function") if isinstance(t, dict) else None
        if isinstance(fn, dict) and _has_command(fn.get("parameters")):
            return ("tool", "function", fn.get("name"), _command_args(fn["parameters"], command))
    return None


def _fill_args(schema):
    """Arguments for any tool: every required (else every) property, a value of
    its type."""
    schema = schema if isinstance(schema, dict) else {}
    props = schema.get("properties") or {}
    names = schema.get("required") or list(props)
    out = {}
    for n in names:
        t = (props.get(n) or {}).get("type")
        enum = (props.get(n) or {}).get("enum")
        out[n] = (enum[0] if enum else 1 if t in ("integer", "number") else True if t == "boolean"
                  else [] if t == "array" else {} if t == "object" else "ok")
    return out


def first_tool(body, api):
    """(name, arguments dict) of the first tool a request offers in API's
    format, or None; None too once the request carries a tool result."""
    if api == "anthropic":
        for m in body.get("messages") or []:
            if isinstance(m, dict) and isinstance(m.get("content"), list) and any(
                    isinstance(b, dict) and b.get("type") == "tool_result" for b in m["content"]):
                return None
        for t in body.get("tools") or []:
            if isinstance(t, dict) and t.get("name"):
                return t["name"], _fill_args(t.get("input_schema"))
    elif api == "responses":
        items = body.get("input") if isinstance(body.get("input"), list) else []
        if any(isinstance(i, dict) and i.get("type") == "function_call_output" for i in items):
            return None
        for t in _responses_tools(body):
            if t.get("type") == "function" and t.get("name"):
                return t["name"], _fill_args(t.get("parameters"))
    else:  # chat and ollama
        if any(isinstance(m, dict) and m.get("role") == "tool" for m in body.get("messages") or []):
            return None
        for t in body.get("tools") or []:
            fn = t.get("function") if isinstance(t, dict) else None
            if isinstance(fn, dict) and fn.get("name"):
                return fn["name"], _fill_args(fn.get("parameters"))
    return None


def result_reply(text):
    return "the tool printed: " + text[:4000]


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "mock-gateway/1"
    # Headers and body go out in two writes: without TCP_NODELAY, Nagle holds the body until
    # the client's delayed ACK (about 40 ms per keep-alive request), which a real server
    # does not cost and which would hide what a gateway adds.
    disable_nagle_algorithm = True
    # Set on the class by main().
    reply = "pong"
    websocket = True
    log_lock = threading.Lock()
    log_file = None
    tool_command = None  # scripted mode when set
    dump_dir = None
    dump_count = [0]
    speaks = ("anthropic", "chat", "responses", "gemini")
    call_tools = False
    require_key = None
    models = {}  # installed: name -> capabilities list
    pullable = ()
    loaded = {}  # name -> time it was loaded
    load_seconds = 0.2

    # ---------------------------------------------------------------- helpers
    def log_message(self, fmt, *args):  # silence the default access log
        pass

    def _log(self, status):
        self._log_line("%s %s %s" % (self.command, self.path, status))
        self._log_line("HEADERS %s %s %s" % (self.command, self.path,
                                             json.dumps(dict(self.headers.items()))))

    def _key_ok(self, api):
        """True when no key is required or the request carries it; else a 401
        in API's own error format has been sent."""
        if self.require_key is None:
            return True
        auth = self.headers.get("Authorization", "")
        given = self.headers.get("x-api-key") or (auth[7:] if auth.startswith("Bearer ") else "")
        if given == self.require_key:
            return True
        if api == "anthropic":
            err = {"type": "error", "error": {"type": "authentication_error",
                                              "message": "invalid x-api-key"}}
        elif api == "ollama":
            err = {"error": "unauthorized"}
        else:
            err = {"error": {"message": "Incorrect API key provided", "type": "invalid_request_error",
                             "code": "invalid_api_key", "param": None}}
        self._send_json(401, err)
        return False

    def _log_line(self, text):
        line = text + "\n"
        with self.log_lock:
            sys.stderr.write(line)
            sys.stderr.flush()
            if self.log_file is not None:
                self.log_file.write(line)
                self.log_file.flush()

    def _read_body(self):
        te = self.headers.get("Transfer-Encoding", "").lower()
        if "chunked" in te:
            chunks = []
            total = 0
            for _ in range(1 << 20):  # bounded number of chunks
                size_line = self.rfile.readline(1024)
                if not size_line:
                    break
                size = int(size_line.split(b";")[0].strip() or b"0", 16)
                if size == 0:
                    # trailers until the empty line
                    for _ in range(256):
                        t = self.rfile.readline(8192)
                        if t in (b"\r\n", b"\n", b""):
                            break
                    break
                total += size
                if total > MAX_BODY:
                    raise ValueError("body too large")
                chunks.append(self.rfile.read(size))
                self.rfile.readline(8)  # CRLF after the chunk
            return b"".join(chunks)
        length = int(self.headers.get("Content-Length") or 0)
        if length > MAX_BODY:
            raise ValueError("body too large")
        return self.rfile.read(length) if length > 0 else b""

    def _json_body(self):
        raw = self._read_body()
        if not raw:
            return {}
        try:
            body = json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, ValueError):
            return {}
        return body if isinstance(body, dict) else {}

    def _dump(self, body):
        if self.dump_dir is None:
            return
        with self.log_lock:
            self.dump_count[0] += 1
            n = self.dump_count[0]
        with open(os.path.join(self.dump_dir, "%03d.json" % n), "w", encoding="utf-8") as f:
            json.dump({"path": self.path, "body": body}, f, indent=1)

    def _send_json(self, status, obj, extra_headers=None):
        data = json.dumps(obj).encode("utf-8")
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for k, v in (extra_headers or {}).items():
            self.send_header(k, v)
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(data)
        self._log(status)

    def _send_text(self, status, text):
        data = text.encode("utf-8")
        self.send_response(status)
        self.send_header("Content-Type", "text/plain; charset=utf-8")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(data)
        self._log(status)

    def _start_sse(self, extra_headers=None):
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Connection", "close")
        for k, v in (extra_headers or {}).items():
            self.send_header(k, v)
        self.end_headers()
        self.close_connection = True
        self._log(200)

    def _sse(self, event, obj):
        data = "data: %s\n\n" % json.dumps(obj)
        if event:
            data = "event: %s\n" % event + data
        self.wfile.write(data.encode("utf-8"))
        self.wfile.flush()

    def _not_found(self):
        self._send_json(404, {
            "type": "error",
            "error": {"type": "not_found_error", "code": "not_found",
                      "message": "mock gateway: no such endpoint: %s" % self.path},
        })

    def _route(self):
        return self.path.split("?", 1)[0].rstrip("/")

    # ----------------------------------------------------------------- verbs
    def do_HEAD(self):
        self._send_json(200, {})

    def do_GET(self):
        path = self._route()
        if (path.endswith("/responses") and self.websocket
                and self.headers.get("Upgrade", "").lower() == "websocket"
                and self.headers.get("Sec-WebSocket-Key")):
            if "responses" in self.speaks and self._key_ok("openai"):
                self._responses_websocket()
            elif "responses" not in self.speaks:
                self._not_found()
        elif path == "/api/tags" and "ollama" in self.speaks:
            self._send_json(200, {"models": [self._ollama_model(n) for n in sorted(self.models)]})
        elif path == "/api/ps" and "ollama" in self.speaks:
            self._send_json(200, {"models": [dict(self._ollama_model(n), expires_at="2099-01-01T00:00:00Z",
                                                  size_vram=0) for n in sorted(self.loaded)]})
        elif path == "/api/version" and "ollama" in self.speaks:
            self._send_json(200, {"version": "0.13.5"})
        elif path.startswith("/api/"):
            self._not_found()
        elif path == "/v1beta/models" and "gemini" not in self.speaks:
            self._not_found()  # Gemini's model list: only a Gemini server has it (the probe counts it)
        elif path.endswith("/models"):
            self._send_json(200, {"object": "list", "data": [
                {"id": n, "object": "model", "created": 0, "owned_by": "mock"} for n in sorted(self.models)],
                "models": [], "has_more": False})
        elif path in ("", "/", "/health", "/healthz"):
            if "ollama" in self.speaks and path in ("", "/"):
                self._send_text(200, "Ollama is running")
            else:
                self._send_json(200, {"status": "ok"})
        else:
            self._not_found()

    def do_POST(self):
        path = self._route()
        try:
            body = self._json_body()
        except ValueError:
            self.close_connection = True
            self._send_json(413, {"error": {"message": "body too large"}})
            return
        self._dump(body)
        if path.startswith("/api/") and "ollama" in self.speaks:
            self._ollama_post(path, body)
        elif path.endswith("/messages/count_tokens") and "anthropic" in self.speaks:
            self._send_json(200, {"input_tokens": 1})
        elif path.endswith("/messages") and "anthropic" in self.speaks:
            if self._key_ok("anthropic"):
                self._anthropic(body)
        elif path.endswith("/responses") and "responses" in self.speaks:
            if self._key_ok("openai"):
                self._responses(body)
        elif path.endswith("/chat/completions") and "chat" in self.speaks:
            if self._key_ok("openai"):
                self._chat(body)
        elif path.endswith(":countTokens"):
            self._send_json(200, {"totalTokens": 1})
        elif path.endswith(":generateContent") or path.endswith(":streamGenerateContent"):
            self._gemini(body, path.endswith(":streamGenerateContent"))
        else:
            self._not_found()

    def do_PUT(self):
        self._read_body()
        self._not_found()

    def do_DELETE(self):
        path = self._route()
        try:
            body = self._json_body()
        except ValueError:
            body = {}
        name = str(body.get("model") or body.get("name") or "")
        if path == "/api/delete" and "ollama" in self.speaks and name in self.models:
            del self.models[name]
            self.loaded.pop(name, None)
            self._send_json(200, {})
        else:
            self._not_found()

    do_PATCH = do_PUT

    # ---------------------------------------------------- scripted turns
    def _turn(self, fn, body, protocol):
        """This call's scripted turn (None in plain mode), logged."""
        if self.tool_command is None:
            if not self.call_tools:
                return None
            api = {"anthropic": "anthropic", "responses": "responses"}.get(protocol, "chat")
            found = first_tool(body, api)
            if found is None:
                return None
            kind = {"anthropic": "tool_use", "responses": "function_call"}.get(protocol, "function")
            args = found[1] if kind != "function_call" else json.dumps(found[1])
            self._log_line("TOOL_CALL %s %s" % (protocol, found[0]))
            return ("tool", kind, found[0], args)
        turn = fn(body, self.tool_command)
        if turn and turn[0] == "result":
            self._log_line("TOOL_RESULT %s" % json.dumps(turn[1]))
        elif turn:
            self._log_line("TOOL_CALL %s %s" % (protocol, turn[2]))
        return turn

    # ---------------------------------------------------- Anthropic Messages
    def _anthropic(self, body):
        model = str(body.get("model") or "mock-model")
        msg_id = _id("msg_")
        usage = {"input_tokens": 1, "output_tokens": 1,
                 "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}
        turn = self._turn(anthropic_turn, body, "anthropic")
        text = result_reply(turn[1]) if turn and turn[0] == "result" else self.reply
        if turn and turn[0] == "tool":
            block = {"type": "tool_use", "id": _id("toolu_"), "name": turn[2], "input": turn[3]}
            stop = "tool_use"
        else:
            block = {"type": "text", "text": text}
            stop = "end_turn"
        if not body.get("stream"):
            self._send_json(200, {
                "id": msg_id, "type": "message", "role": "assistant", "model": model,
                "content": [block], "stop_reason": stop, "stop_sequence": None, "usage": usage,
            }, {"request-id": _id("req_")})
            return
        self._start_sse({"request-id": _id("req_")})
        self._sse("message_start", {"type": "message_start", "message": {
            "id": msg_id, "type": "message", "role": "assistant", "model": model,
            "content": [], "stop_reason": None, "stop_sequence": None,
            "usage": dict(usage, output_tokens=0)}})
        if block["type"] == "tool_use":
            start = dict(block, input={})
            delta = {"type": "input_json_delta", "partial_json": json.dumps(block["input"])}
        else:
            start = {"type": "text", "text": ""}
            delta = {"type": "text_delta", "text": text}
        self._sse("content_block_start", {"type": "content_block_start", "index": 0,
                                          "content_block": start})
        self._sse("ping", {"type": "ping"})
        self._sse("content_block_delta", {"type": "content_block_delta", "index": 0,
                                          "delta": delta})
        self._sse("content_block_stop", {"type": "content_block_stop", "index": 0})
        self._sse("message_delta", {"type": "message_delta",
                                    "delta": {"stop_reason": stop, "stop_sequence": None},
                                    "usage": {"output_tokens": 1}})
        self._sse("message_stop", {"type": "message_stop"})

    # ------------------------------------------------------ OpenAI Responses
    def _responses_events(self, body):
        """The (event name, payload) list of one streamed Responses API reply,
        and the final response object."""
        model = str(body.get("model") or "mock-model")
        resp_id = _id("resp_")
        now = int(time.time())
        usage = {"input_tokens": 1, "input_tokens_details": {"cached_tokens": 0},
                 "output_tokens": 1, "output_tokens_details": {"reasoning_tokens": 0},
                 "total_tokens": 2}
        prewarm = body.get("generate") is False  # codex's websocket warm-up: no output
        turn = None if prewarm else self._turn(responses_turn, body, "responses")
        text = result_reply(turn[1]) if turn and turn[0] == "result" else self.reply

        def response(status, output, with_usage):
            r = {"id": resp_id, "object": "response", "created_at": now,
                 "status": status, "model": model, "output": output,
                 "error": None, "incomplete_details": None,
                 "parallel_tool_calls": True, "tool_choice": "auto", "tools": []}
            if with_usage:
                r["usage"] = usage
                r["output_text"] = text if output and not turn_is_tool else ""
            return r

        turn_is_tool = bool(turn and turn[0] == "tool")
        events = [("response.created", {"response": response("in_progress", [], False)})]
        if prewarm:
            final = response("completed", [], True)
            events.append(("response.completed", {"response": final}))
        elif turn_is_tool:
            events.append(("response.in_progress", {"response": response("in_progress", [], False)}))
            events += self._tool_call_events(turn)
            final = response("completed", [events[-1][1]["item"]], True)
            events.append(("response.completed", {"response": final}))
        else:
            item_id = _id("msg_")
            part = {"type": "output_text", "text": text, "annotations": []}
            item = {"type": "message", "id": item_id, "status": "completed",
                    "role": "assistant", "content": [part]}
            final = response("completed", [item], True)
            events += [
                ("response.in_progress", {"response": response("in_progress", [], False)}),
                ("response.output_item.added", {
                    "output_index": 0,
                    "item": {"type": "message", "id": item_id, "status": "in_progress",
                             "role": "assistant", "content": []}}),
                ("response.content_part.added", {
                    "item_id": item_id, "output_index": 0, "content_index": 0,
                    "part": {"type": "output_text", "text": "", "annotations": []}}),
                ("response.output_text.delta", {
                    "item_id": item_id, "output_index": 0, "content_index": 0,
                    "delta": text, "logprobs": []}),
                ("response.output_text.done", {
                    "item_id": item_id, "output_index": 0, "content_index": 0,
                    "text": text, "logprobs": []}),
                ("response.content_part.done", {
                    "item_id": item_id, "output_index": 0, "content_index": 0, "part": part}),
                ("response.output_item.done", {"output_index": 0, "item": item}),
                ("response.completed", {"response": final}),
            ]
        for seq, (name, payload) in enumerate(events, 1):
            payload["type"] = name
            payload["sequence_number"] = seq
        return events, final

    @staticmethod
    def _tool_call_events(turn):
        """A function_call or custom_tool_call output item, streamed."""
        _, kind, name, args = turn
        item_id = _id("fc_" if kind == "function_call" else "ctc_")
        field, event = (("arguments", "function_call_arguments") if kind == "function_call"
                        else ("input", "custom_tool_call_input"))
        item = {"type": kind, "id": item_id, "call_id": _id("call_"), "name": name,
                field: args, "status": "completed"}
        return [
            ("response.output_item.added", {"output_index": 0,
                                            "item": dict(item, status="in_progress", **{field: ""})}),
            ("response.%s.delta" % event, {"item_id": item_id, "output_index": 0, "delta": args}),
            ("response.%s.done" % event, {"item_id": item_id, "output_index": 0, field: args}),
            ("response.output_item.done", {"output_index": 0, "item": item}),
        ]

    def _responses(self, body):
        events, final = self._responses_events(body)
        if not body.get("stream"):
            self._send_json(200, final)
            return
        self._start_sse()
        for name, payload in events:
            self._sse(name, payload)

    # ------------------------------------- OpenAI Responses over WebSocket
    def _ws_send(self, opcode, payload):
        header = bytes([0x80 | opcode])
        n = len(payload)
        if n < 126:
            header += bytes([n])
        elif n < 65536:
            header += bytes([126]) + struct.pack("!H", n)
        else:
            header += bytes([127]) + struct.pack("!Q", n)
        self.wfile.write(header + payload)
        self.wfile.flush()

    def _ws_recv(self):
        """One complete message: (opcode, payload), or None at EOF/error."""
        opcode, chunks, total = None, [], 0
        for _ in range(4096):  # bounded number of fragments
            head = self.rfile.read(2)
            if len(head) < 2:
                return None
            fin, op = head[0] & 0x80, head[0] & 0x0F
            masked, n = head[1] & 0x80, head[1] & 0x7F
            if n == 126:
                n = struct.unpack("!H", self.rfile.read(2))[0]
            elif n == 127:
                n = struct.unpack("!Q", self.rfile.read(8))[0]
            if n > MAX_BODY or total + n > MAX_BODY:
                return None
            mask = self.rfile.read(4) if masked else b"\0\0\0\0"
            data = self.rfile.read(n)
            if len(data) < n:
                return None
            if masked:
                data = bytes(b ^ mask[i % 4] for i, b in enumerate(data))
            if op >= 0x8:  # control frames are never fragmented
                return op, data
            if op != 0:
                opcode = op
            chunks.append(data)
            total += n
            if fin:
                return opcode, b"".join(chunks)
        return None

    def _responses_websocket(self):
        key = self.headers["Sec-WebSocket-Key"].strip()
        accept = base64.b64encode(hashlib.sha1((key + WS_GUID).encode()).digest()).decode()
        self.send_response(101)
        self.send_header("Upgrade", "websocket")
        self.send_header("Connection", "Upgrade")
        self.send_header("Sec-WebSocket-Accept", accept)
        self.end_headers()  # no extension offered back: no permessage-deflate
        self.close_connection = True
        self._log(101)
        self.connection.settimeout(WS_IDLE_SECONDS)
        try:
            for _ in range(10000):  # bounded number of messages per connection
                msg = self._ws_recv()
                if msg is None:
                    return
                op, data = msg
                if op == 0x8:  # close
                    self._ws_send(0x8, data[:2])
                    return
                if op == 0x9:  # ping
                    self._ws_send(0xA, data)
                    continue
                if op != 0x1:
                    continue
                try:
                    body = json.loads(data.decode("utf-8"))
                except (UnicodeDecodeError, ValueError):
                    continue
                if not isinstance(body, dict):
                    continue
                self._log_line("WS %s %s" % (self.path, body.get("type")))
                self._dump(body)
                if body.get("type") != "response.create":
                    continue
                events, _final = self._responses_events(body)
                for _name, payload in events:
                    self._ws_send(0x1, json.dumps(payload).encode("utf-8"))
        except (OSError, socket.timeout, struct.error):
            return

    # ---------------------------------------------- OpenAI Chat Completions
    def _chat(self, body):
        model = str(body.get("model") or "mock-model")
        cid = _id("chatcmpl-")
        now = int(time.time())
        usage = {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}
        # An Ollama model without the tools capability answers in text on /v1 as well.
        plain = "ollama" in self.speaks and "tools" not in self.models.get(model, ["tools"])
        turn = None if plain else self._turn(chat_turn, body, "chat")
        text = result_reply(turn[1]) if turn and turn[0] == "result" else self.reply
        calls = None
        if turn and turn[0] == "tool":
            calls = [{"id": _id("call_"), "type": "function",
                      "function": {"name": turn[2], "arguments": json.dumps(turn[3])}}]
        finish = "tool_calls" if calls else "stop"
        if not body.get("stream"):
            message = {"role": "assistant", "content": None if calls else text}
            if calls:
                message["tool_calls"] = calls
            self._send_json(200, {
                "id": cid, "object": "chat.completion", "created": now, "model": model,
                "choices": [{"index": 0, "finish_reason": finish, "logprobs": None,
                             "message": message}],
                "usage": usage})
            return
        self._start_sse()

        def chunk(choices, **extra):
            c = {"id": cid, "object": "chat.completion.chunk", "created": now,
                 "model": model, "choices": choices}
            c.update(extra)
            return c

        self._sse(None, chunk([{"index": 0, "finish_reason": None,
                                "delta": {"role": "assistant", "content": "" if not calls else None}}]))
        if calls:
            c = calls[0]
            self._sse(None, chunk([{"index": 0, "finish_reason": None, "delta": {"tool_calls": [
                {"index": 0, "id": c["id"], "type": "function",
                 "function": {"name": c["function"]["name"], "arguments": ""}}]}}]))
            self._sse(None, chunk([{"index": 0, "finish_reason": None, "delta": {"tool_calls": [
                {"index": 0, "function": {"arguments": c["function"]["arguments"]}}]}}]))
        else:
            self._sse(None, chunk([{"index": 0, "finish_reason": None,
                                    "delta": {"content": text}}]))
        self._sse(None, chunk([{"index": 0, "finish_reason": finish, "delta": {}}]))
        opts = body.get("stream_options")
        if isinstance(opts, dict) and opts.get("include_usage"):
            self._sse(None, chunk([], usage=usage))
        self.wfile.write(b"data: [DONE]\n\n")
        self.wfile.flush()

    # ------------------------------------------------------- Ollama native
    @classmethod
    def _ollama_model(cls, name):
        digest = hashlib.sha256(name.encode()).hexdigest()
        return {"name": name, "model": name, "modified_at": "2026-11-01T00:00:00Z",
                "size": 4_700_000_000, "digest": digest,
                "details": {"format": "gguf", "family": name.split(":")[0], "parameter_size": "8B",
                            "quantization_level": "Q4_K_M"}}

    def _ndjson_start(self):
        self.send_response(200)
        self.send_header("Content-Type", "application/x-ndjson")
        self.send_header("Connection", "close")
        self.end_headers()
        self.close_connection = True
        self._log(200)

    def _ndjson(self, obj):
        self.wfile.write((json.dumps(obj) + "\n").encode("utf-8"))
        self.wfile.flush()

    def _ollama_post(self, path, body):
        name = str(body.get("model") or body.get("name") or "")
        if path == "/api/show":
            if name not in self.models:
                self._send_json(404, {"error": "model '%s' not found" % name})
                return
            self._send_json(200, {"modelfile": "FROM %s" % name, "parameters": "", "template": "",
                                  "details": self._ollama_model(name)["details"],
                                  "model_info": {"general.architecture": "llama"},
                                  "capabilities": self.models[name]})
        elif path == "/api/pull":
            self._ollama_pull(name, body.get("stream", True) is not False)
        elif path == "/api/chat":
            if self._key_ok("ollama"):
                self._ollama_chat(name, body)
        else:
            self._not_found()

    def _ollama_pull(self, name, stream):
        base = name if ":" in name else name + ":latest"
        known = [p for p in self.pullable if p == name or p == base or p + ":latest" == base]
        if not known:
            err = {"error": "pull model manifest: file does not exist"}
            if stream:
                self._ndjson_start()
                self._ndjson({"status": "pulling manifest"})
                self._ndjson(err)
            else:
                self._send_json(500, err)
            return
        digest = "sha256:" + hashlib.sha256(name.encode()).hexdigest()
        total = 4_700_000_000
        steps = [{"status": "pulling manifest"}]
        for done in (0, total // 4, total // 2, 3 * total // 4, total):
            steps.append({"status": "pulling %s" % digest[7:19], "digest": digest,
                          "total": total, "completed": done})
        steps += [{"status": "verifying sha256 digest"}, {"status": "writing manifest"},
                  {"status": "success"}]
        self.models[name] = ["completion", "tools"]
        if not stream:
            self._send_json(200, {"status": "success"})
            return
        self._ndjson_start()
        for st in steps:
            self._ndjson(st)
            time.sleep(0.02)

    def _ollama_chat(self, name, body):
        if name not in self.models:
            self._send_json(404, {"error": "model \"%s\" not found, try pulling it first" % name})
            return
        load_ns = 0
        if name not in self.loaded:
            time.sleep(self.load_seconds)
            load_ns = int(self.load_seconds * 1e9)
            self.loaded[name] = time.time()
        turn = None
        if "tools" in self.models[name]:
            turn = self._turn(chat_turn, body, "ollama")
        text = result_reply(turn[1]) if turn and turn[0] == "result" else self.reply
        message = {"role": "assistant", "content": text}
        if turn and turn[0] == "tool":
            message = {"role": "assistant", "content": "",
                       "tool_calls": [{"function": {"name": turn[2], "arguments": turn[3]}}]}
        now = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
        final = {"model": name, "created_at": now, "message": message, "done": True,
                 "done_reason": "stop", "total_duration": load_ns + 20_000_000,
                 "load_duration": load_ns, "prompt_eval_count": 1,
                 "prompt_eval_duration": 5_000_000, "eval_count": 1, "eval_duration": 10_000_000}
        if body.get("stream", True) is False:
            self._send_json(200, final)
            return
        self._ndjson_start()
        self._ndjson({"model": name, "created_at": now, "message": message, "done": False})
        self._ndjson(dict(final, message={"role": "assistant", "content": ""}))


    # ---------------------------------------------------- Google Gemini API
    def _gemini(self, body, stream):
        turn = self._turn(gemini_turn, body, "gemini")
        gen = body.get("generationConfig") or {}
        if turn and turn[0] == "tool":
            parts = [{"functionCall": {"name": turn[2], "args": turn[3]}}]
        elif gen.get("responseMimeType") == "application/json":
            parts = [{"text": json.dumps(_value_of(gen.get("responseJsonSchema")
                                                   or gen.get("responseSchema")))}]
        else:
            text = result_reply(turn[1]) if turn else self.reply
            parts = [{"text": text}]
        model = self.path.split("?", 1)[0].rsplit("/", 1)[-1].split(":", 1)[0] or "mock-model"
        resp = {"candidates": [{"content": {"role": "model", "parts": parts},
                                "finishReason": "STOP", "index": 0}],
                "usageMetadata": {"promptTokenCount": 1, "candidatesTokenCount": 1,
                                  "totalTokenCount": 2},
                "modelVersion": model, "responseId": _id("gem_")}
        if not stream:
            self._send_json(200, resp)
            return
        self._start_sse()
        self._sse(None, resp)


class Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True
    request_queue_size = 64


def main(argv=None):
    ap = argparse.ArgumentParser(description="Mock Anthropic/OpenAI model gateway for tests.")
    ap.add_argument("--listen", default="127.0.0.1", help="address to bind (default 127.0.0.1)")
    ap.add_argument("--port", type=int, default=8080, help="TCP port (0 picks a free one)")
    ap.add_argument("--reply", default="pong", help="text every model call answers")
    ap.add_argument("--no-websocket", action="store_true",
                    help="refuse WebSocket upgrades (404), like a plain HTTP gateway")
    ap.add_argument("--tool-command", metavar="CMD",
                    help="scripted mode: answer the first turn with a shell tool call running "
                         "CMD, the next with text quoting its output")
    ap.add_argument("--dump-dir", metavar="DIR",
                    help="write every model request body to DIR/NNN.json")
    ap.add_argument("--log", help="append one line per request (METHOD PATH STATUS) here")
    ap.add_argument("--speaks", default="anthropic,chat,responses,gemini",
                    help="comma-separated APIs served: anthropic, chat, responses, ollama, gemini"
                         " (gemini: GET /v1beta/models answers)")
    ap.add_argument("--call-tools", action="store_true",
                    help="answer a request that offers tools with a call of the first one")
    ap.add_argument("--require-key", metavar="KEY",
                    help="refuse (401) a model call that does not carry KEY")
    ap.add_argument("--models", default="",
                    help="installed models: NAME[:tag][+tools],... (+tools: it calls tools)")
    ap.add_argument("--pullable", default="", help="models /api/pull can fetch: NAME,...")
    ap.add_argument("--load-seconds", type=float, default=0.2,
                    help="time a cold model takes to load on its first /api/chat")
    ap.add_argument("--max-seconds", type=float, default=600.0,
                    help="exit by itself after this many seconds (default 600)")
    args = ap.parse_args(argv)
    if not 0 <= args.port <= 65535:
        ap.error("--port must be 0..65535")
    if not 0 < args.max_seconds <= 86400:
        ap.error("--max-seconds must be in (0, 86400]")

    Handler.reply = args.reply
    Handler.websocket = not args.no_websocket
    Handler.tool_command = args.tool_command
    Handler.dump_dir = args.dump_dir
    speaks = tuple(x for x in args.speaks.split(",") if x)
    for x in speaks:
        if x not in ("anthropic", "chat", "responses", "ollama", "gemini"):
            ap.error("--speaks: unknown API %r" % x)
    Handler.speaks = speaks
    Handler.call_tools = args.call_tools
    Handler.require_key = args.require_key or None
    Handler.models = {}
    for m in (x for x in args.models.split(",") if x):
        name, tools = (m[:-6], True) if m.endswith("+tools") else (m, False)
        Handler.models[name] = ["completion", "tools"] if tools else ["completion"]
    Handler.pullable = tuple(x for x in args.pullable.split(",") if x)
    Handler.load_seconds = max(0.0, min(args.load_seconds, 30.0))
    if args.log:
        Handler.log_file = open(args.log, "a", encoding="utf-8")

    Server.address_family = socket.AF_INET6 if ":" in args.listen else socket.AF_INET
    httpd = Server((args.listen, args.port), Handler)
    stop = threading.Event()

    def on_signal(signum, _frame):
        stop.set()

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)

    worker = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.2},
                              daemon=True)
    worker.start()
    host, port = httpd.server_address[:2]
    print("mock_gateway listening on %s %d" % (host, port), flush=True)

    expired = not stop.wait(args.max_seconds)
    if expired:
        sys.stderr.write("mock_gateway: --max-seconds reached, exiting\n")
    httpd.shutdown()
    httpd.server_close()
    worker.join(5)
    if Handler.log_file is not None:
        Handler.log_file.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
