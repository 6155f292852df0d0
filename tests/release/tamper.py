#!/usr/bin/python3
"""Changes one layer of an image in skopeo's dir: layout (tests/release/image.sh).

  tamper.py COPY bytes   one byte of the smallest layer's blob flipped, nothing
                         else: the blob no longer has the digest it is named by
  tamper.py COPY layer   one byte of a file in the smallest layer changed, and
                         the image made whole again around it: the blob
                         recompressed under its new digest, the config's diff_id
                         and the manifest updated.  A valid image that differs
                         from the signed one in one layer; signature-1 is left
                         as it was (it names the old manifest digest).

COPY's files may be hard links to the genuine copy: every file changed is
written anew (a new inode), never in place.  Prints what changed.
"""

import gzip
import hashlib
import io
import json
import os
import sys
import tarfile


def write_new(path, data):
    tmp = path + ".tmp"
    with open(tmp, "wb") as f:
        f.write(data)
    os.replace(tmp, path)  # a new inode: a hard-linked original stays as it was


def blob(copy, digest):
    return os.path.join(copy, digest.split(":", 1)[1])


def put_blob(copy, data):
    digest = "sha256:" + hashlib.sha256(data).hexdigest()
    write_new(blob(copy, digest), data)
    return digest


def main():
    copy, how = sys.argv[1], sys.argv[2]
    mpath = os.path.join(copy, "manifest.json")
    with open(mpath, "rb") as f:
        manifest = json.load(f)
    i, layer = min(enumerate(manifest["layers"]), key=lambda il: il[1]["size"])
    old = layer["digest"]
    with open(blob(copy, layer["digest"]), "rb") as f:
        data = bytearray(f.read())
    if how == "bytes":
        data[len(data) // 2] ^= 1
        write_new(blob(copy, layer["digest"]), bytes(data))
        print("flipped one byte of layer %d (%s)" % (i, layer["digest"]))
        return
    tar = bytearray(gzip.decompress(bytes(data)))
    with tarfile.open(fileobj=io.BytesIO(bytes(tar))) as t:
        member = next(m for m in t.getmembers() if m.isfile() and m.size > 0)
    tar[member.offset_data] ^= 1  # file data, outside the header and its checksum
    new_layer = put_blob(copy, gzip.compress(bytes(tar), mtime=0))
    os.remove(blob(copy, layer["digest"]))
    with open(blob(copy, manifest["config"]["digest"]), "rb") as f:
        config = json.load(f)
    config["rootfs"]["diff_ids"][i] = "sha256:" + hashlib.sha256(tar).hexdigest()
    config_bytes = json.dumps(config, separators=(",", ":")).encode()
    os.remove(blob(copy, manifest["config"]["digest"]))
    manifest["config"]["digest"] = put_blob(copy, config_bytes)
    manifest["config"]["size"] = len(config_bytes)
    manifest["layers"][i]["digest"] = new_layer
    manifest["layers"][i]["size"] = os.path.getsize(blob(copy, new_layer))
    write_new(mpath, json.dumps(manifest, separators=(",", ":")).encode())
    print("changed one byte of /%s in layer %d: %s -> %s" % (member.name, i, old, new_layer))


if __name__ == "__main__":
    main()
