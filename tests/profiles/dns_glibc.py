#!/usr/bin/env python3
"""The resolver's fast path and glibc agree on every answer of the fuzz corpus
(issue 23, item 5).

usage: dns_glibc.py PATH-TO-dns_answer_addrs CORPUS-DIR

Root only: it re-runs itself in a new network and mount namespace (unshare),
brings up loopback, bind-mounts its own resolv.conf (nameserver 127.0.0.1),
nsswitch.conf ("hosts: files dns") and an empty hosts file, and serves each
corpus file as the answer to glibc's A query for api.test (the id rewritten
to the query's; other types get an empty NOERROR answer).  For each file,
getaddrinfo's IPv4 addresses must equal what dns_answer_addrs takes, or the
fast path must take nothing (it leaves the name to glibc, which then
decides): it may never take an address glibc would not give.  Exits 77 when
it cannot run here.  In a container that the engine gave those three files
and loopback, DNS_GLIBC_INNER=1 DNS_GLIBC_FILES_READY=1 runs it as is, with
the container's glibc (tests/image/run.sh does, for the image's glibc).
"""
import os
import socket
import struct
import subprocess
import sys
import tempfile
import threading

HELPER, CORPUS = sys.argv[1], sys.argv[2]


def reexec():
    if os.geteuid() != 0:
        print("skip: needs root")
        sys.exit(77)
    r = subprocess.run(["unshare", "--net", "--mount", "--propagation", "private",
                        sys.executable] + sys.argv, env=dict(os.environ, DNS_GLIBC_INNER="1"))
    sys.exit(r.returncode)


def setup(tmp):
    if os.environ.get("DNS_GLIBC_FILES_READY"):
        return  # a container given these files and loopback by its engine
    subprocess.run(["ip", "link", "set", "lo", "up"], check=True)
    files = {"/etc/resolv.conf": "nameserver 127.0.0.1\noptions timeout:1 attempts:1\n",
             "/etc/nsswitch.conf": "hosts: files dns\n",
             "/etc/hosts": "127.0.0.1 localhost\n"}
    for target, text in files.items():
        src = os.path.join(tmp, os.path.basename(target))
        with open(src, "w") as f:
            f.write(text)
        subprocess.run(["mount", "--bind", src, target], check=True)


CURRENT = {"answer": b""}


def serve(sock):
    while True:
        msg, peer = sock.recvfrom(4096)
        if len(msg) < 12:
            continue
        i = 12
        while i < len(msg) and msg[i]:
            i += 1 + msg[i]
        qtype = struct.unpack("!H", msg[i + 1:i + 3])[0]
        if qtype == 1:
            reply = msg[:2] + CURRENT["answer"][2:]
        else:  # empty NOERROR, the question echoed
            reply = msg[:2] + struct.pack("!HHHHH", 0x8180, 1, 0, 0, 0) + msg[12:i + 5]
        sock.sendto(reply, peer)


def main():
    with tempfile.TemporaryDirectory() as tmp:
        setup(tmp)
        s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        s.bind(("127.0.0.1", 53))
        threading.Thread(target=serve, args=(s,), daemon=True).start()
        failed = 0
        files = sorted(os.listdir(CORPUS))
        print(f"1..{len(files)}")
        for k, name in enumerate(files, 1):
            with open(os.path.join(CORPUS, name), "rb") as f:
                CURRENT["answer"] = f.read()
            try:
                glibc = sorted({ai[4][0] for ai in socket.getaddrinfo("api.test", None, socket.AF_INET,
                                                                     socket.SOCK_STREAM)})
            except socket.gaierror:
                glibc = []
            fast = sorted(set(subprocess.run([HELPER, os.path.join(CORPUS, name)], check=True,
                                             capture_output=True, text=True).stdout.split()))
            good = fast == glibc or not fast
            failed += not good
            print(f"{'ok' if good else 'not ok'} {k} - {name}: glibc {glibc or 'none'}, "
                  f"fast path {fast or 'none (glibc decides)'}")
        return 1 if failed else 0


if __name__ == "__main__":
    if not os.environ.get("DNS_GLIBC_INNER"):
        reexec()
    sys.exit(main())
