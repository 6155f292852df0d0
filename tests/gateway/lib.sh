# shellcheck shell=sh
# Shared by the gateway tests (sourced; they set LIMITS and PYIMAGE).

# tokenless_status NETWORK IP: the HTTP status the gateway at IP:3456 gives a Messages request
# that carries no token, asked from a fresh container on NETWORK (as another container there
# would ask); "error ..." when nothing answers.
tokenless_status() {
	# shellcheck disable=SC2086 # LIMITS is a list of words
	podman run --rm $LIMITS --network "$1" "$PYIMAGE" python3 -c '
import sys, urllib.request, urllib.error
req = urllib.request.Request("http://%s:3456/v1/messages" % sys.argv[1], data=b"{\"model\":\"m\",\"max_tokens\":5,\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}", headers={"content-type": "application/json"})
try: print(urllib.request.urlopen(req, timeout=10).status)
except urllib.error.HTTPError as e: print(e.code)
except Exception as e: print("error", e)' "$2"
}
