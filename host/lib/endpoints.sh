# host/lib/endpoints.sh: what the run path reads of the endpoints file (ep_get) and the URL an
# shellcheck shell=sh
# API's clients are given (ep_base). Sourced by host/cli-sandbox (POSIX sh). The endpoints
# file and its commands (endpoints list|add|use|rm) are cli-sandbox-ctl's: docs/hostctl.md.

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
