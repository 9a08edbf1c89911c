# syntax=docker/dockerfile:1
#
# ferret as a headless HTTP+SSE daemon.
#
#   docker build -t ferret .
#   docker run --rm -p 5173:5173 \
#     -e FERRET_SERVER_TOKEN="$(openssl rand -hex 24)" \
#     -v ferret-data:/data -v "$PWD":/workspace \
#     --security-opt seccomp=unconfined --security-opt apparmor=unconfined \
#     ferret
#
# FERRET_SERVER_TOKEN is REQUIRED: the default command binds 0.0.0.0, and ferret refuses to bind
# a non-loopback address without a token (every route but GET /health then needs
# `Authorization: Bearer $FERRET_SERVER_TOKEN`).
#
# Sandbox: commands run inside bubblewrap, which needs unprivileged user namespaces. Docker's
# default seccomp profile (and AppArmor on Ubuntu hosts) blocks the clone/unshare calls bwrap
# makes, so run with `--security-opt seccomp=unconfined` (plus `--security-opt apparmor=unconfined`
# where AppArmor is on), or a seccomp profile that allows unshare(CLONE_NEWUSER). Without that,
# commands fail with a bwrap error; `--sandbox danger-full-access` turns confinement off (the
# container is then the only boundary).
#
# Sessions default to the process cwd (/app, read-only for the ferret user): clients pass
# `"cwd":"/workspace"` (or another mounted directory) in POST /session.

# ---- build: install with dev dependencies, type-check and bundle TypeScript, drop dev dependencies ----
FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
# --ignore-scripts: the only install script is tree-sitter-bash's native addon, which ferret does
# not use (it loads the grammar's .wasm through web-tree-sitter), so no compiler is needed.
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY tsconfig.json rolldown.config.mjs ./
COPY scripts/make-executable.mjs ./scripts/
COPY src ./src
RUN npm run build \
 && npm prune --omit=dev --ignore-scripts --no-audit --no-fund

# ---- runtime: Node 20, bubblewrap, non-root user, state on a volume ----
# Add the tools your agent's commands need (git, python3, build-essential, ...) to the apt line.
FROM node:20-bookworm-slim AS runtime
RUN apt-get update \
 && apt-get install -y --no-install-recommends bubblewrap ca-certificates \
 && rm -rf /var/lib/apt/lists/* \
 && groupadd --system --gid 10001 ferret \
 && useradd --system --uid 10001 --gid ferret --create-home --home-dir /home/ferret ferret \
 && mkdir -p /data /workspace \
 && chown ferret:ferret /data /workspace
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
