# host/lib/models.sh: an Ollama endpoint's models through Ollama's own API (/api/tags,
# shellcheck shell=sh disable=SC2154,SC2034,SC2016 # variables (and $NAMES meant literally) set by host/cli-sandbox, which sources this
# /api/show, /api/pull), from this host. Sourced by host/cli-sandbox; docs/gateway.md.

# ollama_base: set OB to the selected endpoint's native API base, or die when it is not Ollama.
ollama_base() {
	EP_URL=$(endpoint_url "$endpoint") || die "no endpoint named '$endpoint': see 'cli-sandbox endpoints list'"
	EP_TYPE=$(ep_get "$endpoint" type) EP_MODEL=$(ep_get "$endpoint" model)
	[ "$EP_TYPE" = ollama ] || die "endpoint '$endpoint' is not an Ollama endpoint (type ${EP_TYPE:-unknown}): models works with Ollama only; choose one with --endpoint NAME"
	command -v curl >/dev/null 2>&1 || die "curl is needed to talk to Ollama: install curl"
	ep_base "$EP_URL" ollama; OB=$BASE
}

# ollama_names: print the installed models, one a line; dies when Ollama does not answer.
ollama_names() {
	_t=$(curl -sf --noproxy '*' --connect-timeout 3 --max-time 10 "$OB/api/tags" 2>/dev/null) ||
		die "Ollama at $OB does not answer: start it (ollama serve; OLLAMA_HOST=0.0.0.0 for containers) and check 'cli-sandbox endpoints list'"
	printf '%s\n' "$_t" | tr '{' '\n' | sed -n 's/.*"name": *"\([^"]*\)".*/\1/p'
}

# ollama_has MODEL: MODEL (or MODEL:latest) is installed.
ollama_has() {
	_m=$1
	case $_m in *:*) ;; *) _m=$_m:latest ;; esac
	ollama_names | grep -qxF -e "$1" -e "$_m"
}

# models_check_installed: before run, shell or up: on an Ollama endpoint with a model, stop
# early when the model is not installed (rather than a gateway error mid-session).
models_check_installed() {
	[ "$dry_run" = false ] && [ "$EP_TYPE" = ollama ] && [ -n "$EP_MODEL" ] || return 0
	ollama_base
	# From this host; where this host cannot reach the endpoint (it is on a container network
	# only the gateway reaches), ping and the gateway report a missing model instead.
	if ! curl -sf -o /dev/null --noproxy '*' --connect-timeout 3 --max-time 10 "$OB/api/tags" 2>/dev/null; then
		return 0
	fi
	shq "$EP_MODEL"
	ollama_has "$EP_MODEL" || die "model $EP_MODEL is not installed on endpoint '$endpoint': pull it with 'cli-sandbox --endpoint $endpoint models pull $Q', or choose another with 'models use'"
}

# models_pull MODEL: pull with progress: a bar on a terminal, plain lines otherwise.
models_pull() {
	_tty=false
	[ -t 1 ] && _tty=true
	curl -sN --noproxy '*' --connect-timeout 3 --max-time 7200 -H 'content-type: application/json' \
		--data-binary "{\"model\":$(json_str "$1"),\"stream\":true}" "$OB/api/pull" 2>/dev/null |
		awk -v tty="$_tty" '
			function field(k,   m) { if (match($0, "\"" k "\": *\"[^\"]*\"")) { m = substr($0, RSTART, RLENGTH); sub(/^[^:]*: *"/, "", m); sub(/"$/, "", m); return m } return "" }
			function num(k,   m) { if (match($0, "\"" k "\": *[0-9]+")) { m = substr($0, RSTART, RLENGTH); sub(/^[^:]*: */, "", m); return m + 0 } return -1 }
			function gb(n) { return sprintf("%.1f GB", n / 1e9) }
			{ e = field("error"); if (e != "") { if (bar) printf "\n"; print "error: " e; err = 1; exit 1 }
			  s = field("status"); t = num("total"); c = num("completed")
			  if (t > 0 && c >= 0) {
				  p = int(c * 100 / t)
				  if (tty == "true") { n = int(p / 4); b = ""; for (i = 0; i < 25; i++) b = b (i < n ? "#" : "-")
				                       printf "\r%s [%s] %3d%% %s of %s", s, b, p, gb(c), gb(t); bar = 1 }
				  else if (p != last[s]) { printf "%s: %d%% (%s of %s)\n", s, p, gb(c), gb(t); last[s] = p }
			  } else { if (bar) { printf "\n"; bar = 0 } print s; if (s == "success") ok = 1 } }
			END { if (bar) printf "\n"; exit (ok ? 0 : 1) }'
}

models_main() {
	_sub=${1:-list}
	[ $# -gt 0 ] && shift
	case $_sub in
	catalog)
		printf '%-18s %-6s %-7s %s\n' MODEL RAM DISK NOTE
		grep -v '^#' "$libdir/models-catalog.tsv" | awk -F '\t' '{ printf "%-18s %-6s %-7s %s\n", $1, $2, $3, $4 }'
		echo "pull one with: cli-sandbox models pull MODEL; then: cli-sandbox models use MODEL"
		;;
	list)
		[ $# -eq 0 ] || die "usage: cli-sandbox models list"
		ollama_base
		_names=$(ollama_names)
		[ -n "$_names" ] || { echo "no models installed on '$endpoint': see 'cli-sandbox models catalog', then 'cli-sandbox models pull MODEL'"; return 0; }
		printf '%s\n' "$_names" | while read -r _m; do
			_show=$(curl -s --noproxy '*' --connect-timeout 3 --max-time 10 -H 'content-type: application/json' \
				--data-binary "{\"model\":$(json_str "$_m")}" "$OB/api/show" 2>/dev/null)
			case $_show in
			*'"capabilities"'*'"tools"'*) _tools='calls tools' ;;
			*) _tools='no tool calls (a tool-driven CLI cannot use it)' ;;
			esac
			_mark=' '
			[ "$_m" != "$EP_MODEL" ] || _mark='*'
			printf '%s %-24s %s\n' "$_mark" "$_m" "$_tools"
		done
		;;
	pull)
		[ $# -eq 1 ] || die "usage: cli-sandbox models pull MODEL"
		check_model "$1"
		ollama_base
		models_pull "$1" || die "pulling $1 failed: check the name in 'cli-sandbox models catalog' or on ollama.com/library"
		;;
	use)
		_m='' _pull=false
		for _a in "$@"; do
			case $_a in
			--pull) _pull=true ;;
			-*) die "usage: cli-sandbox models use MODEL [--pull]" ;;
			*) [ -z "$_m" ] || die "usage: cli-sandbox models use MODEL [--pull]"; _m=$_a ;;
			esac
		done
		[ -n "$_m" ] || die "usage: cli-sandbox models use MODEL [--pull]"
		check_model "$_m"
		ollama_base
		shq "$_m"; _mq=$Q
		if ! ollama_has "$_m"; then
			if [ "$_pull" = false ] && [ -t 0 ] && [ -t 1 ]; then
				printf '%s is not installed on %s; pull it now? [y/N] ' "$_m" "$endpoint"
				read -r _ans || _ans=
				case $_ans in y | Y | yes) _pull=true ;; esac
			fi
			[ "$_pull" = true ] || die "model $_m is not installed on endpoint '$endpoint': pull it with 'cli-sandbox models pull $_mq', or run 'cli-sandbox models use $_mq --pull'"
			models_pull "$_m" || die "pulling $_m failed: check the name in 'cli-sandbox models catalog'"
		fi
		ep_set "$endpoint" model "$_m"
		echo "endpoint '$endpoint' now uses $_m"
		;;
	*) die "unknown models command '$_sub': use catalog, list, pull MODEL or use MODEL [--pull]" ;;
	esac
}
