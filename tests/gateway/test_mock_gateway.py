#!/usr/bin/env python3
"""Self-test of mock_gateway.py on loopback (stdlib only, no CLI needed).

usage: python3 tests/gateway/test_mock_gateway.py
"""

import base64
import http.client
import json
import os
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
GATEWAY = os.path.join(HERE, "mock_gateway.py")
REPLY = "pong from the self-test"


def start(*extra):
    log = tempfile.NamedTemporaryFile(prefix="mock-gw-", suffix=".log", delete=False)
    log.close()
    proc = subprocess.Popen(
        [sys.executable, GATEWAY, "--listen", "127.0.0.1", "--port", "0", "--reply", REPLY,
         "--log", log.name, "--max-seconds", "60", *extra],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    line = proc.stdout.readline()  # "mock_gateway listening on HOST PORT"
    if "listening" not in line:
        proc.kill()
        raise RuntimeError("gateway did not start: %r" % line)
    return proc, int(line.split()[-1]), log.name


def stop(proc, log, signum=signal.SIGTERM):
    """Stops the gateway (unless it already ended) and returns its exit status."""
    if proc.poll() is None:
        proc.send_signal(signum)
    rc = proc.wait(10)
    proc.stdout.close()
    os.unlink(log)
    return rc


def sse_events(raw):
    events = []
    for block in raw.decode().split("\n\n"):
        data = [l[6:] for l in block.splitlines() if l.startswith("data: ")]
        if data:
            events.append(data[0])
    return events


class Gateway(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.proc, cls.port, cls.log = start()

    @classmethod
    def tearDownClass(cls):
        stop(cls.proc, cls.log)

    def request(self, method, path, body=None, headers=None):
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=10)
        data = json.dumps(body).encode() if body is not None else None
        conn.request(method, path, body=data, headers=headers or {})
        resp = conn.getresponse()
        out = resp.status, resp.getheader("Content-Type"), resp.read()
        conn.close()
        return out

    def test_anthropic_json(self):
        status, _, raw = self.request("POST", "/v1/messages", {"model": "m", "max_tokens": 5})
        self.assertEqual(status, 200)
        self.assertEqual(json.loads(raw)["content"][0]["text"], REPLY)

    def test_anthropic_sse(self):
        status, ctype, raw = self.request("POST", "/v1/messages?beta=true",
                                          {"model": "m", "stream": True})
        self.assertEqual((status, ctype), (200, "text/event-stream"))
        events = [json.loads(e) for e in sse_events(raw)]
        self.assertEqual(events[0]["type"], "message_start")
        self.assertEqual(events[-1]["type"], "message_stop")
        text = "".join(e["delta"]["text"] for e in events if e["type"] == "content_block_delta")
        self.assertEqual(text, REPLY)

    def test_count_tokens_and_prefix(self):
        status, _, raw = self.request("POST", "/gw/anthropic/v1/messages/count_tokens", {})
        self.assertEqual(status, 200)
        self.assertIn("input_tokens", json.loads(raw))

    def test_responses_json_and_sse(self):
        status, _, raw = self.request("POST", "/v1/responses", {"model": "m"})
        self.assertEqual(status, 200)
        self.assertEqual(json.loads(raw)["output"][0]["content"][0]["text"], REPLY)
        status, _, raw = self.request("POST", "/responses", {"model": "m", "stream": True})
        events = [json.loads(e) for e in sse_events(raw)]
        self.assertEqual(events[-1]["type"], "response.completed")
        self.assertEqual(events[-1]["response"]["output"][0]["content"][0]["text"], REPLY)

    def test_chat_completions(self):
        status, _, raw = self.request("POST", "/v1/chat/completions", {"model": "m"})
        self.assertEqual(json.loads(raw)["choices"][0]["message"]["content"], REPLY)
        status, _, raw = self.request("POST", "/v1/chat/completions",
                                      {"model": "m", "stream": True,
                                       "stream_options": {"include_usage": True}})
        events = sse_events(raw)
        self.assertEqual(events[-1], "[DONE]")
        chunks = [json.loads(e) for e in events[:-1]]
        text = "".join(c["choices"][0]["delta"].get("content", "")
                       for c in chunks if c["choices"])
        self.assertEqual(text, REPLY)
        self.assertIn("usage", chunks[-1])

    def test_unknown_paths(self):
        status, _, raw = self.request("GET", "/nothing/here")
        self.assertEqual(status, 404)
        self.assertEqual(json.loads(raw)["type"], "error")
        self.assertEqual(self.request("POST", "/v1/other", {})[0], 404)
        self.assertEqual(self.request("HEAD", "/")[0], 200)
        self.assertEqual(json.loads(self.request("GET", "/v1/models")[2])["data"], [])
        self.assertEqual(self.request("GET", "/v1beta/models")[0], 200)  # the default speaks gemini too

    def test_websocket_responses(self):
        sock = socket.create_connection(("127.0.0.1", self.port), timeout=10)
        key = base64.b64encode(os.urandom(16)).decode()
        sock.sendall(("GET /v1/responses HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\n"
                      "Connection: Upgrade\r\nSec-WebSocket-Version: 13\r\n"
                      "Sec-WebSocket-Key: %s\r\n\r\n" % key).encode())
        f = sock.makefile("rb")
        self.assertIn(b" 101 ", f.readline())
        for _ in range(50):
            if f.readline() in (b"\r\n", b""):
                break
        payload = json.dumps({"type": "response.create", "model": "m"}).encode()
        mask = os.urandom(4)
        masked = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
        sock.sendall(bytes([0x81, 0x80 | 126]) + struct.pack("!H", len(payload)) + mask + masked)
        types = []
        for _ in range(50):
            head = f.read(2)
            n = head[1] & 0x7F
            if n == 126:
                n = struct.unpack("!H", f.read(2))[0]
            elif n == 127:
                n = struct.unpack("!Q", f.read(8))[0]
            event = json.loads(f.read(n))
            types.append(event["type"])
            if event["type"] == "response.completed":
                self.assertEqual(event["response"]["output"][0]["content"][0]["text"], REPLY)
                break
        self.assertEqual(types[0], "response.created")
        self.assertEqual(types[-1], "response.completed")
        sock.close()

    def test_zz_log_lines(self):
        self.request("POST", "/v1/messages", {"model": "m"})
        with open(self.log) as fh:
            lines = fh.read().splitlines()
        self.assertIn("POST /v1/messages 200", lines)


CMD = "id -u > /workspace/x; echo 'done'"
BASH_TOOL = {"name": "Bash", "description": "run",
             "input_schema": {"type": "object", "properties": {
                 "command": {"type": "string"}, "description": {"type": "string"}},
                 "required": ["command"]}}
EXEC_DESCRIPTION = ("Run JavaScript code\n### `exec_command`\n```ts\ndeclare const tools: "
                    "{ exec_command(args: {\n  // Shell command to execute.\n  cmd: string;\n"
                    "  tty?: boolean;\n}): Promise<{ output: string; }>; };\n```")
CODEX_TOOLS = {"type": "additional_tools", "role": "developer", "tools": [
    {"type": "namespace", "name": "functions", "tools": [
        {"type": "custom", "name": "exec", "description": EXEC_DESCRIPTION,
         "format": {"type": "grammar", "syntax": "lark", "definition": "start: /[\\s\\S]+/"}},
        {"type": "function", "name": "wait", "parameters": {"type": "object", "properties": {}}}]}]}


class Scripted(Gateway):
    """--tool-command: a shell tool call first, then text quoting the result."""

    @classmethod
    def setUpClass(cls):
        cls.proc, cls.port, cls.log = start("--tool-command", CMD)

    def test_anthropic_tool_use_then_result(self):
        body = {"model": "m", "max_tokens": 5, "tools": [{"name": "Read", "input_schema": {}}, BASH_TOOL],
                "messages": [{"role": "user", "content": "go"}]}
        status, _, raw = self.request("POST", "/v1/messages", body)
        msg = json.loads(raw)
        self.assertEqual(msg["stop_reason"], "tool_use")
        block = msg["content"][0]
        self.assertEqual((block["type"], block["name"], block["input"]["command"]), ("tool_use", "Bash", CMD))
        # streamed: the arguments arrive as one input_json_delta
        _, _, raw = self.request("POST", "/v1/messages", dict(body, stream=True))
        events = [json.loads(e) for e in sse_events(raw)]
        self.assertEqual(events[1]["content_block"]["type"], "tool_use")
        args = json.loads(events[3]["delta"]["partial_json"])
        self.assertEqual(args["command"], CMD)
        self.assertEqual(events[-2]["delta"]["stop_reason"], "tool_use")
        body["messages"] += [
            {"role": "assistant", "content": [dict(block)]},
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": block["id"],
                                          "content": [{"type": "text", "text": "uid=1000"}]}]}]
        _, _, raw = self.request("POST", "/v1/messages", body)
        self.assertIn("uid=1000", json.loads(raw)["content"][0]["text"])
        with open(self.log) as fh:
            text = fh.read()
        self.assertIn("TOOL_CALL anthropic Bash", text)
        self.assertIn('TOOL_RESULT "uid=1000"', text)

    def test_no_shell_tool_gets_plain_reply(self):
        _, _, raw = self.request("POST", "/v1/messages", {"model": "m", "messages": []})
        self.assertEqual(json.loads(raw)["content"][0]["text"], REPLY)

    def test_responses_codex_exec(self):
        body = {"model": "m", "stream": True, "input": [CODEX_TOOLS, {"type": "message", "role": "user",
                                                                      "content": [{"type": "input_text", "text": "go"}]}]}
        _, _, raw = self.request("POST", "/v1/responses", body)
        events = [json.loads(e) for e in sse_events(raw)]
        item = events[-1]["response"]["output"][0]
        self.assertEqual((item["type"], item["name"]), ("custom_tool_call", "exec"))
        self.assertIn("tools.exec_command({cmd: %s})" % json.dumps(CMD), item["input"])
        self.assertIn("response.custom_tool_call_input.done", [e["type"] for e in events])
        body = {"model": "m", "input": [{"type": "custom_tool_call_output", "call_id": item["call_id"],
                                         "output": "Output:\nuid=1000\n"}]}
        _, _, raw = self.request("POST", "/v1/responses", body)
        self.assertIn("uid=1000", json.loads(raw)["output"][0]["content"][0]["text"])

    def test_responses_function_shell(self):
        tool = {"type": "function", "name": "shell", "parameters": {"type": "object", "properties": {
            "command": {"type": "array", "items": {"type": "string"}}}}}
        _, _, raw = self.request("POST", "/v1/responses", {"model": "m", "tools": [tool], "input": []})
        item = json.loads(raw)["output"][0]
        self.assertEqual(item["type"], "function_call")
        self.assertEqual(json.loads(item["arguments"])["command"], ["bash", "-lc", CMD])

    # The plain-mode expectations of the base class do not apply here.
    test_anthropic_json = test_anthropic_sse = test_responses_json_and_sse = None
    test_chat_completions = test_websocket_responses = test_zz_log_lines = None
    test_count_tokens_and_prefix = test_unknown_paths = None


class Lifetime(unittest.TestCase):
    def test_sigterm_exits_zero(self):
        proc, _, log = start()
        self.assertEqual(stop(proc, log), 0)

    def test_max_seconds(self):
        t0 = time.time()
        proc, _, log = start("--max-seconds", "1")
        self.assertEqual(proc.wait(10), 0)
        self.assertLess(time.time() - t0, 8)
        stop(proc, log)

    def test_no_websocket(self):
        proc, port, log = start("--no-websocket")
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        conn.request("GET", "/v1/responses", headers={
            "Upgrade": "websocket", "Connection": "Upgrade",
            "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ==", "Sec-WebSocket-Version": "13"})
        self.assertEqual(conn.getresponse().status, 404)
        conn.close()
        stop(proc, log)


class Server(unittest.TestCase):
    """A mock started per class, without Gateway's own tests."""
    request = Gateway.request

    @classmethod
    def tearDownClass(cls):
        stop(cls.proc, cls.log)


WEATHER = {"type": "function", "function": {"name": "get_weather", "parameters": {
    "type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}}


class ChatScripted(Server):
    """Chat Completions tool calls in scripted mode, JSON and SSE."""

    @classmethod
    def setUpClass(cls):
        cls.proc, cls.port, cls.log = start("--tool-command", CMD)

    def test_chat_tool_call_then_result(self):
        tool = {"type": "function", "function": {"name": "bash", "parameters": {
            "type": "object", "properties": {"command": {"type": "string"}}}}}
        body = {"model": "m", "tools": [tool], "messages": [{"role": "user", "content": "go"}]}
        st, _, raw = self.request("POST", "/v1/chat/completions", body)
        msg = json.loads(raw)["choices"][0]
        self.assertEqual(msg["finish_reason"], "tool_calls")
        call = msg["message"]["tool_calls"][0]
        self.assertEqual(json.loads(call["function"]["arguments"]), {"command": CMD})
        body["messages"] += [msg["message"], {"role": "tool", "tool_call_id": call["id"], "content": "42"}]
        st, _, raw = self.request("POST", "/v1/chat/completions", dict(body, stream=True))
        self.assertIn("the tool printed: 42", raw.decode())


class Ollama(Server):
    """--speaks ollama,chat: the native API, models, pulls, load times, keys."""

    @classmethod
    def setUpClass(cls):
        cls.proc, cls.port, cls.log = start(
            "--speaks", "ollama,chat", "--models", "qwen3:8b+tools,gemma:2b", "--pullable", "llama3.2",
            "--call-tools", "--load-seconds", "0.3")

    def test_speaks_only_what_it_is_told(self):
        self.assertEqual(self.request("POST", "/v1/messages", {"model": "m"})[0], 404)
        self.assertEqual(self.request("POST", "/v1/responses", {"model": "m"})[0], 404)
        # Gemini's model list only where gemini is spoken (the probe counts it as the Gemini API)
        self.assertEqual(self.request("GET", "/v1beta/models")[0], 404)
        self.assertEqual(self.request("GET", "/")[2], b"Ollama is running")

    def test_tags_show_ps(self):
        tags = json.loads(self.request("GET", "/api/tags")[2])
        self.assertLessEqual({"gemma:2b", "qwen3:8b"}, {m["name"] for m in tags["models"]})
        show = json.loads(self.request("POST", "/api/show", {"model": "qwen3:8b"})[2])
        self.assertIn("tools", show["capabilities"])
        self.assertEqual(self.request("POST", "/api/show", {"model": "nope"})[0], 404)

    def test_chat_cold_then_loaded_and_tool_call(self):
        body = {"model": "qwen3:8b", "stream": False, "tools": [WEATHER],
                "messages": [{"role": "user", "content": "weather?"}]}
        first = json.loads(self.request("POST", "/api/chat", body)[2])
        self.assertGreater(first["load_duration"], 0)
        self.assertEqual(first["message"]["tool_calls"][0]["function"], {"name": "get_weather", "arguments": {"city": "ok"}})
        second = json.loads(self.request("POST", "/api/chat", body)[2])
        self.assertEqual(second["load_duration"], 0)
        ps = json.loads(self.request("GET", "/api/ps")[2])
        self.assertIn("qwen3:8b", [m["name"] for m in ps["models"]])

    def test_plain_model_answers_tools_in_text(self):
        body = {"model": "gemma:2b", "stream": False, "tools": [WEATHER],
                "messages": [{"role": "user", "content": "weather?"}]}
        out = json.loads(self.request("POST", "/api/chat", body)[2])
        self.assertNotIn("tool_calls", out["message"])
        self.assertEqual(out["message"]["content"], REPLY)

    def test_missing_model(self):
        st, _, raw = self.request("POST", "/api/chat", {"model": "absent", "messages": []})
        self.assertEqual(st, 404)
        self.assertIn("try pulling it first", json.loads(raw)["error"])

    def test_pull_progress_and_unknown(self):
        st, ctype, raw = self.request("POST", "/api/pull", {"model": "llama3.2"})
        lines = [json.loads(l) for l in raw.decode().splitlines()]
        self.assertEqual(ctype, "application/x-ndjson")
        self.assertEqual(lines[-1], {"status": "success"})
        self.assertTrue(any(l.get("completed") == l.get("total") and "total" in l for l in lines))
        self.assertIn("llama3.2", [m["name"] for m in json.loads(self.request("GET", "/api/tags")[2])["models"]])
        raw = self.request("POST", "/api/pull", {"model": "nope"})[2]
        self.assertIn("error", json.loads(raw.decode().splitlines()[-1]))

    def test_chat_completions_call_tools(self):
        body = {"model": "qwen3:8b", "tools": [WEATHER], "messages": [{"role": "user", "content": "w"}]}
        out = json.loads(self.request("POST", "/v1/chat/completions", body)[2])
        self.assertEqual(out["choices"][0]["message"]["tool_calls"][0]["function"]["name"], "get_weather")

    def test_zz_headers_logged(self):
        self.request("GET", "/api/tags", headers={"X-Probe": "seen"})
        for _ in range(50):  # the line is written just after the answer
            with open(self.log) as fh:
                text = fh.read()
            if "X-Probe" in text:
                break
            time.sleep(0.05)
        self.assertIn('"X-Probe": "seen"', text)


class RequireKey(Server):
    @classmethod
    def setUpClass(cls):
        cls.proc, cls.port, cls.log = start("--require-key", "k-123")

    def test_key_required(self):
        body = {"model": "m", "max_tokens": 5, "messages": [{"role": "user", "content": "hi"}]}
        st, _, raw = self.request("POST", "/v1/messages", body)
        self.assertEqual((st, json.loads(raw)["error"]["type"]), (401, "authentication_error"))
        self.assertEqual(self.request("POST", "/v1/messages", body, {"x-api-key": "k-123"})[0], 200)
        self.assertEqual(self.request("POST", "/v1/chat/completions", body,
                                      {"Authorization": "Bearer k-123"})[0], 200)
        self.assertEqual(self.request("POST", "/v1/chat/completions", body,
                                      {"Authorization": "Bearer wrong"})[0], 401)


if __name__ == "__main__":
    unittest.main(verbosity=2)
