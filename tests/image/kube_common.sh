# tests/image/kube_common.sh: what the kube play tests (tests/image/kube.sh, kube_pinned.sh)
# shellcheck shell=sh
# share: their clean-up, their preflight and the containers.conf that gives kube play the
# runtime and rlimits (CONTAINERS_CONF, the only place it reads them from). Sourced after
# tests/netns/topology.sh, with ROOT, IMAGE and WORK (a temporary directory) set.

PY=/usr/bin/python3  # Debian's, with python3-kubernetes
TOOL="$ROOT/tests/kube/manifests.py"
PODS=""
VOLUMES=""

engine() {  # engine CMD...: one engine command with the test's runtime and rlimits
	CONTAINERS_CONF="$WORK/containers.conf" "$@"
}
kube_cleanup() {  # only the pods and volumes this test made, then its namespaces
	for p in $PODS; do
		engine podman pod rm -f "$p" >/dev/null 2>&1
	done
	for v in $VOLUMES; do
		engine podman volume rm -f "$v" >/dev/null 2>&1
	done
	topo_down
	rm -rf "$WORK"
}
note() { sed 's/^/#   /'; }
bail() { echo "Bail out! $*"; exit 1; }

# kube_preflight: root, the tools, python3-kubernetes, the containers.conf and the image.
kube_preflight() {
	[ "$(id -u)" -eq 0 ] || bail "run as root (podman and network namespaces)"
	for c in podman nsenter ip timeout catatonit; do
		command -v "$c" >/dev/null 2>&1 || bail "$c is missing (tests/install-deps.sh)"
	done
	$PY -c 'import kubernetes, yaml' 2>/dev/null || bail "python3-kubernetes is missing (tests/install-deps.sh)"
	cat >"$WORK/containers.conf" <<'CONF'
[containers]
default_ulimits = ["nofile=1024:1024", "nproc=1000:1000"]
[engine]
runtime = "runc"
CONF
	engine podman image exists "$IMAGE" || bail "no image $IMAGE (tests/image/run.sh builds it)"
}
