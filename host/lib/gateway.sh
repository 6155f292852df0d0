# shellcheck shell=sh
# host/lib/gateway.sh: the translator's image and the URL of its upstream, for the plans that
# translate (cli-sandbox-ctl plan, read by host/lib/plan.sh). Sourced by host/cli-sandbox;
# docs/gateway.md.
#
# The translator is claude-code-router in its own image (Dockerfile target gateway), behind the
# key broker: cli-sandbox-ctl session start --translate starts it for a run (and ping), and
# session start --keep for 'up' (host/lib/keys.sh, docs/broker.md). It alone holds the
# endpoint's key; the broker holds its token.

gw_image=${CLI_SANDBOX_GATEWAY_IMAGE:-}

# gw_image_name: set gw_image to the gateway's image next to $image when not chosen:
# REPOSITORY-gateway:TAG (what image/build.sh --cli gateway builds).
gw_image_name() {
	[ -z "$gw_image" ] || return 0
	case ${image##*/} in
	*:*) gw_image=${image%:*}-gateway:${image##*:} ;;
	*) gw_image=$image-gateway:latest ;;
	esac
}

# gw_host_url URL: set HOST_URL to URL as the gateway reaches it: a host-local endpoint
# (localhost, 127.0.0.1, host) at this host's address on the network the gateway's container
# is started on (CLI_SANDBOX_GATEWAY_UPSTREAM_NETWORK's gateway, else the engine's default
# network's), unless CLI_SANDBOX_HOST_ADDRESS names it. Sets ERR and fails when unknown.
gw_host_url() {
	HOST_NET=${CLI_SANDBOX_GATEWAY_UPSTREAM_NETWORK:-}
	host_url "$1"
	_rc=$? HOST_NET=''
	return $_rc
}
