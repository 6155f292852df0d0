"""Runs inside the sandbox as the dropped command: tries refused and allowed
egress, then reads the block log the way an agent would, and checks that it
can read the log but neither write nor replace it.  Prints the log's lines,
then one "check NAME ok|fail" line per access check.
usage: block_log_probe.py LOGFILE"""
import errno, os, socket, sys, time

log = sys.argv[1]

def attempt(fam, kind, addr, payload=b"x"):
    s = socket.socket(fam, kind)
    s.settimeout(2)
    try:
        s.connect(addr)
        s.send(payload)
        if kind == socket.SOCK_DGRAM:
            s.recv(512)
        else:
            s.shutdown(socket.SHUT_WR)
            while s.recv(4096):
                pass
    except OSError:
        pass
    finally:
        s.close()

def dns_query():
    return b"\x12\x34\x01\x00\x00\x01\x00\x00\x00\x00\x00\x00\x07example\x03com\x00\x00\x01\x00\x01"

def icmp(host):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM, socket.IPPROTO_ICMP)
    s.settimeout(1)
    try:
        s.sendto(b"\x08\x00\x00\x00\x00\x01\x00\x01", (host, 0))
        s.recv(64)
    except OSError:
        pass
    finally:
        s.close()

# Refused: TCP, plain UDP, DNS over UDP and TCP, IPv6 TCP and UDP, ICMP.
attempt(socket.AF_INET, socket.SOCK_STREAM, ("192.0.2.1", 9090))
attempt(socket.AF_INET, socket.SOCK_DGRAM, ("198.51.100.2", 9999))
attempt(socket.AF_INET, socket.SOCK_DGRAM, ("192.0.2.1", 53), dns_query())
attempt(socket.AF_INET, socket.SOCK_STREAM, ("198.51.100.2", 53))
attempt(socket.AF_INET6, socket.SOCK_STREAM, ("2001:db8:1::1", 8080))
attempt(socket.AF_INET6, socket.SOCK_DGRAM, ("2001:db8:1::1", 5353))
icmp("192.0.2.1")
# Allowed: the gateway tuple and loopback, with data both ways.
attempt(socket.AF_INET, socket.SOCK_STREAM, ("192.0.2.1", 8080), b"GET / HTTP/1.0\r\n\r\n")
attempt(socket.AF_INET, socket.SOCK_STREAM, ("127.0.0.1", 7000), b"GET / HTTP/1.0\r\n\r\n")

# A flood of one refused flow: one line for it (deduplicated), and the
# ruleset's limit spends its burst; after it has refilled, a new refusal is
# reported again.
for _ in range(300):
    attempt(socket.AF_INET, socket.SOCK_DGRAM, ("198.51.100.2", 9999))
time.sleep(3)
attempt(socket.AF_INET, socket.SOCK_STREAM, ("192.0.2.1", 9091))

# PID 1 writes asynchronously: wait (bounded, widely: a loaded machine can
# take seconds; the loop ends as soon as the line is there) for the last
# refusal's line.
deadline = time.monotonic() + 30
text = ""
while time.monotonic() < deadline:
    with open(log) as f:
        text = f.read()
    if "tcp to 192.0.2.1 port 9091" in text:
        break
    time.sleep(0.05)
sys.stdout.write(text)

def check(name, fn):
    try:
        fn()
        print("check", name, "fail")
    except OSError as e:
        print("check", name, "ok" if e.errno in (errno.EACCES, errno.EPERM, errno.EROFS) else "fail:" + e.strerror)

check("write", lambda: open(log, "a").write("forged\n"))
check("unlink", lambda: os.unlink(log))
check("replace", lambda: os.rename(log, log + ".old"))
check("create", lambda: open(os.path.join(os.path.dirname(log), "other"), "w"))
sys.stdout.flush()
