# shellcheck shell=sh
# host/lib/endpoints.sh: the URL an API's clients are given (ep_base). Sourced by
# host/cli-sandbox (POSIX sh). The endpoints file and its commands (endpoints list|add|use|rm)
# are cli-sandbox-ctl's, and so is what a run reads of it (runner): docs/hostctl.md.

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
