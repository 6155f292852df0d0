#!/bin/sh
# scripts/refresh-ranges without the network: a stand-in curl on PATH serves
# the fixtures (and broken files), so staging, checking and the all-or-nothing
# install are tested.  Nothing is downloaded.
# usage: test_refresh_ranges.sh PATH-TO-cli-sandbox-init
set -u
INIT=$1
HERE=$(cd "$(dirname "$0")" && pwd)
SCRIPT="$HERE/../../scripts/refresh-ranges"
FIX="$HERE/fixtures"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT INT TERM
. "$HERE/../lib/tap.sh"

# The stand-in: "curl ... -o FILE URL" copies $SERVE/<last URL component>,
# or fails like curl --fail when it is absent.  It refuses anything else.
mkdir "$T/bin" "$T/serve"
cat > "$T/bin/curl" <<'EOF'
#!/bin/sh
out=""
url=""
while [ $# -gt 0 ]; do
	case $1 in
	-o) out=$2; shift 2 ;;
	-H|--proto|--connect-timeout|--max-time|--retry|--max-filesize) shift 2 ;;
	-*) shift ;;
	*) url=$1; shift ;;
	esac
done
case $url in https://*) ;; *) echo "fake curl: not https: $url" >&2; exit 1 ;; esac
src="$SERVE/${url##*/}"
[ -f "$src" ] || { echo "curl: (22) The requested URL returned error: 404" >&2; exit 22; }
cp "$src" "$out"
EOF
chmod 755 "$T/bin/curl"
export SERVE="$T/serve"
run() {  # run DIR: the script with the stand-in curl; output in $T/out
	PATH="$T/bin:$PATH" GITHUB_META_URL=https://api.github.test/meta sh "$SCRIPT" --init "$INIT" "$1" > "$T/out" 2>&1
}

cp "$FIX/github-meta.json" "$T/serve/meta"
cp "$FIX/goog.json" "$FIX/cloud.json" "$T/serve/"

# 1. A fresh directory gets all three files, byte for byte.
run "$T/dir"
ok "fresh: exit 0" [ $? -eq 0 ]
ok "fresh: github-meta.json as served" cmp -s "$T/dir/github-meta.json" "$FIX/github-meta.json"
ok "fresh: goog.json as served" cmp -s "$T/dir/goog.json" "$FIX/goog.json"
ok "fresh: cloud.json as served" cmp -s "$T/dir/cloud.json" "$FIX/cloud.json"
ok "fresh: no staging directory left" [ -z "$(find "$T/dir" -name '.refresh.*')" ]

# 2. A malformed download: the init's check refuses it, nothing changes.
printf '{ "web": [], "api": [], "git": ["198.51.100.0/33"] }\n' > "$T/serve/meta"
run "$T/dir"
ok "malformed: exit 1" [ $? -eq 1 ]
ok "malformed: the init's message names the entry" grep -q "git\[0\] '198.51.100.0/33'" "$T/out"
ok "malformed: the old file stays" cmp -s "$T/dir/github-meta.json" "$FIX/github-meta.json"

# 3. Not a range file at all (an HTML error page): the shape check refuses it.
echo '<html>rate limited</html>' > "$T/serve/meta"
run "$T/dir"
ok "not JSON: exit 1" [ $? -eq 1 ]
ok "not JSON: the old file stays" cmp -s "$T/dir/github-meta.json" "$FIX/github-meta.json"

# 4. One download fails: nothing changes, the others included.
cp "$FIX/github-meta.json" "$T/serve/meta"
printf '{"prefixes":[{"ipv4Prefix":"192.0.2.0/25"}]}\n' > "$T/serve/goog.json"
rm "$T/serve/cloud.json"
run "$T/dir"
ok "failed download: exit 1" [ $? -eq 1 ]
ok "failed download: names the URL" grep -q 'cloud.json failed' "$T/out"
ok "failed download: goog.json unchanged too" cmp -s "$T/dir/goog.json" "$FIX/goog.json"

# 5. Usage errors.
sh "$SCRIPT" --bogus > /dev/null 2>&1
ok "unknown option: exit 2" [ $? -eq 2 ]

t_done
