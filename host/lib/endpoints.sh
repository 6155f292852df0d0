# host/lib/endpoints.sh: named model endpoints with a type, a model, a key variable and what
# shellcheck shell=sh disable=SC2154,SC2034,SC2016 # variables (and $NAMES meant literally) set by host/cli-sandbox, which sources this
# they speak. Sourced by host/cli-sandbox (POSIX sh); docs/gateway.md.
#
# The endpoints file has one endpoint a line: NAME URL [key=value ...], keys type, model,
# key-env and speaks (a comma list of anthropic, chat, responses, ollama). A line of only
# NAME URL (the older format) still works: its type and what it speaks are unknown.

# valid_model NAME: a model's name: [A-Za-z0-9._:/@+-], at most 128 characters, not starting
# with '-' (Ollama's qwen3:8b and hf.co/org/model:Q4_K_M, vLLM's org/Model-7B, a digest after '@').
valid_model() {
	[ -n "$1" ] && [ ${#1} -le 128 ] || return 1
	case $1 in -* | *[!abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._:/@+-]*) return 1 ;; esac
}
check_model() {
	valid_model "$1" || die "bad model name: use at most 128 letters, digits and . _ : / @ + - (not starting with '-'), e.g. qwen3:8b or org/Model-7B"
}
# ep_get NAME KEY: print KEY's value on NAME's line (empty when absent); fail without NAME.
ep_get() {
	[ -f "$ep_file" ] && awk -v n="$1" -v k="$2=" '
		$1 == n { found = 1; for (i = 3; i <= NF; i++) if (index($i, k) == 1) print substr($i, length(k) + 1); exit }
		END { exit !found }' "$ep_file"
}

# ep_base URL API: set BASE to the URL the API's clients are given: anthropic without a
# trailing /v1 (the SDK appends /v1/messages), chat and responses with /v1 (the OpenAI SDKs
# append /chat/completions or /responses only), ollama's native API without /v1.
ep_base() {
	BASE=${1%/}
	case $2 in
	anthropic | ollama) BASE=${BASE%/v1} ;;
	*) case $BASE in */v1) ;; *) BASE=$BASE/v1 ;; esac ;;
	esac
}

# ep_status METHOD URL [BODY]: print the HTTP status of one request (000: no answer).
ep_status() {
	if [ $# -ge 3 ]; then
		curl -s -o /dev/null --noproxy '*' --connect-timeout 3 --max-time 8 -w '%{http_code}' \
			-X "$1" -H 'content-type: application/json' --data-binary "$3" "$2" 2>/dev/null
	else
		curl -s -o /dev/null --noproxy '*' --connect-timeout 3 --max-time 8 -w '%{http_code}' "$2" 2>/dev/null
	fi
}

# ep_probe URL: set SPEAKS to what URL answers, a comma list of anthropic (POST /v1/messages),
# chat (POST /v1/chat/completions), responses (POST /v1/responses) and ollama (GET
# /api/version with a version). An API counts when its path exists: any answer but none,
# 404, 405 or 501 (an empty request is refused with 400 or 401 by a real server, which is
# enough). Sets ERR and fails when nothing answers.
ep_probe() {
	command -v curl >/dev/null 2>&1 || { ERR="curl is needed to probe an endpoint: install curl, or pass --type"; return 1; }
	SPEAKS='' _any=false
	ep_base "$1" ollama
	_v=$(curl -s --noproxy '*' --connect-timeout 3 --max-time 8 "$BASE/api/version" 2>/dev/null) && _any=true
	case $_v in *'"version"'*) SPEAKS=ollama ;; esac
	for _api in anthropic chat responses; do
		ep_base "$1" "$_api"
		case $_api in
		anthropic) _u=$BASE/v1/messages ;;
		chat) _u=$BASE/chat/completions ;;
		responses) _u=$BASE/responses ;;
		esac
		_s=$(ep_status POST "$_u" '{}')
		case $_s in
		000 | '') ;;
		404 | 405 | 501) _any=true ;;
		*) _any=true; SPEAKS=${SPEAKS:+$SPEAKS,}$_api ;;
		esac
	done
	if [ "$_any" = false ]; then
		ERR="$1 does not answer HTTP within 3 seconds: start the model server and check the URL, or pass --type to record it without probing"
		return 1
	fi
	[ -n "$SPEAKS" ] || { ERR="$1 answers, but none of the Anthropic Messages, OpenAI Chat Completions, Responses or Ollama APIs: check the URL (an OpenAI-compatible server's usually ends in /v1)"; return 1; }
}

# ep_type_of SPEAKS: print the type that a probe implies: ollama when the native API answers,
# else anthropic when Messages does, else openai.
ep_type_of() {
	case ,$1, in
	*,ollama,*) echo ollama ;;
	*,anthropic,*) echo anthropic ;;
	*) echo openai ;;
	esac
}

# ep_default_speaks TYPE: what an endpoint recorded with --type and no probe is taken to speak.
ep_default_speaks() {
	case $1 in
	anthropic) echo anthropic ;;
	openai) echo chat ;;
	ollama) echo ollama,chat ;;
	esac
}

ep_add() {
	[ $# -ge 2 ] || die "usage: cli-sandbox endpoints add NAME URL [--type anthropic|openai|ollama] [--model M] [--key-env VAR] [--no-probe]"
	_name=$1 _url=$2 _type='' _model='' _keyenv='' _probe=true _given=
	check_name "$_name"
	shift 2
	while [ $# -gt 0 ]; do
		case $1 in
		--*=*) _a=$1; shift; set -- "${_a%%=*}" "${_a#*=}" "$@"; continue ;;
		--type) need "$@"; _type=$2; shift ;;
		--model) need "$@"; _model=$2; shift ;;
		--key-env) need "$@"; _keyenv=$2; shift ;;
		--speaks) need "$@"; _given=$2; _probe=false; shift ;;
		--no-probe) _probe=false ;;
		*) die "unknown argument '$1' for endpoints add: use --type, --model, --key-env, --speaks or --no-probe" ;;
		esac
		shift
	done
	check_url_userinfo "$_url"  # first: the refusals below print the URL
	case $_url in
	'' | *[[:space:]]*) die "bad URL '$_url': it must be one word, e.g. http://192.168.1.10:4000" ;;
	http://?* | https://?*) ;;
	*) die "bad URL '$_url': it must start with http:// or https://, e.g. http://192.168.1.10:11434" ;;
	esac
	case $_type in
	'' | anthropic | openai | ollama) ;;
	*) die "unknown endpoint type '$_type': use --type anthropic, openai or ollama (or leave it out to probe)" ;;
	esac
	[ -z "$_model" ] || check_model "$_model"
	# The value is not printed: a key given by mistake stays off the screen.
	[ -z "$_keyenv" ] || is_var_name "$_keyenv" || die "bad --key-env: give the NAME of the exported variable that holds the key (letters, digits and '_', e.g. --key-env OPENAI_API_KEY), never the key itself"
	_speaks=$_given
	for _x in $(printf '%s' "$_given" | tr ',' ' '); do
		case $_x in
		anthropic | chat | responses | ollama) ;;
		*) die "unknown API '$_x' in --speaks: use a comma list of anthropic, chat, responses and ollama" ;;
		esac
	done
	[ -z "$_given" ] || [ -n "$_type" ] || die "--speaks needs --type: say which type the endpoint is (anthropic, openai or ollama)"
	if [ "$_probe" = true ]; then
		if ep_probe "$_url"; then
			_speaks=$SPEAKS
		elif [ -z "$_type" ]; then
			die "$ERR"
		else
			warn "$ERR; recorded as type $_type"
		fi
	fi
	if [ "$_probe" = true ] || [ -n "$_type" ]; then
		[ -n "$_type" ] || _type=$(ep_type_of "$_speaks")
		[ -n "$_speaks" ] || _speaks=$(ep_default_speaks "$_type")
		_line="$_name $_url type=$_type speaks=$_speaks"
	else
		_line="$_name $_url"  # --no-probe without --type: the URL as is, as before types
	fi
	[ -z "$_model" ] || _line="$_line model=$_model"
	[ -z "$_keyenv" ] || _line="$_line key-env=$_keyenv"
	ep_without "$_name"
	printf '%s\n' "$_line" >>"$ep_file" || die "cannot write $ep_file: check its permissions"
	echo "$_name: $_url${_type:+, type $_type, speaks $_speaks}${_model:+, model $_model}${_keyenv:+, key from \$$_keyenv}"
}

ep_list() {
	_json=false
	for _a in "$@"; do
		case $_a in
		--json) _json=true ;;
		*) die "usage: cli-sandbox endpoints list [--json]" ;;
		esac
	done
	_cur=
	[ -f "$cur_file" ] && _cur=$(cat "$cur_file")
	if [ "$_json" = false ] && [ ! -s "$ep_file" ]; then
		echo "no endpoints; add one with: cli-sandbox endpoints add NAME URL"
		return 0
	fi
	[ -f "$ep_file" ] || { echo '[]'; return 0; }
	awk -v c="$_cur" -v json="$_json" '
		function esc(s) { gsub(/\\/, "\\\\", s); gsub(/"/, "\\\"", s); return "\"" s "\"" }
		NF >= 2 {
			delete f
			for (i = 3; i <= NF; i++) { k = $i; sub(/=.*/, "", k); v = substr($i, length(k) + 2); f[k] = v }
			if (json == "true") {
				sp = ""; n = split(f["speaks"], a, ",")
				for (i = 1; i <= n; i++) sp = sp (i > 1 ? "," : "") esc(a[i])
				printf "%s{\"name\":%s,\"url\":%s,\"type\":%s,\"model\":%s,\"key_env\":%s,\"speaks\":[%s],\"selected\":%s}", \
					(out++ ? "," : "["), esc($1), esc($2), ("type" in f ? esc(f["type"]) : "null"), \
					("model" in f ? esc(f["model"]) : "null"), ("key-env" in f ? esc(f["key-env"]) : "null"), sp, ($1 == c ? "true" : "false")
			} else {
				printf "%s %s %s%s%s%s%s\n", ($1 == c ? "*" : " "), $1, $2, \
					("type" in f ? " type=" f["type"] : ""), ("model" in f ? " model=" f["model"] : ""), \
					("speaks" in f ? " speaks=" f["speaks"] : ""), ("key-env" in f ? " key=$" f["key-env"] : "")
			}
		}
		END { if (json == "true") print (out ? "]" : "[]") }' "$ep_file"
}

# ep_set NAME KEY VALUE: set (or, with an empty VALUE, remove) KEY on NAME's line.
ep_set() {
	awk -v n="$1" -v k="$2" -v v="$3" '
		$1 == n { line = $1 " " $2; for (i = 3; i <= NF; i++) if (index($i, k "=") != 1) line = line " " $i
		          if (v != "") line = line " " k "=" v; print line; next }
		{ print }' "$ep_file" >"$ep_file.tmp" || die "cannot write $ep_file.tmp: check the permissions of $conf"
	mv -f -- "$ep_file.tmp" "$ep_file" || die "cannot replace $ep_file: check the permissions of $conf"
}
