#!/usr/bin/python3
"""Pins deploy/kubernetes/ to the image a build made (issue 24, docs/release.md).

  pin-manifests.py DIGESTS [--image NAME] [--repository REPO] [--dir DIR]

DIGESTS is build/release/digests.tsv (image/release/release.sh): IMAGE <TAB>
DIGEST <TAB> PUSHED-REFERENCE <TAB> SIGNED-COPY <TAB> SIGNATURE.  The line of
NAME (default: the first line, which is the all-in-one image when
image/build.sh built it) gives the reference: the pushed one (REPO@DIGEST, the
registry's digest) when the build pushed, else REPO@DIGEST with REPO from
--repository or the manifests' own: DIGEST is the signed copy's, which a push
of that copy keeps.
Both containers of the Job and of the SandboxTemplate, and the three of the
interactive pod, get it; nothing else in the files changes.  Then
`tests/kube/manifests.py validate DIR` (and validate-interactive) still holds.
"""

import argparse
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
# Each file with its image lines by digest: the firewall and the agent; the interactive pod
# also its resolver sidecar (all three run the one image).
FILES = (("job.yaml", 2), ("sandboxtemplate.yaml", 2), (os.path.join("interactive", "pod.yaml"), 3))
IMAGE_LINE = re.compile(r"^(\s+image:\s+)(\S+?)@sha256:[0-9a-f]{64}(\s*)$", re.M)
DIGEST = re.compile(r"^sha256:[0-9a-f]{64}$")


def die(msg):
    sys.exit("pin-manifests.py: " + msg)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("digests")
    ap.add_argument("--image", help="the image's name as built (default: the first line)")
    ap.add_argument("--repository", help="the repository the platform pulls from")
    ap.add_argument("--dir", default=os.path.join(HERE, "..", "..", "deploy", "kubernetes"))
    a = ap.parse_args()

    rows = []
    with open(a.digests, encoding="utf-8") as f:
        for line in f:
            fields = line.rstrip("\n").split("\t")
            if len(fields) >= 2:
                rows.append((fields + [""])[:3])
    chosen = [r for r in rows if a.image in (None, r[0])]
    if not chosen:
        die("no line for %s in %s" % (a.image or "any image", a.digests))
    name, digest, pushed = chosen[0]
    if not DIGEST.match(digest):
        die("%s: '%s' is not a sha256 digest" % (name, digest))

    for file, want in FILES:
        path = os.path.join(a.dir, file)
        with open(path, encoding="utf-8") as f:
            text = f.read()
        if pushed:
            ref = pushed
        else:
            repos = {m.group(2) for m in IMAGE_LINE.finditer(text)}
            repo = a.repository or (repos.pop() if len(repos) == 1 else None)
            if not repo:
                die("%s: say --repository (the manifests name %s)" % (file, sorted(repos) or "no image"))
            ref = "%s@%s" % (repo, digest)
        text, n = IMAGE_LINE.subn(lambda m: m.group(1) + ref + m.group(3), text)
        if n != want:
            die("%s: %d image lines by digest, expected %d (the firewall, the agent%s)" % (file, n, want, ", the resolver" if want == 3 else ""))
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
        print("pinned %s: %s (built as %s)" % (path, ref, name))
    if not pushed:
        print("pin-manifests.py: note: %s was not pushed; %s is its signed copy's digest, which the registry "
              "holds once that copy is pushed (skopeo copy dir:COPY docker://REPO:TAG, or a build with "
              "CLI_SANDBOX_PUSH set)" % (name, digest), file=sys.stderr)


if __name__ == "__main__":
    main()
