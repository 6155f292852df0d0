// Egress probe for the image tests (the image has Node.js, not Python): the
// same checks and output as tests/netns/probe.py, without ICMP.
//   connect:ADDR:PORT  a TCP connection is established (any server)
//   tcp:ADDR:PORT      connect, send a line, expect the echo server's answer
//   dns-udp:ADDR:PORT  an A query over UDP; any answer counts
//   dns-tcp:ADDR:PORT  the same over TCP
//   PORT "real" means the port Docker's embedded resolver really listens on at
//   ADDR (127.0.0.11), behind its DNAT of :53, read from /proc/net/{udp,tcp}
//   as any process here can; "noport" when there is none
//   lookup:NAME        the C library's resolver (getaddrinfo, resolv.conf);
//                      ok and the first address as a fourth field
//   ADDR may be fe80::1%eth0: the probe first waits (at most 10 s) for this
//   side's own link-local address to finish duplicate address detection
// Output: "<check> <result> <ms>"; result ok, refused, unreachable, timeout,
// noanswer or error-<code>.  "timeout" means a silent drop.
"use strict";
const net = require("net");
const dgram = require("dgram");
const dns = require("dns");
const fs = require("fs");
// Refusals come at once and allowed checks within milliseconds; only a
// silent drop waits this long.  Wide, so a loaded machine's slow answer is
// not taken for a drop.
const TIMEOUT = 10000;

// The port a socket listens on at ADDR, from the kernel's socket table; in
// /proc/net/udp "07" is an unconnected socket, in /proc/net/tcp "0A" LISTEN.
function realPort(host, proto) {
  const want = host.split(".").reverse().map((o) => Number(o).toString(16).padStart(2, "0")).join("").toUpperCase();
  for (const line of fs.readFileSync(`/proc/net/${proto}`, "utf8").split("\n").slice(1)) {
    const f = line.trim().split(/\s+/);
    if (f.length > 3 && f[1].startsWith(want + ":") && f[3] === (proto === "tcp" ? "0A" : "07"))
      return parseInt(f[1].split(":")[1], 16);
  }
  return 0;
}

function split(spec, proto) {
  const i = spec.lastIndexOf(":");
  const host = spec.slice(0, i).replace(/^\[|\]$/g, "");
  const p = spec.slice(i + 1);
  return { host, port: p === "real" ? realPort(host, proto) : Number(p) };
}

// Waits until no link-local address of ours is tentative (DAD), bounded.
function linkLocalReady() {
  const end = Date.now() + 10000;  // DAD takes 1-2 s; wide for a loaded machine
  return new Promise((done) => {
    const poll = () => {
      let tentative = false;
      try {
        for (const line of fs.readFileSync("/proc/net/if_inet6", "utf8").split("\n")) {
          const f = line.trim().split(/\s+/);
          if (f.length > 4 && f[0].startsWith("fe80") && (parseInt(f[4], 16) & 0x40)) tentative = true;
        }
      } catch (e) { /* no IPv6 at all */ }
      if (!tentative || Date.now() > end) done(); else setTimeout(poll, 100);
    };
    poll();
  });
}

function classify(e) {
  if (e.code === "ECONNREFUSED") return "refused";
  if (["EHOSTUNREACH", "ENETUNREACH", "EACCES", "EPERM"].includes(e.code)) return "unreachable";
  return "error-" + e.code;
}

const query = Buffer.from([0x12, 0x34, 1, 0, 0, 1, 0, 0, 0, 0, 0, 0, 4, 0x74, 0x65, 0x73, 0x74, 0, 0, 1, 0, 1]);

function tcp(spec, payload, accept) {
  return new Promise((done) => {
    const { host, port } = split(spec, "tcp");
    if (!port) return done("noport");
    const s = net.connect({ host, port });
    const timer = setTimeout(() => { s.destroy(); done("timeout"); }, TIMEOUT);
    let data = Buffer.alloc(0);
    s.on("connect", () => s.write(payload));
    s.on("data", (d) => {
      data = Buffer.concat([data, d]);
      if (accept(data)) { clearTimeout(timer); s.destroy(); done("ok"); }
    });
    s.on("error", (e) => { clearTimeout(timer); done(classify(e)); });
  });
}

function dnsUdp(spec) {
  return new Promise((done) => {
    const { host, port } = split(spec, "udp");
    if (!port) return done("noport");
    const s = dgram.createSocket(host.includes(":") ? "udp6" : "udp4");
    const timer = setTimeout(() => { s.close(); done("noanswer"); }, TIMEOUT);
    s.on("message", (m) => { clearTimeout(timer); s.close(); done(m[0] === 0x12 && m[1] === 0x34 ? "ok" : "baddata"); });
    s.on("error", (e) => { clearTimeout(timer); s.close(); done(classify(e)); });
    s.connect(port, host, () => s.send(query));
  });
}

function connectOnly(spec) {
  return new Promise((done) => {
    const { host, port } = split(spec);
    const s = net.connect({ host, port });
    const timer = setTimeout(() => { s.destroy(); done("timeout"); }, TIMEOUT);
    s.on("connect", () => { clearTimeout(timer); s.destroy(); done("ok"); });
    s.on("error", (e) => { clearTimeout(timer); done(classify(e)); });
  });
}

function lookup(name) {
  return new Promise((done) => {
    const timer = setTimeout(() => done("timeout"), 2 * TIMEOUT);
    dns.lookup(name, { family: 4 }, (e, addr) => {
      clearTimeout(timer);
      done(e ? "error-" + e.code : "ok " + addr);
    });
  });
}

const kinds = {
  connect: connectOnly,
  lookup,
  tcp: (t) => tcp(t, "ping\n", (d) => d.toString() === "echo:ping\n"),
  "dns-udp": dnsUdp,
  "dns-tcp": (t) => tcp(t, Buffer.concat([Buffer.from([0, query.length]), query]), (d) => d.length > 4 && d[2] === 0x12 && d[3] === 0x34),
};

(async () => {
  for (const check of process.argv.slice(2)) {
    const i = check.indexOf(":");
    if (check.includes("fe80:")) await linkLocalReady();
    const start = Date.now();
    const result = await kinds[check.slice(0, i)](check.slice(i + 1));
    const [verdict, extra] = result.split(" ");
    console.log(`${check} ${verdict} ${Date.now() - start}${extra ? " " + extra : ""}`);
  }
})();
