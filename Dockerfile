# syntax=docker/dockerfile:1
#
# ferret as a headless HTTP+SSE daemon. docs/http.md ("In a container") has the recipe and why;
# CI builds this file with podman and runs the commands below (scripts/image/build-and-check.sh).
#
#   docker build -t ferret .
#   export FERRET_SERVER_TOKEN=$(openssl rand -hex 24)
#   docker run -d --name ferret -p 127.0.0.1:5173:5173 -e FERRET_SERVER_TOKEN \
#     --user "$(id -u):$(id -g)" -v "$PWD":/workspace -v ferret-data:/data \
#     --security-opt systempaths=unconfined --security-opt seccomp=unconfined \
#     ferret
#
# Podman as root: the same command without `--security-opt seccomp=unconfined` (podman's default
# seccomp profile already lets bwrap make its namespaces). Rootless podman: also
# `--userns=keep-id:uid=10001,gid=10001` in place of `--user`, so the image's user is you.
#
# FERRET_SERVER_TOKEN is REQUIRED: the command binds 0.0.0.0, and ferret refuses to bind a
# non-loopback address without a token (every route but GET /health then needs
# `Authorization: Bearer $FERRET_SERVER_TOKEN`).
#
# User: uid 10001 by default, and any uid works. Run it as yourself (`--user "$(id -u):$(id -g)"`)
# so that the agent can write the bind-mounted workspace (else: EACCES) and what it writes there is
# yours. /data is writable by every uid (mode 1777, like /tmp); keep one uid per volume, since each
# session's files belong to the uid that made them.
#
# Sandbox: every command runs inside bubblewrap, which makes user, PID and network namespaces and
# mounts a fresh /proc for its PID namespace. The kernel allows that mount only where the
# container's /proc is fully visible, and container engines mask parts of it (/proc/kcore,
# /proc/keys, /proc/timer_list, a read-only /proc/sys, ...): hence
# `--security-opt systempaths=unconfined` (podman also takes the narrower `unmask=/proc/*`).
# Without it every command fails with "bwrap: Can't mount proc on /newroot/proc: Operation not
# permitted"; seccomp=unconfined alone does not help. Docker's default seccomp profile also
# refuses the namespaces to a process without CAP_SYS_ADMIN ("bwrap: No permissions to create new
# namespace"): hence seccomp=unconfined there. Where AppArmor is on, add
# `--security-opt apparmor=unconfined` (its container profile refuses mounts; not measured). No capability is
# added and the server is not root, so the unmasked /proc files stay as closed to it as to any
# unprivileged user on a host. Without these options the alternative is no OS sandbox: give the
# command in full with `--sandbox danger-full-access` (the container is then the only boundary).
#
# Sessions default to the process cwd (/app, read-only): clients pass `"cwd":"/workspace"` (or
# another mounted directory) in POST /session.

# ---- build: install with dev dependencies, bundle the CLI, drop dev dependencies ----
FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
# --ignore-scripts: the only install script is tree-sitter-bash's native addon, which ferret does
# not use (it loads the grammar's .wasm through web-tree-sitter), so no compiler is needed.
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY tsconfig.json rolldown.config.mjs ./
COPY scripts/build-cli.mjs scripts/make-executable.mjs ./scripts/
COPY src ./src
# Only the CLI: `npm run build` also bundles the VS Code extension, which is not in this image.
RUN node scripts/build-cli.mjs \
 && npm prune --omit=dev --ignore-scripts --no-audit --no-fund

# ---- runtime: Node 20, bubblewrap, ripgrep (grep and glob run it), non-root user, state on a volume ----
# Add the tools your agent's commands need (git, python3, build-essential, ...) to the apt line.
FROM node:20-bookworm-slim AS runtime
RUN apt-get update \
 && apt-get install -y --no-install-recommends bubblewrap ripgrep ca-certificates \
 && rm -rf /var/lib/apt/lists/* \
 && groupadd --system --gid 10001 ferret \
 && useradd --system --uid 10001 --gid ferret --create-home --home-dir /home/ferret ferret \
 && mkdir -p /data /workspace \
 && chown ferret:ferret /data /workspace \
 && chmod 1777 /data
ENV NODE_ENV=production \
    CHIMERA_HOME=/data
WORKDIR /app
COPY --from=build /app/package.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
VOLUME ["/data"]
USER ferret
EXPOSE 5173
# GET /health needs no token; the bind is 0.0.0.0, so any Host header is accepted.
HEALTHCHECK --interval=30s --timeout=5s --start-period=10s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:5173/health').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# Requires FERRET_SERVER_TOKEN (see above).
CMD ["node", "dist/cli/main.js", "ferret", "serve", "--http", "--no-stdio", "--host", "0.0.0.0", "--port", "5173"]
