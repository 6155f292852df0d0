// Egress probe for the image tests (the image has Node.js, not Python): the
// same checks and output as tests/netns/probe.py, without ICMP.
//   connect:ADDR:PORT  a TCP connection is established (any server)
//   tcp:ADDR:PORT      connect, send a line, expect the echo server's answer
//   dns-udp:ADDR:PORT  an A query over UDP; any answer counts
//   dns-tcp:ADDR:PORT  the same over TCP
// Output: "<check> <result> <ms>"; result ok, refused, unreachable, timeout,
// noanswer or error-<code>.  "timeout" means a silent drop.
"use strict";
const net = require("net");
const dgram = require("dgram");
const TIMEOUT = 3000;

function split(spec) {
  const i = spec.lastIndexOf(":");
  return { host: spec.slice(0, i).replace(/^\[|\]$/g, ""), port: Number(spec.slice(i + 1)) };
}

function classify(e) {
  if (e.code === "ECONNREFUSED") return "refused";
  if (["EHOSTUNREACH", "ENETUNREACH", "EACCES", "EPERM"].includes(e.code)) return "unreachable";
  return "error-" + e.code;
}

const query = Buffer.from([0x12, 0x34, 1, 0, 0, 1, 0, 0, 0, 0, 0, 0, 4, 0x74, 0x65, 0x73, 0x74, 0, 0, 1, 0, 1]);

function tcp(spec, payload, accept) {
  return new Promise((done) => {
    const { host, port } = split(spec);
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
    const { host, port } = split(spec);
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

const kinds = {
  connect: connectOnly,
  tcp: (t) => tcp(t, "ping\n", (d) => d.toString() === "echo:ping\n"),
  "dns-udp": dnsUdp,
  "dns-tcp": (t) => tcp(t, Buffer.concat([Buffer.from([0, query.length]), query]), (d) => d.length > 4 && d[2] === 0x12 && d[3] === 0x34),
};

(async () => {
  for (const check of process.argv.slice(2)) {
    const i = check.indexOf(":");
    const start = Date.now();
    const result = await kinds[check.slice(0, i)](check.slice(i + 1));
    console.log(`${check} ${result} ${Date.now() - start}`);
  }
})();
