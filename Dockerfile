# cli-sandbox image: an AI coding CLI (claude, codex or pi) started by cli-sandbox-init,
# which programs the egress firewall, drops every privilege and runs the CLI as `node`,
# on top of a developer toolset from Debian trixie.
#
# Targets: the default (last) target `all` holds the three CLIs, CMD claude; the targets
# `claude`, `codex` and `pi` hold that one CLI only, and it is their CMD; the target `gateway`
# is the model gateway that runs beside a sandbox (docs/gateway.md).
#
# Production build (registry reachable):
#   docker build -t localhost/cli-sandbox:latest .
#   docker build --target codex -t localhost/cli-sandbox:codex .
# Offline build from locally made Debian images (image/build.sh does this):
#   podman build --network host --runtime runc \
#     --build-arg BUILD_BASE=localhost/cli-sandbox-base:trixie \
#     --build-arg RUNTIME_BASE=localhost/cli-sandbox-base:trixie \
#     --build-arg INSTALL_NODEJS_FROM_APT=1 -t localhost/cli-sandbox:latest .
#
# Layers, from the bottom: the base, the toolset (one RUN, shared by every target), each
# CLI's npm tree (made once in a stage of its own and copied in, so the four images never
# download a CLI twice and the all-in-one shares its claude layer with the claude image),
# the init, a check. Changing the C code rebuilds only the last two.
#
# Build arguments:
#   BUILD_BASE               Debian trixie image for the build stage (default debian:trixie)
#   RUNTIME_BASE             image with Node.js >= 20 (default node:20-trixie-slim); with
#                            INSTALL_NODEJS_FROM_APT=1 a plain Debian trixie image is enough
#   INSTALL_NODEJS_FROM_APT  1: Debian's nodejs in the image; Debian's npm only in the
#                            stages that install the CLIs (it never reaches the image)
#   CLAUDE_CODE_VERSION, CODEX_VERSION, PI_VERSION   pinned CLI versions (docs/cli-wiring.md)
#   CLAUDE_CODE_ROUTER_VERSION                       the gateway's pinned version (docs/gateway.md)
#   FETCH_PROVIDER_RANGES    1 (default): fetch the interactive profile's provider range
#                            files at build time; 0: build without network access to them
#   VERSION, IMAGE_SOURCE, IMAGE_LICENSES            OCI label values
#   SOURCE_COMMIT, SOURCE_DATE_EPOCH   the commit the init is built from and its time
#                            (image/build.sh passes both; docs/release.md)
#
# Build secret (optional): extra_ca, a PEM bundle that npm should trust in addition to
# the system CAs (a TLS-inspecting proxy between the builder and the npm registry):
#   --secret id=extra_ca,src=/etc/ssl/certs/ca-certificates.crt
# It is mounted for the npm steps only and never stored in the image.

ARG BUILD_BASE=debian:trixie
ARG RUNTIME_BASE=node:20-trixie-slim
ARG CLAUDE_CODE_VERSION=2.1.197
ARG CODEX_VERSION=0.171.0
ARG PI_VERSION=0.73.1
ARG GEMINI_VERSION=0.61.0
ARG OPENCODE_VERSION=1.18.33
ARG CLAUDE_CODE_ROUTER_VERSION=2.0.0

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
        libnftnl-dev libmnl-dev libcap-ng-dev libjansson-dev libseccomp-dev; \
    rm -rf /var/lib/apt/lists/*

WORKDIR /src
COPY . .

# release (issue 24, docs/release.md): the commit the init says it is built from (the
# context has no .git; image/build.sh passes it) and the commit's time, so that two
# builds of one commit give the same init.
ARG SOURCE_COMMIT=unknown
ARG SOURCE_DATE_EPOCH=0
RUN set -eux; \
    export SOURCE_DATE_EPOCH; \
    cmake -S /src -B /build -DCLI_SANDBOX_STATIC=ON -DCLI_SANDBOX_TESTS=OFF -DCLI_SANDBOX_WERROR=ON \
        -DCLI_SANDBOX_COMMIT="$SOURCE_COMMIT"; \
    cmake --build /build --parallel "$(nproc)"; \
    ldd /build/cli-sandbox-init > /tmp/ldd.out 2>&1 || true; \
    cat /tmp/ldd.out; \
    grep -Eq 'not a dynamic executable|statically linked' /tmp/ldd.out; \
    readelf -lW /build/cli-sandbox-init | grep -q GNU_RELRO; \
    readelf -dW /build/cli-sandbox-init | grep -q 'FLAGS_1.*NOW.*PIE'; \
    /build/cli-sandbox-init --version; \
    install -D -m 0755 /build/cli-sandbox-init /out/usr/local/sbin/cli-sandbox-init; \
    strip --strip-unneeded /out/usr/local/sbin/cli-sandbox-init; \
    ldd /build/cli-sandbox-resolver > /tmp/ldd.out 2>&1 || true; \
    grep -Eq 'not a dynamic executable|statically linked' /tmp/ldd.out; \
    readelf -dW /build/cli-sandbox-resolver | grep -q 'FLAGS_1.*NOW.*PIE'; \
    install -D -m 0755 /build/cli-sandbox-resolver /out/usr/local/sbin/cli-sandbox-resolver; \
    strip --strip-unneeded /out/usr/local/sbin/cli-sandbox-resolver; \
    install -d -m 0755 /out/usr/share/doc/cli-sandbox; \
    sh /src/image/release/init-archives.sh /build > /out/usr/share/doc/cli-sandbox/init-archives.tsv; \
    cat /out/usr/share/doc/cli-sandbox/init-archives.tsv; \
    install -d -m 0755 /out/etc/cli-sandbox/profiles; \
    if [ "$FETCH_PROVIDER_RANGES" = 1 ]; then \
        sh /src/scripts/refresh-ranges --init /build/cli-sandbox-init /out/etc/cli-sandbox/profiles \
        || echo "warning: provider range files not fetched; the interactive profile will allow names only" >&2; \
    fi; \
    install -D -m 0644 /src/image/pi-base-url.js /out/usr/local/share/cli-sandbox/pi-base-url.js; \
    install -m 0644 /src/image/gemini-managed.json /src/image/gemini-gateway.json /out/usr/local/share/cli-sandbox/


# ---------------------------------------------------------------------------------------
# The runtime base of every target: the toolset and the node user. No build argument but
# INSTALL_NODEJS_FROM_APT is in scope before this RUN, so it stays cached across builds.
FROM ${RUNTIME_BASE} AS toolset

ARG INSTALL_NODEJS_FROM_APT=0

# What an agent reaches for in everyday work, all from Debian trixie (Docker's own CLI
# only: docker-cli ships /usr/bin/docker, no daemon). fd-find calls itself fdfind; the
# fd link is the name people and models type. pi uses rg and fdfind from PATH instead of
# downloading them. setuid/setgid bits are cleared in this same layer (nothing the CLIs
# run needs them, and no_new_privs would ignore them anyway).
RUN set -eux; \
    export DEBIAN_FRONTEND=noninteractive; \
    apt-get update; \
    node_pkgs=; \
    if [ "$INSTALL_NODEJS_FROM_APT" = 1 ]; then node_pkgs=nodejs; fi; \
    apt-get install -y --no-install-recommends \
        ca-certificates curl git openssh-client ripgrep fd-find gh \
        jq make patch diffutils less procps psmisc tree unzip zip file \
        nano vim-tiny \
        python3 python3-venv python3-pip build-essential \
        bubblewrap docker-cli \
        $node_pkgs; \
    node -e 'process.exit(Number(process.versions.node.split(".")[0]) >= 20 ? 0 : 1)'; \
    ln -s /usr/bin/fdfind /usr/local/bin/fd; \
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
    find / -xdev -type f -perm /6000 -exec chmod u-s,g-s {} +; \
    apt-get clean; \
    rm -rf /var/lib/apt/lists/* /var/cache/apt/* /var/log/apt/* /var/log/dpkg.log \
           /root/.cache /tmp/* /tmp/.[!.]* /var/tmp/*; \
    # release (issue 24): the two files that made two builds of this layer differ (a log
    # with times, ldconfig's cache of inode data); ldconfig remakes its cache when needed.
    rm -f /var/log/alternatives.log /var/cache/ldconfig/aux-cache

ARG VERSION=0.1.0
ARG IMAGE_SOURCE=
ARG IMAGE_LICENSES=NOASSERTION
LABEL org.opencontainers.image.title="cli-sandbox" \
      org.opencontainers.image.description="Runs one AI coding CLI (claude, codex or pi) as an unprivileged user behind an nftables egress firewall programmed by cli-sandbox-init" \
      org.opencontainers.image.source="${IMAGE_SOURCE}" \
      org.opencontainers.image.licenses="${IMAGE_LICENSES}" \
      org.opencontainers.image.version="${VERSION}"
WORKDIR /workspace
ENTRYPOINT ["/usr/local/sbin/cli-sandbox-init"]

# ---------------------------------------------------------------------------------------
# npm, for the stages below only: each installs one CLI into /opt/cli, a prefix of its
# own, which the targets copy to /usr/local (npm's bin links are relative).
FROM ${RUNTIME_BASE} AS npm

ARG INSTALL_NODEJS_FROM_APT=0

RUN set -eux; \
    if [ "$INSTALL_NODEJS_FROM_APT" = 1 ]; then \
        apt-get update; \
        DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
            ca-certificates nodejs npm; \
    fi; \
    npm --version

# Each npm-CLI stage also writes /opt/cli/share/doc/cli-sandbox/npm/CLI.spdx.json, npm's own
# SPDX document of the tree it installed (image/release/npm-sbom.sh, issue 24).
FROM npm AS npm-claude
ARG CLAUDE_CODE_VERSION
# claude's postinstall copies its glibc binary into place; an npm without "libc"
# filtering (Debian's npm 9) also fetches the musl build, which nothing uses: removed.
RUN --mount=type=secret,id=extra_ca \
    --mount=type=bind,source=image/release/npm-sbom.sh,target=/tmp/npm-sbom.sh \
    set -eux; \
    if [ -s /run/secrets/extra_ca ]; then export NODE_EXTRA_CA_CERTS=/run/secrets/extra_ca; fi; \
    npm install --global --prefix /opt/cli --no-audit --no-fund --no-update-notifier \
        "@anthropic-ai/claude-code@${CLAUDE_CODE_VERSION}"; \
    sh /tmp/npm-sbom.sh claude; \
    rm -rf /opt/cli/lib/node_modules/@anthropic-ai/claude-code/node_modules/@anthropic-ai/claude-code-linux-*-musl \
           /opt/cli/lib/node_modules/@anthropic-ai/claude-code-linux-*-musl \
           /opt/cli/lib/node_modules/.package-lock.json

FROM npm AS npm-codex
ARG CODEX_VERSION
RUN --mount=type=secret,id=extra_ca \
    --mount=type=bind,source=image/release/npm-sbom.sh,target=/tmp/npm-sbom.sh \
    set -eux; \
    if [ -s /run/secrets/extra_ca ]; then export NODE_EXTRA_CA_CERTS=/run/secrets/extra_ca; fi; \
    npm install --global --prefix /opt/cli --no-audit --no-fund --no-update-notifier \
        "@openai/codex@${CODEX_VERSION}"; \
    sh /tmp/npm-sbom.sh codex; \
    rm -rf /opt/cli/lib/node_modules/.package-lock.json

FROM npm AS npm-pi
ARG PI_VERSION
RUN --mount=type=secret,id=extra_ca \
    --mount=type=bind,source=image/release/npm-sbom.sh,target=/tmp/npm-sbom.sh \
    set -eux; \
    if [ -s /run/secrets/extra_ca ]; then export NODE_EXTRA_CA_CERTS=/run/secrets/extra_ca; fi; \
    npm install --global --prefix /opt/cli --no-audit --no-fund --no-update-notifier \
        "@mariozechner/pi-coding-agent@${PI_VERSION}"; \
    sh /tmp/npm-sbom.sh pi; \
    rm -rf /opt/cli/lib/node_modules/.package-lock.json

FROM npm AS npm-gemini
ARG GEMINI_VERSION
# Its optional native helpers (node-pty, keytar) are left to npm: without them gemini
# runs its shell tool through child_process.
RUN --mount=type=secret,id=extra_ca \
    set -eux; \
    if [ -s /run/secrets/extra_ca ]; then export NODE_EXTRA_CA_CERTS=/run/secrets/extra_ca; fi; \
    npm install --global --prefix /opt/cli --no-audit --no-fund --no-update-notifier \
        "@google/gemini-cli@${GEMINI_VERSION}"; \
    rm -rf /opt/cli/lib/node_modules/.package-lock.json

FROM npm AS npm-opencode
ARG OPENCODE_VERSION
# opencode's postinstall links the binary of this machine's build (AVX2 or baseline) to
# bin/opencode.exe; the platform packages it chose from (177 MB each) are then removed.
RUN --mount=type=secret,id=extra_ca \
    set -eux; \
    if [ -s /run/secrets/extra_ca ]; then export NODE_EXTRA_CA_CERTS=/run/secrets/extra_ca; fi; \
    npm install --global --prefix /opt/cli --no-audit --no-fund --no-update-notifier \
        "opencode-ai@${OPENCODE_VERSION}"; \
    d=/opt/cli/lib/node_modules/opencode-ai; \
    test "$(stat -c %s "$d/bin/opencode.exe")" -gt 1000000; \
    cp "$d/bin/opencode.exe" "$d/bin/opencode.copy" && mv "$d/bin/opencode.copy" "$d/bin/opencode.exe"; \
    rm -rf "$d"/node_modules/opencode-* /opt/cli/lib/node_modules/opencode-linux-* \
        /opt/cli/lib/node_modules/.package-lock.json

# ---------------------------------------------------------------------------------------
# The targets. Each: toolset, its CLI tree(s), the init, then image/check-image.sh, which
# fails the build on a setuid/setgid file, a forbidden tool (sudo, iptables, nft, a
# Docker daemon...), a missing tool, or a CLI that is missing, not the pinned version,
# or present although this target does not ship it.
FROM toolset AS claude
ARG CLAUDE_CODE_VERSION
COPY --from=npm-claude /opt/cli/ /usr/local/
COPY --from=build /out/ /
RUN --mount=type=bind,source=image/check-image.sh,target=/tmp/check-image.sh \
    sh /tmp/check-image.sh "claude=${CLAUDE_CODE_VERSION}"
LABEL io.cli-sandbox.cli="claude" \
      io.cli-sandbox.claude-code.version="${CLAUDE_CODE_VERSION}"
CMD ["claude"]

FROM toolset AS codex
ARG CODEX_VERSION
COPY --from=npm-codex /opt/cli/ /usr/local/
COPY --from=build /out/ /
RUN --mount=type=bind,source=image/check-image.sh,target=/tmp/check-image.sh \
    sh /tmp/check-image.sh "codex=${CODEX_VERSION}"
LABEL io.cli-sandbox.cli="codex" \
      io.cli-sandbox.codex.version="${CODEX_VERSION}"
CMD ["codex"]

FROM toolset AS pi
ARG PI_VERSION
COPY --from=npm-pi /opt/cli/ /usr/local/
COPY --from=build /out/ /
RUN --mount=type=bind,source=image/check-image.sh,target=/tmp/check-image.sh \
    sh /tmp/check-image.sh "pi=${PI_VERSION}"
LABEL io.cli-sandbox.cli="pi" \
      io.cli-sandbox.pi.version="${PI_VERSION}"
CMD ["pi"]

FROM toolset AS gemini
ARG GEMINI_VERSION
COPY --from=npm-gemini /opt/cli/ /usr/local/
COPY --from=build /out/ /
RUN --mount=type=bind,source=image/check-image.sh,target=/tmp/check-image.sh \
    sh /tmp/check-image.sh "gemini=${GEMINI_VERSION}"
LABEL io.cli-sandbox.cli="gemini" \
      io.cli-sandbox.gemini.version="${GEMINI_VERSION}"
CMD ["gemini"]

FROM toolset AS opencode
ARG OPENCODE_VERSION
COPY --from=npm-opencode /opt/cli/ /usr/local/
COPY --from=build /out/ /
# opencode keeps its data, state, config and cache under the XDG folders of the home:
# there for node, so that a state folder mounted at ~/.local/share/opencode leaves the
# parents writable by the CLI.
RUN install -d -o 1000 -g 1000 /home/node/.local /home/node/.local/share /home/node/.local/state \
        /home/node/.config /home/node/.cache
RUN --mount=type=bind,source=image/check-image.sh,target=/tmp/check-image.sh \
    sh /tmp/check-image.sh "opencode=${OPENCODE_VERSION}"
LABEL io.cli-sandbox.cli="opencode" \
      io.cli-sandbox.opencode.version="${OPENCODE_VERSION}"
CMD ["opencode"]

# ---------------------------------------------------------------------------------------
# The model gateway that runs beside a sandbox when an endpoint does not speak the CLI's
# API (docs/gateway.md): claude-code-router, pinned, on the bare base with Debian's
# Node.js only (no toolset, no init: it is not a sandbox), as an unprivileged user.
# image/build.sh --cli gateway tags it REPOSITORY-gateway:TAG.
FROM npm AS npm-gateway
ARG CLAUDE_CODE_ROUTER_VERSION
RUN --mount=type=secret,id=extra_ca \
    set -eux; \
    if [ -s /run/secrets/extra_ca ]; then export NODE_EXTRA_CA_CERTS=/run/secrets/extra_ca; fi; \
    npm install --global --prefix /opt/cli --no-audit --no-fund --no-update-notifier \
        "@musistudio/claude-code-router@${CLAUDE_CODE_ROUTER_VERSION}"; \
    rm -rf /opt/cli/lib/node_modules/.package-lock.json

FROM ${RUNTIME_BASE} AS gateway
ARG INSTALL_NODEJS_FROM_APT=0
ARG CLAUDE_CODE_ROUTER_VERSION
RUN set -eux; \
    if [ "$INSTALL_NODEJS_FROM_APT" = 1 ]; then \
        apt-get update; \
        DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends nodejs ca-certificates; \
        apt-get clean; rm -rf /var/lib/apt/lists/* /var/cache/apt/* /var/log/apt/* /var/log/dpkg.log; \
    fi; \
    useradd --uid 1001 --user-group --home-dir /home/gateway --create-home --shell /usr/sbin/nologin gateway; \
    find / -xdev -type f -perm /6000 -exec chmod u-s,g-s {} +
COPY --from=npm-gateway /opt/cli/ /usr/local/
COPY image/gateway-start.sh /usr/local/bin/cli-sandbox-gateway
RUN set -eux; chmod 0755 /usr/local/bin/cli-sandbox-gateway; \
    test "$(node -p 'require("/usr/local/lib/node_modules/@musistudio/claude-code-router/package.json").version')" = "${CLAUDE_CODE_ROUTER_VERSION}"
LABEL io.cli-sandbox.role="gateway" \
      io.cli-sandbox.claude-code-router.version="${CLAUDE_CODE_ROUTER_VERSION}"
USER 1001:1001
WORKDIR /home/gateway
ENTRYPOINT ["/usr/local/bin/cli-sandbox-gateway"]

# The key broker (docs/broker.md): nginx from Debian with its njs module, on the bare base, as an
# unprivileged user, holding the endpoint's key for the sandbox beside it. Its settings, key and
# run tokens are mounted at /run/broker at run time (cli-sandbox-ctl broker, hostctl/cmd_broker.c).
# image/build.sh --cli broker tags it REPOSITORY-broker:TAG.
FROM ${BUILD_BASE} AS broker
RUN set -eux; \
    apt-get update; \
    DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends nginx libnginx-mod-http-js ca-certificates; \
    apt-get clean; rm -rf /var/lib/apt/lists/* /var/cache/apt/* /var/log/apt/* /var/log/dpkg.log; \
    rm -rf /etc/nginx/sites-enabled /etc/nginx/sites-available /etc/nginx/conf.d /var/www /var/log/nginx; \
    useradd --uid 1002 --user-group --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin broker; \
    find / -xdev -type f -perm /6000 -exec chmod u-s,g-s {} +
COPY image/broker/nginx.conf image/broker/proxy_headers.conf image/broker/broker.js /usr/share/cli-sandbox-broker/
RUN set -eux; chmod 0644 /usr/share/cli-sandbox-broker/*; nginx -v
LABEL io.cli-sandbox.role="broker"
USER 1002:1002
EXPOSE 8080
ENTRYPOINT ["/usr/sbin/nginx", "-e", "stderr", "-c", "/usr/share/cli-sandbox-broker/nginx.conf"]

# The default target, last: all three CLIs (claude first, so that this layer is the claude
# image's own).
FROM toolset AS all
ARG CLAUDE_CODE_VERSION
ARG CODEX_VERSION
ARG PI_VERSION
COPY --from=npm-claude /opt/cli/ /usr/local/
COPY --from=npm-codex /opt/cli/ /usr/local/
COPY --from=npm-pi /opt/cli/ /usr/local/
COPY --from=build /out/ /
RUN --mount=type=bind,source=image/check-image.sh,target=/tmp/check-image.sh \
    sh /tmp/check-image.sh "claude=${CLAUDE_CODE_VERSION}" "codex=${CODEX_VERSION}" "pi=${PI_VERSION}"
LABEL io.cli-sandbox.cli="all" \
      io.cli-sandbox.claude-code.version="${CLAUDE_CODE_VERSION}" \
      io.cli-sandbox.codex.version="${CODEX_VERSION}" \
      io.cli-sandbox.pi.version="${PI_VERSION}"
CMD ["claude"]
