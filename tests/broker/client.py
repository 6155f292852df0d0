#!/usr/bin/env python3
"""The broker tests' client (run in a container on the test network).

  client.py REQUESTS.json  ->  one JSON line per request on stdout

Each request: {"id", "url", "method", "headers", "body" (JSON value, or "raw": text),
"release": "http://MOCK:PORT" (a streamed answer: read until the first "data:", then ask the
mock to release the rest, then read it all)}. Each answer: {"id", "status", "body" (text),
"headers", "first_piece" (the text read before the release), "sent_sha256" (of the body sent)}.
"""
import hashlib
import http.client
import json
import sys
import urllib.parse


def run(req):
    u = urllib.parse.urlsplit(req["url"])
    conn = http.client.HTTPConnection(u.hostname, u.port, timeout=30)
    body = None
    if "raw" in req:
        body = req["raw"].encode()
    elif "body" in req:
        body = json.dumps(req["body"]).encode()
    headers = dict(req.get("headers", {}))
    if body is not None:
        headers.setdefault("content-type", "application/json")
    path = u.path + ("?" + u.query if u.query else "")
    conn.request(req.get("method", "GET"), path, body=body, headers=headers)
    resp = conn.getresponse()
    first = b""
    if req.get("release") and resp.status == 200:
        while b"data:" not in first:
            piece = resp.read1(65536)
            if not piece:
                break
            first += piece
        r = urllib.parse.urlsplit(req["release"])
        rc = http.client.HTTPConnection(r.hostname, r.port, timeout=10)
        rc.request("GET", "/release/" + headers.get("x-probe", "none"))
        rc.getresponse().read()
    rest = resp.read()
    return {"id": req["id"], "status": resp.status, "sent_sha256": hashlib.sha256(body or b"").hexdigest(), "headers": {k.lower(): v for k, v in resp.getheaders()},
            "body": (first + rest).decode("utf-8", "replace"), "first_piece": first.decode("utf-8", "replace")}


for req in json.load(open(sys.argv[1])):
    try:
        out = run(req)
    except Exception as e:  # reported, the test decides
        out = {"id": req["id"], "status": 0, "body": "client error: %r" % e, "headers": {}, "first_piece": ""}
    print(json.dumps(out), flush=True)
