#!/usr/bin/env bash
# CI's image job: builds the Dockerfile with podman and checks the running image from outside.
#
#   scripts/image/build-and-check.sh          # as root (it installs what it needs with apt)
#
# 1. apt: podman, runc, debootstrap (skipped when they are there).
# 2. The base image (make-base.sh): no registry is reachable here, so node:20-bookworm-slim is
#    made from Debian's mirror and the npm registry, cached under .cache/image/.
# 3. podman build of the unmodified Dockerfile. podman's default runtime crun cannot start
#    containers on this machine; runc can, with lower ulimits than podman's defaults.
# 4. A container run as the docs say (docs/http.md, "In a container"): the token, the invoking
#    user's uid (root plays a developer: uid 4242), the workspace bind-mounted at /workspace,
#    a named /data volume, and the one security option bwrap needs. check.mjs then checks
#    /health, 401 without the token, a scripted session that writes into /workspace and runs a
#    sandboxed bash command, and the image's HEALTHCHECK.
# 5. `podman stop` exits 0 (the server stopped by itself on SIGTERM, with exit code 0), and
#    a new container on the same volume lists the session.
# Ends with one plain line, `image: N passed, N failed`, and exits non-zero on any failure.
set -euo pipefail

REPO=$(cd "$(dirname "$0")/../.." && pwd)
HERE=$REPO/scripts/image
IMAGE=${FERRET_IMAGE:-localhost/ferret:ci}
started=$(date +%s)
passed=0
failed=0

log() { printf 'image: %s\n' "$*" >&2; }
pass() { passed=$((passed + 1)); log "PASS $*"; }
finish() {
  local rc=$?
  cleanup
  [ "$rc" -ne 0 ] && [ "$failed" -eq 0 ] && failed=1
  log "done in $(($(date +%s) - started)) s"
  echo "image: $passed passed, $failed failed"
  [ "$failed" -eq 0 ] || exit 1
}
die() {
  failed=$((failed + 1))
  log "FAIL $*"
  exit 1
}

# --- 1. tools ---
need=()
command -v podman >/dev/null || need+=(podman)
command -v runc >/dev/null || need+=(runc)
command -v debootstrap >/dev/null || need+=(debootstrap)
command -v curl >/dev/null || need+=(curl)
[ -e /usr/share/keyrings/debian-archive-keyring.gpg ] || need+=(debian-archive-keyring)
if [ ${#need[@]} -gt 0 ]; then
  log "apt-get install ${need[*]}"
  if ! out=$( (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${need[@]}") 2>&1); then
    printf '%s\n' "$out" | tail -20 >&2
    echo "image: 0 passed, 1 failed"
    exit 1
  fi
fi
# runc, never crun, and ulimits this machine lets a container have: podman's defaults (nofile
# 1048576, nproc 4194304) make runc fail with "error setting rlimit type 7 (6): operation not permitted".
LIMITS=(--ulimit nofile=10000:10000 --ulimit nproc=4096:4096)
pm() { podman --runtime runc "$@"; }

# Names of what this run makes, removed at the end whatever happens. Without systemd, podman
# logs an error about healthcheck timers on every run and stop: their stderr is shown on failure.
tag=ferret-ci-$$
ws=$(mktemp -d /tmp/ferret-image-ws.XXXXXX)
cleanup() {
  pm rm -f -t 0 "$tag-a" "$tag-b" >/dev/null 2>&1 || true
  pm volume rm -f "$tag-data" >/dev/null 2>&1 || true
  rm -rf "$ws" "$ws.err" "$ws.build.log"
}
trap finish EXIT

# --- 2. base image ---
base=$(sed -n 's/^FROM[[:space:]]\{1,\}\([^[:space:]]*\).*/\1/p' "$REPO/Dockerfile" | sort -u)
[ "$(printf '%s\n' "$base" | wc -l)" -eq 1 ] || die "the Dockerfile has more than one base image: $base"
case $base in */*/*) qualified=$base ;; */*) qualified=docker.io/$base ;; *) qualified=docker.io/library/$base ;; esac
t0=$(date +%s)
"$HERE/make-base.sh" "$qualified" || die "could not make the base image $qualified"
pass "base image $qualified ($(($(date +%s) - t0)) s)"

# --- 3. build ---
t0=$(date +%s)
previous=$(pm image inspect --format '{{.Id}}' "$IMAGE" 2>/dev/null || true)
if ! pm build --pull=never --format docker "${LIMITS[@]}" -t "$IMAGE" -f "$REPO/Dockerfile" "$REPO" >"$ws.build.log" 2>&1; then
  tail -40 "$ws.build.log" >&2
  rm -f "$ws.build.log"
  die "podman build failed"
fi
grep -i -E 'EBADENGINE|npm warn|npm WARN' "$ws.build.log" >&2 && { rm -f "$ws.build.log"; die "the image build's npm printed warnings (above)"; }
rm -f "$ws.build.log"
pass "podman build $IMAGE ($(($(date +%s) - t0)) s, $(pm image inspect --format '{{.Size}}' "$IMAGE" | awk '{printf "%d MB", $1 / 1e6}'))"
[ "$(pm image inspect --format '{{.Config.User}}' "$IMAGE")" = ferret ] || die "the image does not run as the ferret user"
# Keep the machine's image store from growing run after run: the image this build replaced, and
# build layers unused for a week (the npm ci layer then is rebuilt once).
if [ -n "$previous" ] && [ "$previous" != "$(pm image inspect --format '{{.Id}}' "$IMAGE")" ]; then
  pm rmi "$previous" >/dev/null 2>&1 || true
fi
pm image prune -f --filter until=168h >/dev/null 2>&1 || true

# --- 4. run as the docs say, and check from outside ---
if [ "$(id -u)" -eq 0 ]; then uid=4242 gid=4242; else uid=$(id -u) gid=$(id -g); fi
chown "$uid:$gid" "$ws"
chmod 0755 "$ws"
install -o "$uid" -g "$gid" -m 0644 "$HERE/session.json" "$ws/.ferret-image-check.json"
token=$(head -c 24 /dev/urandom | od -An -tx1 | tr -d ' \n')
pm volume create "$tag-data" >/dev/null

start() { # name
  pm run -d --name "$1" "${LIMITS[@]}" -p 127.0.0.1::5173 \
    -e FERRET_SERVER_TOKEN="$token" \
    --user "$uid:$gid" -v "$ws":/workspace -v "$tag-data":/data \
    --security-opt systempaths=unconfined \
    "$IMAGE" >/dev/null 2>"$ws.err" || { cat "$ws.err" >&2; die "podman run $1 failed"; }
  port=$(pm port "$1" 5173/tcp | sed 's/.*://')
  url=http://127.0.0.1:$port
  for _ in $(seq 1 300); do # up to 30 s: a loaded machine starts node slowly
    curl -fsS -o /dev/null "$url/health" 2>/dev/null && return 0
    [ "$(pm inspect --format '{{.State.Running}}' "$1")" = true ] || break
    sleep 0.1
  done
  pm logs "$1" >&2 || true
  die "$1 never answered GET /health"
}

t0=$(date +%s)
start "$tag-a"
pass "podman run ($(($(date +%s) - t0)) s to /health): uid $uid:$gid, $ws at /workspace, volume $tag-data at /data"
if ! id=$(node "$HERE/check.mjs" session "$url" "$token" "$ws" "$uid" "$gid"); then
  pm logs "$tag-a" 2>&1 | tail -20 >&2
  die "the session checks failed"
fi
pass "health, 401, a scripted session that wrote /workspace and ran bash inside bubblewrap ($id)"
pm healthcheck run "$tag-a" >/dev/null || die "the image's HEALTHCHECK failed"
pass "the image's HEALTHCHECK"

# --- 5. stop, and a new container on the same volume ---
t0=$(date +%s)
pm stop -t 10 "$tag-a" >/dev/null 2>"$ws.err" || { cat "$ws.err" >&2; die "podman stop failed"; }
took=$(($(date +%s) - t0))
code=$(pm inspect --format '{{.State.ExitCode}}' "$tag-a")
# 0: the server stopped by itself on SIGTERM (podman's kill after 10 s would give 137, ferret's
# own shutdown deadline 1).
[ "$code" -eq 0 ] || { pm logs "$tag-a" 2>&1 | tail -5 >&2; die "the server exited $code on SIGTERM"; }
logs=$(pm logs "$tag-a" 2>&1)
[[ $logs == *'"msg":"shutting down"'* ]] || die "no 'shutting down' in the log: not a graceful stop"
pass "podman stop: exit 0 after $took s, graceful"
start "$tag-b"
node "$HERE/check.mjs" survived "$url" "$token" "$id" || die "the session did not survive in the volume"
pass "the session is listed by a new container on the same /data volume"
pm stop -t 10 "$tag-b" >/dev/null 2>"$ws.err" || { cat "$ws.err" >&2; die "podman stop $tag-b failed"; }
