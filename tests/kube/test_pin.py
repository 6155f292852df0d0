#!/usr/bin/python3
"""image/release/pin-manifests.py (issue 24): the digests a build printed go
into both containers of the Job and of the SandboxTemplate, the manifests still
pass manifests.py validate, and a bad digest or a missing image is refused."""

import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
DEPLOY = os.path.join(HERE, "..", "..", "deploy", "kubernetes")
PIN = os.path.join(HERE, "..", "..", "image", "release", "pin-manifests.py")
TOOL = os.path.join(HERE, "manifests.py")
D1 = "sha256:" + "1f" * 32
D2 = "sha256:" + "2e" * 32
failed = 0
n = 0


def check(ok, what, detail=""):
    global failed, n
    n += 1
    print(("ok %d - " if ok else "not ok %d - ") % n + what)
    if not ok:
        failed += 1
        for line in detail.splitlines():
            print("# " + line)


def run(*args):
    p = subprocess.run([sys.executable, *args], capture_output=True, text=True)
    return p.returncode, p.stdout + p.stderr


def images(d):
    refs = []
    for f in ("job.yaml", "sandboxtemplate.yaml", os.path.join("interactive", "pod.yaml")):
        with open(os.path.join(d, f)) as fh:
            refs += re.findall(r"^\s+image:\s+(\S+)\s*$", fh.read(), re.M)
    return refs


with tempfile.TemporaryDirectory() as tmp:
    d = os.path.join(tmp, "kubernetes")
    shutil.copytree(DEPLOY, d)
    digests = os.path.join(tmp, "digests.tsv")
    with open(digests, "w") as f:
        f.write("localhost/cli-sandbox:latest\t%s\t\n" % D1)
        f.write("localhost/cli-sandbox:codex\t%s\tregistry.example.com/cli-sandbox@%s\n" % (D2, D2))

    rc, out = run(PIN, digests, "--dir", d)
    refs = images(d)
    check(rc == 0 and refs == ["registry.example.com/cli-sandbox@" + D1] * 7,
          "the first image's digest is in all seven containers, the manifests' repository kept", out + "\n".join(refs))
    rc, out = run(TOOL, "validate", d)
    check(rc == 0, "the pinned manifests pass manifests.py validate", out)
    rc, out = run(TOOL, "validate-interactive", os.path.join(d, "interactive"))
    check(rc == 0, "the pinned interactive pod passes manifests.py validate-interactive", out)

    rc, out = run(PIN, digests, "--dir", d, "--image", "localhost/cli-sandbox:codex")
    check(rc == 0 and images(d) == ["registry.example.com/cli-sandbox@" + D2] * 7,
          "a pushed image: its registry reference is pinned", out)
    rc, out = run(PIN, digests, "--dir", d, "--image", "localhost/cli-sandbox:latest",
                  "--repository", "registry.example.org/team/cli-sandbox")
    check(rc == 0 and images(d) == ["registry.example.org/team/cli-sandbox@" + D1] * 7,
          "--repository names where the platform pulls from", out)
    rc, out = run(TOOL, "validate", d)
    check(rc == 0, "still valid after pinning twice", out)

    rc, out = run(PIN, digests, "--dir", d, "--image", "localhost/cli-sandbox:pi")
    check(rc != 0 and "no line for localhost/cli-sandbox:pi" in out, "an image the build did not make is refused", out)
    with open(digests, "w") as f:
        f.write("localhost/cli-sandbox:latest\tsha256:abc\t\n")
    before = images(d)
    rc, out = run(PIN, digests, "--dir", d)
    check(rc != 0 and "not a sha256 digest" in out and images(d) == before,
          "a malformed digest is refused and nothing changes", out)

print("1..%d" % n)
print("# %d passed, %d failed" % (n - failed, failed))
sys.exit(1 if failed else 0)
