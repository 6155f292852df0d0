#!/usr/bin/python3
"""The signature policy for what this build made (issue 24, docs/release.md).

  policy.py EXAMPLE OUT KEY [--dir PATH IDENTITY]... [--docker REPOSITORY]...

Writes OUT (build/signing/policy.json): a containers-policy.json(5) that accepts
the signed copy at each PATH (the dir: transport) only when signed by KEY for
IDENTITY, and each pushed REPOSITORY (the docker: transport) only when signed by
KEY for the digest or tag pulled; anything else is rejected (the file is for our
images, `podman pull --signature-policy OUT ...`).  The rules are the shipped
EXAMPLE's (deploy/signing/policy.json), with only the key path, the scope and
the identity changed, so the two cannot drift apart.  Entries already in OUT for
other images (an earlier build's) are kept.
"""

import argparse
import copy
import json
import os
import sys


def template(example, transport):
    scopes = example["transports"][transport]
    return next(iter(scopes.values()))[0]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("example")
    ap.add_argument("out")
    ap.add_argument("key")
    ap.add_argument("--dir", nargs=2, action="append", default=[], metavar=("PATH", "IDENTITY"))
    ap.add_argument("--docker", action="append", default=[], metavar="REPOSITORY")
    a = ap.parse_args()
    with open(a.example, encoding="utf-8") as f:
        example = json.load(f)
    policy = {"default": [{"type": "reject"}], "transports": {}}
    if os.path.exists(a.out):
        with open(a.out, encoding="utf-8") as f:
            policy = json.load(f)
    for path, identity in a.dir:
        rule = copy.deepcopy(template(example, "dir"))
        rule["keyPath"] = a.key
        rule["signedIdentity"]["dockerReference"] = identity
        policy["transports"].setdefault("dir", {})[os.path.abspath(path)] = [rule]
    for repo in a.docker:
        rule = copy.deepcopy(template(example, "docker"))
        rule["keyPath"] = a.key
        policy["transports"].setdefault("docker", {})[repo] = [rule]
    with open(a.out + ".new", "w", encoding="utf-8") as f:
        json.dump(policy, f, indent=1)
        f.write("\n")
    os.replace(a.out + ".new", a.out)


if __name__ == "__main__":
    sys.exit(main())
