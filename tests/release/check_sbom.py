#!/usr/bin/python3
"""Checks an image's SPDX SBOM against the image itself (issue 24).

  check_sbom.py SBOM ROOTFS

SBOM is the document, ROOTFS the image's file system (podman image mount).
Prints TAP lines, ends with "# N passed, N failed", exits 1 on any failure.
  - SPDX 2.3's required fields: the document's (spdxVersion, dataLicense,
    SPDXID, name, documentNamespace, creationInfo.created/creators) and each
    package's (name, SPDXID, downloadLocation), SPDXIDs well formed and
    unique, every relationship naming elements that exist, documentDescribes
    naming a package;
  - the Debian packages listed are exactly the image's, name, architecture
    and version, as `dpkg-query --admindir` reads its database (dpkg, not our
    parser);
  - the npm packages listed are exactly the name@version pairs installed
    under /usr/local/lib/node_modules (found by walking the tree), each with a
    SHA-512 integrity hash;
  - cli-sandbox-init: its SHA-256 is the file's, it STATIC_LINKs the
    build-stage packages of libnftnl, libmnl, libcap-ng, jansson and glibc, and
    libseccomp-dev (which generated its filter) is its BUILD_DEPENDENCY_OF, at
    the versions the init itself reports (--version).
"""

import datetime
import hashlib
import json
import os
import re
import subprocess
import sys

sbom_path, root = sys.argv[1], sys.argv[2]
n = failed = 0


def check(ok, what, detail=""):
    global n, failed
    n += 1
    print(("ok %d - %s" if ok else "not ok %d - %s") % (n, what))
    if not ok:
        failed += 1
        for line in str(detail).splitlines()[:20]:
            print("# " + line)


with open(sbom_path, encoding="utf-8") as f:
    doc = json.load(f)

# ---------------------------------------------------------------- SPDX 2.3 shape
missing = [k for k in ("spdxVersion", "dataLicense", "SPDXID", "name", "documentNamespace", "creationInfo")
           if not doc.get(k)]
check(not missing, "the document has SPDX 2.3's required fields", missing)
check(doc.get("spdxVersion") == "SPDX-2.3" and doc.get("dataLicense") == "CC0-1.0"
      and doc.get("SPDXID") == "SPDXRef-DOCUMENT",
      "spdxVersion SPDX-2.3, dataLicense CC0-1.0, SPDXID SPDXRef-DOCUMENT")
ns = doc.get("documentNamespace", "")
check(re.match(r"^[a-z][a-z0-9+.-]*://[^\s#]+$", ns) is not None, "documentNamespace is an absolute URI without '#'", ns)
ci = doc.get("creationInfo", {})
try:
    datetime.datetime.strptime(ci.get("created", ""), "%Y-%m-%dT%H:%M:%SZ")
    created_ok = True
except ValueError:
    created_ok = False
check(created_ok and ci.get("creators") and all(re.match(r"^(Tool|Organization|Person): .+", c)
                                                for c in ci["creators"]),
      "creationInfo: created is YYYY-MM-DDThh:mm:ssZ, creators are Tool:/Organization:/Person:", ci)
packages = doc.get("packages", [])
bad = [p.get("SPDXID", p.get("name")) for p in packages
       if not (p.get("name") and p.get("SPDXID") and p.get("downloadLocation"))]
check(packages and not bad, "%d packages, each with name, SPDXID and downloadLocation" % len(packages), bad)
ids = [p["SPDXID"] for p in packages]
check(len(ids) == len(set(ids)) and all(re.match(r"^SPDXRef-[A-Za-z0-9.-]+$", i) for i in ids),
      "SPDXIDs are unique and of SPDXRef-[A-Za-z0-9.-]+",
      [i for i in ids if ids.count(i) > 1 or not re.match(r"^SPDXRef-[A-Za-z0-9.-]+$", i)][:10])
known = set(ids) | {"SPDXRef-DOCUMENT"}
dangling = [r for r in doc.get("relationships", [])
            if r.get("spdxElementId") not in known or r.get("relatedSpdxElement") not in known
            or not r.get("relationshipType")]
check(doc.get("relationships") and not dangling, "every relationship names elements of the document", dangling[:5])
check(doc.get("documentDescribes") and all(d in known for d in doc["documentDescribes"]),
      "documentDescribes names the image's package", doc.get("documentDescribes"))
contained = {r["relatedSpdxElement"] for r in doc.get("relationships", [])
             if r.get("spdxElementId") == "SPDXRef-image" and r.get("relationshipType") == "CONTAINS"}


def purl(p):
    for ref in p.get("externalRefs", []):
        if ref.get("referenceType") == "purl":
            return ref["referenceLocator"]
    return ""


# ---------------------------------------------------------------- Debian
dpkg = subprocess.run(["dpkg-query", "--admindir=" + os.path.join(root, "var/lib/dpkg"), "-W",
                       "-f", "${db:Status-Abbrev}\t${Package}\t${Architecture}\t${Version}\n"],
                      capture_output=True, text=True)
installed = {tuple(line.split("\t")[1:]) for line in dpkg.stdout.splitlines() if line.startswith("ii")}
listed = set()
for p in packages:
    m = re.match(r"^pkg:deb/debian/([^@]+)@[^?]+\?arch=([^&]+)", purl(p))
    if m and p["SPDXID"] in contained:
        listed.add((m.group(1), m.group(2), p.get("versionInfo")))
check(dpkg.returncode == 0 and len(installed) > 50, "dpkg-query reads the image's database: %d packages" % len(installed),
      dpkg.stderr)
check(listed == installed, "the Debian packages listed are the image's installed ones, with their versions",
      "listed, not installed: %s\ninstalled, not listed: %s" % (sorted(listed - installed)[:10],
                                                               sorted(installed - listed)[:10]))

# ---------------------------------------------------------------- npm
on_disk = set()
nm_root = os.path.join(root, "usr/local/lib/node_modules")
for dirpath, dirnames, filenames in os.walk(nm_root):
    dirnames[:] = [d for d in dirnames if d != ".bin"]
    parent = os.path.basename(os.path.dirname(dirpath))
    grand = os.path.basename(os.path.dirname(os.path.dirname(dirpath)))
    base = os.path.basename(dirpath)
    if "package.json" in filenames and not base.startswith(("@", ".")) and (
            parent == "node_modules" or (parent.startswith("@") and grand == "node_modules")):
        with open(os.path.join(dirpath, "package.json"), encoding="utf-8") as f:
            meta = json.load(f)
        on_disk.add((meta.get("name"), meta.get("version")))
npm = [p for p in packages if purl(p).startswith("pkg:npm/")]
npm_listed = {(p["name"], p.get("versionInfo")) for p in npm}
if on_disk or npm:
    check(npm_listed == on_disk, "the npm packages listed are the %d name@version installed" % len(on_disk),
          "listed, not installed: %s\ninstalled, not listed: %s" % (sorted(npm_listed - on_disk)[:10],
                                                                   sorted(on_disk - npm_listed)[:10]))
    nohash = [p["name"] for p in npm
              if not any(c.get("algorithm") == "SHA512" and re.match(r"^[0-9a-f]{128}$", c.get("checksumValue", ""))
                         for c in p.get("checksums", []))]
    check(not nohash, "every npm package has its SHA-512 integrity hash", nohash)

# ---------------------------------------------------------------- the init
init_path = os.path.join(root, "usr/local/sbin/cli-sandbox-init")
init = [p for p in packages if p["SPDXID"] == "SPDXRef-cli-sandbox-init"]
if os.path.exists(init_path) or init:
    with open(init_path, "rb") as f:
        digest = hashlib.sha256(f.read()).hexdigest()
    sums = [c.get("checksumValue") for p in init for c in p.get("checksums", []) if c.get("algorithm") == "SHA256"]
    check(sums == [digest], "cli-sandbox-init is listed with its SHA-256", "%s vs %s" % (sums, digest))
    version = subprocess.run([init_path, "--version"], capture_output=True, text=True).stdout
    says = dict(line.split(" ", 1) for line in version.splitlines() if " " in line)
    linked = {r["relatedSpdxElement"] for r in doc.get("relationships", [])
              if r.get("spdxElementId") == "SPDXRef-cli-sandbox-init" and r.get("relationshipType") == "STATIC_LINK"}
    by_name = {p["name"]: p.get("versionInfo", "") for p in packages if p["SPDXID"] in linked}
    generator = {r["spdxElementId"] for r in doc.get("relationships", [])
                 if r.get("relatedSpdxElement") == "SPDXRef-cli-sandbox-init"
                 and r.get("relationshipType") == "BUILD_DEPENDENCY_OF"}
    gen_name = {p["name"]: p.get("versionInfo", "") for p in packages if p["SPDXID"] in generator}
    check(init and init[0].get("versionInfo") == says.get("commit"),
          "the init's package names the commit it reports (%s)" % says.get("commit"), init and init[0].get("versionInfo"))
    for lib, deb, rel, table in (("libnftnl", "libnftnl-dev", "STATIC_LINKs", by_name),
                                 ("libmnl", "libmnl-dev", "STATIC_LINKs", by_name),
                                 ("libcap-ng", "libcap-ng-dev", "STATIC_LINKs", by_name),
                                 ("jansson", "libjansson-dev", "STATIC_LINKs", by_name),
                                 ("glibc", "libc6-dev", "STATIC_LINKs", by_name),
                                 ("libseccomp", "libseccomp-dev", "is built with (its seccomp filter's generator)",
                                  gen_name)):
        upstream = (says.get(lib) or "?").split(" ")[0]
        have = table.get(deb, "")
        check(re.match(r"^(\d+:)?" + re.escape(upstream) + r"([-+~]|$)", have) is not None,
              "the init %s %s %s (it reports %s %s)" % (rel, deb, have or "(missing)", lib, upstream),
              sorted(table.items()))

print("1..%d" % n)
print("# %d passed, %d failed" % (n - failed, failed))
sys.exit(1 if failed else 0)
