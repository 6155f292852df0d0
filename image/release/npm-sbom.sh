#!/bin/sh
# Run in a Dockerfile npm-CLI stage right after `npm install --global --prefix
# /opt/cli` (issue 24): writes /opt/cli/share/doc/cli-sandbox/npm/CLI.spdx.json,
# an SPDX 2.3 document of the tree just installed made by npm's own generator,
# `npm sbom` (npm >= 10; Debian's npm 9 has none, so a pinned npm 10 from the
# registry runs it).  image/release/spdx.py merges it into the image's SBOM.
#
# A global install keeps no lockfile, and npm's integrity hashes live only in
# lockfiles: so npm resolves a lockfile for the same top-level packages at the
# versions on disk, with the global layout (--install-strategy=shallow) and the
# installed tree moved aside so that it resolves from the registry.  Registry
# tarballs are immutable per name@version, so each hash is that of the package
# installed; spdx.py keeps only the entries whose name@version is on disk at
# the same place and adds, without a hash, anything on disk the lockfile lacks
# (tests/release/image.sh requires both to be nothing but the optional
# packages for other platforms).
#
#   sh npm-sbom.sh CLI
set -eu
cli=$1
NPM=npm@10.9.8   # the generator, pinned
lib=/opt/cli/lib
out=/opt/cli/share/doc/cli-sandbox/npm/$cli.spdx.json
[ -d "$lib/node_modules" ] || { echo "npm-sbom.sh: nothing installed in $lib/node_modules" >&2; exit 1; }
# The project `npm sbom` describes: a root package.json naming what the
# global install holds, at the versions on disk; there for these commands only.
node -e '
const fs = require("fs"), path = require("path"), nm = path.join(process.argv[1], "node_modules");
const deps = {};
for (const d of fs.readdirSync(nm)) {
  const names = d.startsWith("@") ? fs.readdirSync(path.join(nm, d)).map(s => d + "/" + s) : d.startsWith(".") ? [] : [d];
  for (const n of names) deps[n] = JSON.parse(fs.readFileSync(path.join(nm, n, "package.json"))).version;
}
fs.writeFileSync(path.join(process.argv[1], "package.json"), JSON.stringify({
  name: "cli-sandbox-" + process.argv[2], version: "0.0.0", private: true, dependencies: deps }));
' "$lib" "$cli"
mv "$lib/node_modules" "$lib/node_modules.installed"
(cd "$lib" && npx --yes "$NPM" install --package-lock-only --install-strategy=shallow \
	--ignore-scripts --no-audit --no-fund --no-update-notifier >/dev/null)
mv "$lib/node_modules.installed" "$lib/node_modules"
mkdir -p "$(dirname "$out")"
(cd "$lib" && npx --yes "$NPM" sbom --package-lock-only --sbom-format spdx --sbom-type application) >"$out"
rm -f "$lib/package.json" "$lib/package-lock.json"
# npm stamps the document with the time and a random namespace: both replaced
# by values of its content, so the layer is the same in every build.
node -e 'const fs = require("fs"), crypto = require("crypto"), d = require(process.argv[1]);
  if (d.spdxVersion !== "SPDX-2.3" || d.packages.length < 2) process.exit(1);
  d.creationInfo.created = "1970-01-01T00:00:00Z";
  d.documentNamespace = "https://cli-sandbox.invalid/spdx/npm/" + process.argv[2] + "/" +
    crypto.createHash("sha256").update(JSON.stringify(d.packages)).digest("hex");
  fs.writeFileSync(process.argv[1], JSON.stringify(d, null, 1) + "\n");
  const n = d.packages.filter(p => (p.checksums || []).length).length;
  console.log("npm-sbom.sh: " + d.packages.length + " packages, " + n + " with an integrity hash");' "$out" "$cli"
