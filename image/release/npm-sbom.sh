#!/bin/sh
# Run in a Dockerfile npm-CLI stage right after `npm install --global --prefix
# /opt/cli` (issue 24): npm's own SBOM generator (`npm sbom`, npm >= 10; Debian's
# npm 9 has none, so a pinned npm 10 from the registry runs it) writes an SPDX 2.3
# document of the tree just installed, with each package's version, resolved URL
# and integrity hash (from the hidden lockfile npm wrote), to
# /opt/cli/share/doc/cli-sandbox/npm/CLI.spdx.json.  image/release/spdx.py merges
# it into the image's SBOM, keeping only packages that are on disk there (files a
# stage removes after this, such as claude's unused musl builds, drop out).
#
#   sh npm-sbom.sh CLI
set -eu
cli=$1
NPM_SBOM=npm@10.9.8   # the generator, pinned
lib=/opt/cli/lib
out=/opt/cli/share/doc/cli-sandbox/npm/$cli.spdx.json
[ -s "$lib/node_modules/.package-lock.json" ] ||
	{ echo "npm-sbom.sh: npm left no $lib/node_modules/.package-lock.json (integrity hashes)" >&2; exit 1; }
# `npm sbom` describes a project: a root package.json naming what the global
# install holds, there for this command only.
node -e '
const fs = require("fs"), lock = require(process.argv[1] + "/node_modules/.package-lock.json");
const deps = {};
for (const [path, p] of Object.entries(lock.packages || {}))
  if (/^node_modules\/(@[^/]+\/)?[^/@]+$/.test(path) && !p.link) deps[path.slice(13)] = p.version;
fs.writeFileSync(process.argv[1] + "/package.json", JSON.stringify({
  name: "cli-sandbox-" + process.argv[2], version: "0.0.0", private: true, dependencies: deps }));
' "$lib" "$cli"
mkdir -p "$(dirname "$out")"
(cd "$lib" && npx --yes "$NPM_SBOM" sbom --sbom-format spdx --sbom-type application) >"$out"
rm -f "$lib/package.json"
node -e 'const d = require(process.argv[1]); if (d.spdxVersion !== "SPDX-2.3" || d.packages.length < 2) process.exit(1);
  const n = d.packages.filter(p => (p.checksums || []).length).length;
  console.log("npm-sbom.sh: " + d.packages.length + " packages, " + n + " with an integrity hash");' "$out"
