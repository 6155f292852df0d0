#!/usr/bin/env python3
"""PID 1 never blocks on output (issue 23, item 2), with real packets.

usage: stalled_output.py PATH-TO-cli-sandbox-init

The init runs as PID 1 of a pid namespace, in a network namespace of its
own with the managed firewall and the block log, its stdin, stdout and
stderr on a pty that this test holds (or stderr on a pipe that nobody
reads).  The command stops the terminal (tcflow(TCOOFF)), or fills the pipe,
then floods refused packets (a new flow each: a block-log line each, which
PID 1 writes to a non-terminal stderr) and leaves a process behind.  Then:
  - exit 42: the container's status is 42, within bounds;
  - sleep: SIGTERM to PID 1 ends the container (143), within bounds.
Before the fix PID 1 could sleep for good in n_tty_write or pipe_write, and
the status was lost.  Root only (77 otherwise)."""
import os
import pty
import signal
import subprocess
import sys
import tempfile
import time

INIT = sys.argv[1]
NS = f"cs-stall-{os.getpid()}"
N = 0
FAILED = 0


def ok(cond, what):
    global N, FAILED
    N += 1
    FAILED += not cond
    print(f"{'ok' if cond else 'not ok'} {N} - {what}", flush=True)


COMMAND = r'''
import os, socket, sys, termios, time
mode, how = sys.argv[1], sys.argv[2]
if how == "tty":
    termios.tcflow(2, termios.TCOOFF)           # the terminal stops: every blocking write to it sleeps
elif os.fork() == 0:                             # fill the pipe nobody reads, and stay blocked on it
    while True:
        os.write(2, b"x" * 4096)
else:
    time.sleep(0.5)
if os.fork() == 0:                               # a leftover for PID 1 to end and reap
    os.setsid()
    time.sleep(60)
    os._exit(0)
end = time.monotonic() + 3
port = 1000
while time.monotonic() < end:                    # refused packets, a new flow each
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        s.sendto(b"x", ("192.0.2.99", port))
    except OSError:
        pass
    s.close()
    port = port + 1 if port < 60000 else 1000
open(os.environ["MARK"], "w").write("flooded\n")
if mode == "exit":
    os._exit(42)
time.sleep(60)
'''


def netns():
    cmds = [["ip", "netns", "add", NS], ["ip", "-n", NS, "link", "set", "lo", "up"],
            ["ip", "-n", NS, "link", "add", "st0", "type", "veth", "peer", "name", "st1"],
            ["ip", "-n", NS, "link", "set", "st0", "up"], ["ip", "-n", NS, "link", "set", "st1", "up"],
            ["ip", "-n", NS, "addr", "add", "192.0.2.2/24", "dev", "st0"],
            ["ip", "-n", NS, "route", "add", "default", "via", "192.0.2.1"]]
    for c in cmds:
        subprocess.run(c, check=True)


def init_pid(unshare_pid):
    try:
        with open(f"/proc/{unshare_pid}/task/{unshare_pid}/children") as f:
            kids = f.read().split()
        return int(kids[0]) if kids else None
    except OSError:
        return None


def run(tmp, mode, how):
    mark = os.path.join(tmp, f"{mode}-{how}.mark")
    env = {"PATH": "/usr/local/bin:/usr/bin:/bin", "CLI_SANDBOX_USER": "nobody",
           "TASK_AGENT_MODEL_BASE_URL": "http://192.0.2.1:8080", "MARK": mark}
    if os.environ.get("ASAN_OPTIONS"):
        env["ASAN_OPTIONS"] = os.environ["ASAN_OPTIONS"]
    master, slave = pty.openpty()
    pipe_r, pipe_w = os.pipe()
    err = slave if how == "tty" else pipe_w
    argv = ["ip", "netns", "exec", NS, "unshare", "--pid", "--fork", "--kill-child", "--mount-proc",
            "env", "-i"] + [f"{k}={v}" for k, v in env.items()] + \
           [INIT, "--", "/usr/bin/python3", os.path.join(tmp, "command.py"), mode, how]
    t0 = time.monotonic()
    p = subprocess.Popen(argv, stdin=slave, stdout=slave, stderr=err, start_new_session=True)
    os.close(slave)
    os.close(pipe_w)
    # never read the pipe; read the pty only after the end (the command stops it anyway)
    deadline = t0 + 30
    while not os.path.exists(mark) and time.monotonic() < deadline and p.poll() is None:
        time.sleep(0.1)
    flooded = os.path.exists(mark)
    if mode == "term" and flooded:
        time.sleep(0.5)
        pid = init_pid(p.pid)
        if pid:
            os.kill(pid, signal.SIGTERM)
    try:
        rc = p.wait(timeout=max(1, deadline - time.monotonic()))
    except subprocess.TimeoutExpired:
        rc = None  # PID 1 hangs: end everything this run started, by its pids
        pids = subprocess.run(["ip", "netns", "pids", NS], capture_output=True, text=True).stdout.split()
        for q in pids:
            try:
                os.kill(int(q), signal.SIGKILL)
            except OSError:
                pass
        try:
            p.wait(timeout=10)
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, signal.SIGKILL)
            p.wait()
    secs = time.monotonic() - t0
    os.close(master)
    os.close(pipe_r)
    return flooded, rc, secs


def main():
    if os.geteuid() != 0:
        print("skip: needs root")
        return 77
    # the control: PID 1's writes under test are the block log's lines, which
    # need NFLOG; without it the flood would prove nothing about them
    control = subprocess.run(["unshare", "--net", sys.executable,
                              os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib", "nflog_control.py"),
                              "1799"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if control.returncode == 2:
        print("skip: the block log needs NFLOG, and this kernel has none: " + control.stdout.strip())
        return 77
    if control.returncode != 0:
        print("not ok - the NFLOG control failed: " + control.stdout.strip())
        return 1
    with tempfile.TemporaryDirectory(prefix="cs-stall.") as tmp:
        os.chmod(tmp, 0o777)
        with open(os.path.join(tmp, "command.py"), "w") as f:
            f.write(COMMAND)
        os.chmod(os.path.join(tmp, "command.py"), 0o644)
        netns()
        try:
            for how in ("tty", "pipe"):
                flooded, rc, secs = run(tmp, "exit", how)
                ok(flooded, f"{how}: the command stopped its output ({'tcflow(TCOOFF)' if how == 'tty' else 'a full pipe'}) and flooded refused packets")
                ok(rc == 42, f"{how}: the command's status comes back (42, got {rc}) in {secs:.1f} s, its leftover ended and reaped")
                flooded, rc, secs = run(tmp, "term", how)
                ok(flooded and rc == 143, f"{how}: SIGTERM to PID 1 ends the container (143, got {rc}) in {secs:.1f} s")
                ok(secs < 30, f"{how}: ... within bounds ({secs:.1f} s)")
        finally:
            subprocess.run(["ip", "netns", "delete", NS])
    print(f"1..{N}")
    return 1 if FAILED else 0


if __name__ == "__main__":
    sys.exit(main())
