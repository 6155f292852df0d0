// The pinned-DNS probe of tests/image/pinning.sh, run as the CLI's user in
// the sandbox (the image has Node.js).  One check a line, "CHECK RESULT":
//   lookup:NAME             getaddrinfo through resolv.conf (glibc, as the
//                           CLIs resolve): "ok ADDR" or the error code
//   a:NAME@SERVER           an A query to SERVER:53 (c-ares, no retry):
//                           "ok ADDR" or the error code (ENOTFOUND is NXDOMAIN)
//   txt:NAME@SERVER         a TXT query: "ok" or the error code (EREFUSED)
//   connect:NAME:PORT       getaddrinfo, then a TCP connection and an echo
// usage: node pinning_probe.js CHECK...
"use strict";
const dns = require("dns");
const net = require("net");

function query(kind, spec) {
  const [name, server] = spec.split("@");
  const r = new dns.Resolver({ timeout: 3000, tries: 1 });
  r.setServers([server]);
  return new Promise((done) => {
    const cb = (err, v) => done(err ? err.code : "ok" + (kind === "a" ? " " + v[0] : ""));
    if (kind === "a") r.resolve4(name, cb);
    else r.resolveTxt(name, cb);
  });
}

function lookup(name) {
  return new Promise((done) => dns.lookup(name, { family: 4 }, (err, a) => done(err ? err.code : "ok " + a)));
}

async function connect(spec) {
  const [name, port] = spec.split(":");
  const l = await lookup(name);
  if (!l.startsWith("ok ")) return "lookup-" + l;
  const addr = l.slice(3);
  return new Promise((done) => {
    const s = net.connect({ host: addr, port: Number(port) });
    const t = setTimeout(() => { s.destroy(); done("timeout"); }, 10000);
    s.on("connect", () => s.write("ping\n"));
    s.on("data", (d) => { clearTimeout(t); s.destroy(); done(d.toString() === "ping\n" ? "ok " + addr : "bad-echo"); });
    s.on("error", (e) => { clearTimeout(t); done(e.code + " " + addr); });
  });
}

(async () => {
  for (const c of process.argv.slice(2)) {
    const i = c.indexOf(":");
    const kind = c.slice(0, i), arg = c.slice(i + 1);
    let r;
    if (kind === "lookup") r = await lookup(arg);
    else if (kind === "a" || kind === "txt") r = await query(kind, arg);
    else if (kind === "connect") r = await connect(arg);
    else r = "unknown-check";
    console.log(c + " " + r);
  }
})();
