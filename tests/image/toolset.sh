#!/bin/sh
# shellcheck disable=SC2016 # the single-quoted scripts expand in their own sh
# toolset.sh: run inside the image as node (uid 1000), in an empty writable directory.
# Uses each tool of the image's toolset for a small real job and prints one line per tool:
# "ok TOOL" or "FAIL TOOL: what went wrong". tests/image/run.sh turns them into checks.
set -u
cd "$(mktemp -d)" || exit 1
export HOME="$PWD"
# try TOOL COMMAND...: one tool's job; its output is kept for the FAIL line.
try() {
	_tool=$1
	shift
	if _out=$("$@" 2>&1); then
		echo "ok $_tool"
	else
		echo "FAIL $_tool: $(printf '%s' "$_out" | tail -n 3 | tr '\n' ' ')"
	fi
}
# eq EXPECTED COMMAND...: COMMAND prints exactly EXPECTED.
eq() { _want=$1; shift; _got=$("$@") || return 1; [ "$_got" = "$_want" ] || { echo "got '$_got', want '$_want'"; return 1; }; }

try git sh -c 'git init -q r && cd r && echo a >f && git add f &&
	git -c user.name=t -c user.email=t@example.org commit -qm m && [ "$(git log --format=%s)" = m ]'
try ssh sh -c 'ssh -V && ssh-keygen -q -t ed25519 -N "" -f k && [ -s k.pub ]'
printf 'alpha\nneedle here\n' >grep.txt
try rg eq '2:needle here' rg -n needle grep.txt
try fd sh -c 'fd -t f grep | grep -qx "\(\./\)\{0,1\}grep.txt"'
try fdfind sh -c 'fdfind -t f grep | grep -qx "\(\./\)\{0,1\}grep.txt"'
try gh gh --version
try jq eq 2 sh -c 'echo "{\"a\":[1,2]}" | jq ".a[1]"'
printf 'all:\n\t@echo made\n' >Makefile
try make eq made make -s
printf 'one\n' >p.txt
printf -- '--- p.txt\n+++ p.txt\n@@ -1 +1 @@\n-one\n+two\n' >p.diff
try patch sh -c 'patch -s p.txt <p.diff && [ "$(cat p.txt)" = two ]'
try diff sh -c 'printf "x\n" >d1; printf "y\n" >d2; diff d1 d2 >/dev/null; [ $? -eq 1 ]'
try less eq needle sh -c 'less -FX grep.txt | grep -o needle'
try ps sh -c 'ps -eo pid,user,comm | grep -q "^ *1 "'
try pstree pstree -p 1
# killall once the job is sleep (it may still be sh right after the fork):
# read from /proc, bounded at 30 s, not assumed after 0.2 s.
try killall sh -c 'sleep 30 & p=$!; i=0
	until [ "$(cat /proc/$p/comm 2>/dev/null)" = sleep ] || [ $i -ge 300 ]; do sleep 0.1; i=$((i + 1)); done
	killall sleep && ! wait $p'
mkdir -p t/a/b && : >t/a/b/leaf
try tree sh -c 'tree t | grep -q leaf'
try zip sh -c 'zip -qr z.zip t'
try unzip sh -c 'mkdir u && cd u && unzip -q ../z.zip && [ -e t/a/b/leaf ]'
try file sh -c 'file z.zip | grep -qi zip'
try nano nano --version
try vi sh -c 'printf "hello\n" >v.txt && vi -es -c "%s/hello/bye/" -c wq v.txt && [ "$(cat v.txt)" = bye ]'
try python3 eq 42 python3 -c 'print(6 * 7)'
try venv+pip sh -c 'python3 -m venv v && v/bin/pip --version && v/bin/python -c "import sys; assert sys.prefix != sys.base_prefix"'
try pip3 pip3 --version
printf '#include <stdio.h>\nint main(void) { puts("built"); return 0; }\n' >c.c
try gcc sh -c 'gcc -Wall -o c c.c && [ "$(./c)" = built ]'
printf '#include <iostream>\nint main() { std::cout << "built++\\n"; }\n' >c.cc
try g++ sh -c 'g++ -o cc c.cc && [ "$(./cc)" = built++ ]'
try curl sh -c 'curl --version && curl -s file://$PWD/grep.txt | grep -q needle'
try bwrap bwrap --version
try docker sh -c 'docker --version | grep -q "^Docker version"'
try node eq 3 node -e 'console.log(1 + 2)'
# A Docker daemon never belongs here: only the client.
try no-dockerd sh -c '! command -v dockerd && ! command -v containerd && ! command -v docker-init'
