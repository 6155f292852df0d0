# cli-sandbox image: one AI coding CLI (claude, codex or pi) started by cli-sandbox-init,
# which programs the egress firewall, drops every privilege and runs the CLI as `node`.
#
# Production build (registry reachable):
#   docker build -t cli-sandbox:latest .
# Offline build from locally made Debian images (tests/image/make-base-image.sh):
#   podman build --network host --runtime runc \
#     --build-arg BUILD_BASE=localhost/cli-sandbox-base:trixie \
#     --build-arg RUNTIME_BASE=localhost/cli-sandbox-base:trixie \
#     --build-arg INSTALL_NODEJS_FROM_APT=1 -t cli-sandbox:latest .
#
# Build arguments:
#   BUILD_BASE               Debian trixie image for the build stage (default debian:trixie)
#   RUNTIME_BASE             image with Node.js >= 20 (default node:20-trixie-slim); with
#                            INSTALL_NODEJS_FROM_APT=1 a plain Debian trixie image is enough
#   INSTALL_NODEJS_FROM_APT  1: install Debian's nodejs + npm, use npm for the CLIs, then
#                            purge npm again (it is not needed at run time)
#   CLAUDE_CODE_VERSION, CODEX_VERSION, PI_VERSION   pinned CLI versions (docs/cli-wiring.md)
#   FETCH_PROVIDER_RANGES    1 (default): fetch the interactive profile's provider range
#                            files at build time; 0: build without network access to them
#   VERSION, IMAGE_SOURCE, IMAGE_LICENSES            OCI label values
#
# Build secret (optional): extra_ca, a PEM bundle that npm should trust in addition to
# the system CAs (a TLS-inspecting proxy between the builder and the npm registry):
#   --secret id=extra_ca,src=/etc/ssl/certs/ca-certificates.crt
# It is mounted for the npm step only and never stored in the image.

ARG BUILD_BASE=debian:trixie
ARG RUNTIME_BASE=node:20-trixie-slim

# ---------------------------------------------------------------------------------------
FROM ${BUILD_BASE} AS build

# 1: fetch GitHub's and Google's published ranges for the interactive profile
# (scripts/refresh-ranges) into /etc/cli-sandbox/profiles; 0 where the build
# has no route to the providers.  The profile itself is built into the init.
ARG FETCH_PROVIDER_RANGES=1

RUN set -eux; \
    apt-get update; \
    DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
        build-essential cmake pkg-config curl ca-certificates \
        libnftnl-dev libmnl-dev libcap-ng-dev libjansson-dev; \
    rm -rf /var/lib/apt/lists/*

WORKDIR /src
COPY . .

RUN set -eux; \
    cmake -S /src -B /build -DCLI_SANDBOX_STATIC=ON -DCLI_SANDBOX_TESTS=OFF -DCLI_SANDBOX_WERROR=ON; \
    cmake --build /build --parallel "$(nproc)"; \
    ldd /build/cli-sandbox-init > /tmp/ldd.out 2>&1 || true; \
    cat /tmp/ldd.out; \
    grep -q 'not a dynamic executable' /tmp/ldd.out; \
    /build/cli-sandbox-init --version; \
    install -D -m 0755 /build/cli-sandbox-init /out/usr/local/sbin/cli-sandbox-init; \
    strip --strip-unneeded /out/usr/local/sbin/cli-sandbox-init; \
    install -d -m 0755 /out/etc/cli-sandbox/profiles; \
    if [ "$FETCH_PROVIDER_RANGES" = 1 ]; then \
        sh /src/scripts/refresh-ranges --init /build/cli-sandbox-init /out/etc/cli-sandbox/profiles \
        || echo "warning: provider range files not fetched; the interactive profile will allow names only" >&2; \
    fi; \
    install -D -m 0644 /src/image/pi-base-url.js /out/usr/local/share/cli-sandbox/pi-base-url.js

# ---------------------------------------------------------------------------------------
FROM ${RUNTIME_BASE} AS runtime

ARG INSTALL_NODEJS_FROM_APT=0
ARG CLAUDE_CODE_VERSION=2.1.197
ARG CODEX_VERSION=0.171.0
ARG PI_VERSION=0.73.1
ARG VERSION=0.1.0
ARG IMAGE_SOURCE=
ARG IMAGE_LICENSES=NOASSERTION

# One layer: OS packages, the node user, the three CLIs, then every cleanup, so that
# nothing removed here (npm from apt, caches, package lists) stays in a lower layer.
# ripgrep and fd-find: pi uses rg/fdfind from PATH instead of downloading them.
# claude's postinstall copies its glibc binary into place; an npm without "libc"
# filtering (Debian's npm 9) also fetches the musl build, which nothing uses: removed.
RUN --mount=type=secret,id=extra_ca \
    set -eux; \
    export DEBIAN_FRONTEND=noninteractive; \
    apt-get update; \
    node_pkgs=; \
    if [ "$INSTALL_NODEJS_FROM_APT" = 1 ]; then node_pkgs='nodejs npm'; fi; \
    apt-get install -y --no-install-recommends \
        ca-certificates git ripgrep fd-find $node_pkgs; \
    node -e 'process.exit(Number(process.versions.node.split(".")[0]) >= 20 ? 0 : 1)'; \
    \
    if ! getent group node >/dev/null; then groupadd --gid 1000 node; fi; \
    if ! getent passwd node >/dev/null; then \
        useradd --uid 1000 --gid node --home-dir /home/node --create-home \
            --shell /bin/bash node; \
    fi; \
    test "$(id -u node):$(id -g node)" = 1000:1000; \
    test "$(getent passwd node | cut -d: -f6)" = /home/node; \
    install -d -o node -g node -m 0755 /home/node /workspace; \
    \
    if [ -s /run/secrets/extra_ca ]; then export NODE_EXTRA_CA_CERTS=/run/secrets/extra_ca; fi; \
    npm install --global --prefix /usr/local --no-audit --no-fund --no-update-notifier \
        "@anthropic-ai/claude-code@${CLAUDE_CODE_VERSION}" \
        "@openai/codex@${CODEX_VERSION}" \
        "@mariozechner/pi-coding-agent@${PI_VERSION}"; \
    rm -rf /usr/local/lib/node_modules/@anthropic-ai/claude-code/node_modules/@anthropic-ai/claude-code-linux-*-musl \
           /usr/local/lib/node_modules/@anthropic-ai/claude-code-linux-*-musl; \
    export HOME=/tmp/cli-version-check; \
    test "$(claude --version)" = "${CLAUDE_CODE_VERSION} (Claude Code)"; \
    test "$(codex --version)" = "codex-cli ${CODEX_VERSION}"; \
    test "$(pi --version 2>&1)" = "${PI_VERSION}"; \
    export HOME=/root; unset NODE_EXTRA_CA_CERTS; \
    \
    npm cache clean --force; \
    if [ "$INSTALL_NODEJS_FROM_APT" = 1 ]; then \
        apt-get purge -y --auto-remove npm; \
        node --version; \
    fi; \
    apt-get clean; \
    rm -rf /var/lib/apt/lists/* /var/cache/apt/* /var/log/apt/* /var/log/dpkg.log \
           /root/.npm /root/.cache /root/.config /tmp/* /tmp/.[!.]* /var/tmp/*

COPY --from=build /out/ /

# No setuid/setgid binaries (nothing the CLIs run needs them, and no_new_privs would
# ignore them anyway), and none of the tools the firewall design rules out.
RUN set -eux; \
    find / -xdev -type f -perm /6000 -exec chmod u-s,g-s {} +; \
    test -z "$(find / -xdev -type f -perm /6000 -print -quit)"; \
    for tool in sudo iptables ip6tables ipset dig nslookup jq; do \
        if command -v "$tool" >/dev/null; then echo "unexpected $tool in the image" >&2; exit 1; fi; \
    done; \
    /usr/local/sbin/cli-sandbox-init --version

LABEL org.opencontainers.image.title="cli-sandbox" \
      org.opencontainers.image.description="Runs one AI coding CLI (claude, codex or pi) as an unprivileged user behind an nftables egress firewall programmed by cli-sandbox-init" \
      org.opencontainers.image.source="${IMAGE_SOURCE}" \
      org.opencontainers.image.licenses="${IMAGE_LICENSES}" \
      org.opencontainers.image.version="${VERSION}" \
      io.cli-sandbox.claude-code.version="${CLAUDE_CODE_VERSION}" \
      io.cli-sandbox.codex.version="${CODEX_VERSION}" \
      io.cli-sandbox.pi.version="${PI_VERSION}"

WORKDIR /workspace
ENTRYPOINT ["/usr/local/sbin/cli-sandbox-init"]
CMD ["claude"]
