#!/usr/bin/env python3
"""make_ranges.py MODE DIR [N]: writes provider range files for the benchmark.

  big DIR N    goog.json with N pseudo-random IPv4 prefixes (/16../32, anywhere
               in 1.0.0.0-223.255.255.255 outside the blocks no profile may
               allow; overlapping and adjacent ones included), and an
               interactive.json override that takes only that file on port 443
               and names no domain, so a start resolves nothing.
  provider DIR github-meta.json, goog.json and cloud.json shaped and sized
               like the providers' published documents (GitHub's meta with
               its web/api/git lists and the large actions list the profile
               does not read; Google's goog.json of large blocks and
               cloud.json of thousands of smaller blocks mostly inside them),
               for the built-in interactive profile.  There is no network to
               the providers here, so the addresses are made up, but the sizes
               and the subtraction cloud.json forces on goog.json are real.

The output is the same for the same arguments (a fixed seed)."""
import json
import os
import random
import sys

FORBIDDEN_FIRST_OCTETS = {0, 10, 127, 169}  # 10/8 only to keep clear of private use


def prefix(rng, lo, hi):
    length = rng.randint(lo, hi)
    while True:
        first = rng.randint(1, 223)
        if first not in FORBIDDEN_FIRST_OCTETS:
            break
    addr = first << 24 | rng.getrandbits(24)
    addr &= (0xFFFFFFFF << (32 - length)) & 0xFFFFFFFF
    return addr, length


def text(addr, length):
    return "%d.%d.%d.%d/%d" % (addr >> 24, addr >> 16 & 255, addr >> 8 & 255, addr & 255, length)


def v6(rng, n):
    return ["2001:db8:%x:%x::/64" % (rng.getrandbits(16), rng.getrandbits(16)) for _ in range(n)]


def google(prefixes, ipv6, cloud):
    out = []
    for p in prefixes:
        e = {"ipv4Prefix": p}
        if cloud:
            e.update(service="Google Cloud", scope="us-central1")
        out.append(e)
    for p in ipv6:
        e = {"ipv6Prefix": p}
        if cloud:
            e.update(service="Google Cloud", scope="europe-west1")
        out.append(e)
    return {"syncToken": "1700000000000", "creationTime": "2026-01-01T00:00:00.000000", "prefixes": out}


def write(d, name, doc):
    with open(os.path.join(d, name), "w") as f:
        json.dump(doc, f, indent=2)
        f.write("\n")


def big(d, n):
    rng = random.Random(2463534242)
    write(d, "goog.json", google([text(*prefix(rng, 16, 32)) for _ in range(n)], [], False))
    write(d, "interactive.json", {
        "version": 1,
        "comment": "benchmark: one large range file, no names",
        "common": {"ranges": [{"file": "goog.json", "format": "google", "ports": [443]}]},
    })


def provider(d):
    rng = random.Random(1700000000)
    # Google: ~90 large IPv4 blocks (/9../19) and ~40 IPv6; Cloud: ~900
    # IPv4 blocks (/14../24), nine in ten carved out of Google's blocks,
    # and ~700 IPv6.
    goog = [prefix(rng, 9, 19) for _ in range(90)]
    cloud = []
    for _ in range(900):
        if rng.random() < 0.9:
            base, blen = rng.choice(goog)
            length = rng.randint(max(blen, 14), 24)
            addr = base | (rng.getrandbits(32 - blen) & ((1 << (32 - blen)) - 1))
            addr &= (0xFFFFFFFF << (32 - length)) & 0xFFFFFFFF
            cloud.append((addr, length))
        else:
            cloud.append(prefix(rng, 14, 24))
    write(d, "goog.json", google([text(*p) for p in goog], v6(rng, 40), False))
    write(d, "cloud.json", google([text(*p) for p in cloud], v6(rng, 700), True))
    # GitHub meta: web/api/git a few dozen each (IPv4 and IPv6), actions
    # several thousand, the other lists smaller.
    def lst(n4, n6, lo=20, hi=32):
        return [text(*prefix(rng, lo, hi)) for _ in range(n4)] + v6(rng, n6)
    meta = {
        "verifiable_password_authentication": False,
        "ssh_key_fingerprints": {"SHA256_ECDSA": "bench", "SHA256_ED25519": "bench", "SHA256_RSA": "bench"},
        "ssh_keys": ["ssh-ed25519 AAAAbench"],
        "hooks": lst(4, 4),
        "web": lst(22, 8),
        "api": lst(36, 10),
        "git": lst(30, 8),
        "github_enterprise_importer": lst(8, 0),
        "packages": lst(18, 4),
        "pages": lst(6, 4),
        "importer": lst(4, 0),
        "actions": lst(4200, 600, 14, 28),
        "actions_macos": lst(6, 0),
        "codespaces": lst(40, 0),
        "dependabot": lst(2, 0),
        "copilot": lst(6, 0),
        "domains": {"website": ["*.github.com"], "codespaces": ["*.github.dev"]},
    }
    write(d, "github-meta.json", meta)


def main():
    if len(sys.argv) < 3 or sys.argv[1] not in ("big", "provider"):
        sys.exit(__doc__)
    if sys.argv[1] == "big":
        big(sys.argv[2], int(sys.argv[3]) if len(sys.argv) > 3 else 50000)
    else:
        provider(sys.argv[2])


main()
