#!/usr/bin/python3
"""The SPDX 2.3 bill of materials of one image (issue 24, docs/release.md).

  spdx.py ROOTFS --name IMAGE --commit COMMIT --epoch SOURCE_DATE_EPOCH > sbom.spdx.json

ROOTFS is the image's file system (image/build.sh mounts it read-only with
`podman image mount`).  The document has one package for the image, which
CONTAINS:
  - every Debian package of the image's dpkg database (status "install ok
    installed"), name, version, architecture and source, as a purl;
  - every npm package of each CLI: npm's own SPDX documents
    (usr/local/share/doc/cli-sandbox/npm/CLI.spdx.json, image/release/npm-sbom.sh)
    with version, resolved URL and integrity hash, each kept only where its
    package.json is on disk with that version;
  - cli-sandbox-init, with its SHA-256 and commit, which STATIC_LINKs the
    Debian packages of the build stage that ship the archives it links; the
    one whose archive built its seccomp filter (libseccomp-dev) is its
    BUILD_DEPENDENCY_OF (usr/share/doc/cli-sandbox/init-archives.tsv,
    image/release/init-archives.sh).
Nothing in Debian 12 or 13 writes SPDX from a dpkg database, so this part is
ours; npm's part is npm's.  The output depends only on the image and the
arguments: the same image gives the same bytes.
"""

import argparse
import hashlib
import json
import os
import re
import sys
import time
import urllib.parse

NPM_DOCS = "usr/local/share/doc/cli-sandbox/npm"
NPM_ROOT = "usr/local/lib"
INIT = "usr/local/sbin/cli-sandbox-init"
INIT_ARCHIVES = "usr/share/doc/cli-sandbox/init-archives.tsv"


def spdx_id(*parts):
    """An SPDXID: letters, digits, '.' and '-' only."""
    return "SPDXRef-" + re.sub(r"[^A-Za-z0-9.-]+", "-", "-".join(parts)).strip("-")


def dpkg_packages(root):
    """The dpkg status file's installed packages, as dicts of its fields."""
    path = os.path.join(root, "var/lib/dpkg/status")
    if not os.path.exists(path):
        return []
    out = []
    with open(path, encoding="utf-8", errors="replace") as f:
        for para in f.read().split("\n\n"):
            fields, key = {}, None
            for line in para.splitlines():
                if line[:1] in (" ", "\t") and key:
                    continue  # continuation lines (descriptions, conffiles)
                key, _, value = line.partition(":")
                fields[key] = value.strip()
            if fields.get("Status") == "install ok installed":
                out.append(fields)
    return out


def debian_release(root):
    """purl's distro qualifier, from os-release (debian-13 for trixie)."""
    info = {}
    try:
        with open(os.path.join(root, "etc/os-release"), encoding="utf-8") as f:
            for line in f:
                key, _, value = line.strip().partition("=")
                info[key] = value.strip('"')
    except OSError:
        pass
    return "debian-" + (info.get("VERSION_ID") or info.get("VERSION_CODENAME") or "unknown")


def deb_package(fields, distro, prefix="deb"):
    name, version, arch = fields["Package"], fields["Version"], fields.get("Architecture", "all")
    source = fields.get("Source", name).split(" ")[0]
    purl = "pkg:deb/debian/%s@%s?arch=%s&distro=%s" % (
        name, urllib.parse.quote(version, safe=".+~-"), arch, distro)
    if source != name:
        purl += "&upstream=" + urllib.parse.quote(source)
    return {
        "name": name,
        "SPDXID": spdx_id(prefix, name, arch, version),
        "versionInfo": version,
        "supplier": "Organization: Debian",
        "downloadLocation": "NOASSERTION",
        "filesAnalyzed": False,
        "licenseConcluded": "NOASSERTION",
        "licenseDeclared": "NOASSERTION",
        "copyrightText": "NOASSERTION",
        "sourceInfo": "built from Debian source package " + source,
        "externalRefs": [{"referenceCategory": "PACKAGE-MANAGER",
                          "referenceType": "purl", "referenceLocator": purl}],
    }


def npm_on_disk(root):
    """{location: (name, version)} of every package under NPM_ROOT/node_modules."""
    found = {}
    base = os.path.join(root, NPM_ROOT)
    for dirpath, dirnames, filenames in os.walk(os.path.join(base, "node_modules")):
        rel = os.path.relpath(dirpath, base)
        parts = rel.split(os.sep)
        is_package = (len(parts) >= 2 and parts[-2] == "node_modules" and not parts[-1].startswith(("@", "."))) or \
                     (len(parts) >= 3 and parts[-3] == "node_modules" and parts[-2].startswith("@"))
        if is_package and "package.json" in filenames:
            try:
                with open(os.path.join(dirpath, "package.json"), encoding="utf-8") as f:
                    meta = json.load(f)
                found["/".join(parts)] = (meta.get("name"), meta.get("version"))
            except (OSError, ValueError):
                pass
        dirnames[:] = [d for d in dirnames if d != ".bin"]
    return found


def npm_packages(root, notes):
    """npm's documents, each package kept only where it is installed as
    listed; what is on disk and in no document is added without a hash."""
    out = {}
    disk = npm_on_disk(root)
    listed = set()
    docs = os.path.join(root, NPM_DOCS)
    for doc_name in sorted(os.listdir(docs)) if os.path.isdir(docs) else []:
        cli = doc_name.split(".")[0]
        with open(os.path.join(docs, doc_name), encoding="utf-8") as f:
            doc = json.load(f)
        dropped = []
        for p in doc["packages"]:
            location = p.get("packageFileName", "")
            if not location.startswith("node_modules/"):
                continue  # the synthetic root npm-sbom.sh made
            if disk.get(location) != (p["name"], p.get("versionInfo")):
                dropped.append(p["name"])
                continue
            listed.add(location)
            q = {k: v for k, v in p.items() if k not in ("SPDXID", "packageFileName")}
            q["SPDXID"] = spdx_id("npm", p["name"], p["versionInfo"])
            q["packageFileName"] = "/" + NPM_ROOT + "/" + location
            q["supplier"] = "NOASSERTION"
            q.setdefault("copyrightText", "NOASSERTION")
            q.setdefault("licenseConcluded", "NOASSERTION")
            # One package@version, wherever it is installed, is one SPDX package.
            out.setdefault(q["SPDXID"], q)
        if dropped:
            notes.append("%s: npm's lockfile lists %d packages not installed (optional, for other platforms"
                         " or removed after install): %s" % (cli, len(dropped), ", ".join(sorted(set(dropped)))))
    unlisted = sorted(loc for loc in disk if loc not in listed)
    for location in unlisted:
        name, version = disk[location]
        sid = spdx_id("npm", name or location, version or "unknown")
        out.setdefault(sid, {
            "name": name or location, "SPDXID": sid, "versionInfo": version or "NOASSERTION",
            "packageFileName": "/" + NPM_ROOT + "/" + location, "downloadLocation": "NOASSERTION",
            "filesAnalyzed": False, "supplier": "NOASSERTION", "licenseConcluded": "NOASSERTION",
            "licenseDeclared": "NOASSERTION", "copyrightText": "NOASSERTION",
            "comment": "installed, but in no npm lockfile: no integrity hash",
            "externalRefs": [{"referenceCategory": "PACKAGE-MANAGER", "referenceType": "purl",
                              "referenceLocator": "pkg:npm/%s@%s" % (urllib.parse.quote(name or location, safe="/"),
                                                                     version)}]})
    if unlisted:
        notes.append("%d npm packages installed without a lockfile entry (no integrity hash): %s"
                     % (len(unlisted), ", ".join(unlisted)))
    return list(out.values())


def init_packages(root, distro, commit):
    """cli-sandbox-init and the build-stage packages of the archives it links."""
    path = os.path.join(root, INIT)
    if not os.path.exists(path):
        return None, []
    with open(path, "rb") as f:
        digest = hashlib.sha256(f.read()).hexdigest()
    init = {
        "name": "cli-sandbox-init",
        "SPDXID": "SPDXRef-cli-sandbox-init",
        "versionInfo": commit,
        "downloadLocation": "NOASSERTION",
        "filesAnalyzed": False,
        "packageFileName": "/" + INIT,
        "checksums": [{"algorithm": "SHA256", "checksumValue": digest}],
        "licenseConcluded": "NOASSERTION",
        "licenseDeclared": "NOASSERTION",
        "copyrightText": "NOASSERTION",
        "sourceInfo": "built from cli-sandbox commit %s in the image's build stage" % commit,
        "primaryPackagePurpose": "APPLICATION",
    }
    linked = {}
    try:
        with open(os.path.join(root, INIT_ARCHIVES), encoding="utf-8") as f:
            for line in f:
                archive, pkg, version, use = (line.rstrip("\n").split("\t") + ["linked"])[:4]
                name, _, arch = pkg.partition(":")
                key = (name, arch, version)
                if key not in linked:
                    p = deb_package({"Package": name, "Version": version, "Architecture": arch or "all"},
                                    distro, prefix="build-deb")
                    p["comment"] = "build stage only (not installed in the image)"
                    linked[key] = (p, use, [])
                linked[key][2].append(os.path.basename(archive))
    except OSError:
        pass
    for p, use, archives in linked.values():
        p["comment"] += ("; static archives linked into the init: " if use == "linked" else
                         "; linked into the build-time generator of the init's seccomp filter: ") + ", ".join(archives)
    return init, [(p, use) for p, use, _ in linked.values()]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("root")
    ap.add_argument("--name", required=True, help="the image's name, e.g. localhost/cli-sandbox:latest")
    ap.add_argument("--commit", required=True)
    ap.add_argument("--epoch", type=int, required=True, help="SOURCE_DATE_EPOCH: the document's time")
    a = ap.parse_args()

    created = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(a.epoch))
    distro = debian_release(a.root)
    notes = []
    debs = [deb_package(f, distro) for f in dpkg_packages(a.root)]
    npms = npm_packages(a.root, notes)
    init, linked = init_packages(a.root, distro, a.commit)

    image = {
        "name": a.name,
        "SPDXID": "SPDXRef-image",
        "versionInfo": a.commit,
        "downloadLocation": "NOASSERTION",
        "filesAnalyzed": False,
        "licenseConcluded": "NOASSERTION",
        "licenseDeclared": "NOASSERTION",
        "copyrightText": "NOASSERTION",
        "primaryPackagePurpose": "CONTAINER",
    }
    packages = [image] + sorted(debs, key=lambda p: p["SPDXID"]) + sorted(npms, key=lambda p: p["SPDXID"])
    rels = [{"spdxElementId": "SPDXRef-DOCUMENT", "relationshipType": "DESCRIBES",
             "relatedSpdxElement": "SPDXRef-image"}]
    rels += [{"spdxElementId": "SPDXRef-image", "relationshipType": "CONTAINS",
              "relatedSpdxElement": p["SPDXID"]} for p in packages[1:]]
    if init:
        packages.append(init)
        rels.append({"spdxElementId": "SPDXRef-image", "relationshipType": "CONTAINS",
                     "relatedSpdxElement": init["SPDXID"]})
        for p, use in sorted(linked, key=lambda pu: pu[0]["SPDXID"]):
            packages.append(p)
            if use == "linked":
                rels.append({"spdxElementId": init["SPDXID"], "relationshipType": "STATIC_LINK",
                             "relatedSpdxElement": p["SPDXID"]})
            else:
                rels.append({"spdxElementId": p["SPDXID"], "relationshipType": "BUILD_DEPENDENCY_OF",
                             "relatedSpdxElement": init["SPDXID"]})
    body = json.dumps([packages, rels], sort_keys=True).encode()
    doc = {
        "spdxVersion": "SPDX-2.3",
        "dataLicense": "CC0-1.0",
        "SPDXID": "SPDXRef-DOCUMENT",
        "name": a.name,
        "documentNamespace": "https://cli-sandbox.invalid/spdx/%s/%s" % (
            urllib.parse.quote(a.name, safe=""), hashlib.sha256(body).hexdigest()),
        "creationInfo": {
            "created": created,
            "creators": ["Tool: cli-sandbox-image-release-spdx.py", "Tool: npm-sbom"],
        },
        "documentDescribes": ["SPDXRef-image"],
        "packages": packages,
        "relationships": rels,
    }
    if notes:
        doc["comment"] = "; ".join(notes)
    json.dump(doc, sys.stdout, indent=1, sort_keys=True)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
