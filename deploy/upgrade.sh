#!/bin/sh
# deploy/upgrade.sh — upgrade the voxctl instances of this host to the release this script belongs to,
# without dropping a request (DESIGN §14.12; docs/deploy.md, "Upgrades"). Run it as root from the new
# release, naming the instances in the order to restart them:
#
#   sudo /opt/voxctl-releases/0.5.0/deploy/upgrade.sh a b
#
# 1. migrates the shared database with the new release while the old instances serve (a migration
#    recorded compatible keeps them ready, DESIGN §14.13), and shows the schema;
# 2. points /opt/voxctl (the path in the units) at the new release;
# 3. restarts one instance at a time (`systemctl restart voxctl@NAME`: a SIGTERM drain, then a start),
#    waits until its /health/ready answers 200 on its own address, then until the proxy sends requests to
#    it again (a GET /health through the proxy answered with the new instance_id), then the next.
# It stops at the first failure, leaving the instances not yet restarted on the old release.
#
# Settings (environment): VOXCTL_ETC (/etc/voxctl: voxctl.env with VOXCTL_DATABASE_URL, NAME.env with
# VOXCTL_HOST and VOXCTL_PORT per instance), VOXCTL_LINK (/opt/voxctl), VOXCTL_NODE (/usr/bin/node),
# VOXCTL_PROXY_URL (default: VOXCTL_PUBLIC_URL of voxctl.env), VOXCTL_READY_SECONDS (120).
set -eu

RELEASE=$(cd "$(dirname "$0")/.." && pwd -P)
ETC=${VOXCTL_ETC:-/etc/voxctl}
LINK=${VOXCTL_LINK:-/opt/voxctl}
NODE=${VOXCTL_NODE:-/usr/bin/node}
READY_SECONDS=${VOXCTL_READY_SECONDS:-120}

say() { printf 'upgrade: %s\n' "$*" >&2; }
fail() { say "$*"; exit 1; }

[ $# -gt 0 ] || fail "usage: $0 INSTANCE... (e.g. a b: the units voxctl@a and voxctl@b)"
[ -r "$ETC/voxctl.env" ] || fail "cannot read $ETC/voxctl.env"

# One setting of an environment file (the last assignment wins, as with systemd's EnvironmentFile).
setting() { sed -n "s/^$1=//p" "$2" | tail -n 1; }

PROXY_URL=${VOXCTL_PROXY_URL:-$(setting VOXCTL_PUBLIC_URL "$ETC/voxctl.env")}
[ -n "$PROXY_URL" ] || fail "no proxy URL: set VOXCTL_PUBLIC_URL in $ETC/voxctl.env or VOXCTL_PROXY_URL"

# The instance_id in a /health answer (empty when there is none).
instance_id() { curl -fsS --max-time 5 "$1/health" 2>/dev/null | sed -n 's/.*"instance_id":"\([^"]*\)".*/\1/p'; }

say "migrating with $RELEASE"
# The shared settings are read in a subshell: the database password never leaves it.
(
  set -a
  . "$ETC/voxctl.env"
  set +a
  "$NODE" "$RELEASE/bin/voxctl.js" admin migrate
  "$NODE" "$RELEASE/bin/voxctl.js" admin schema
)

say "linking $LINK to $RELEASE"
ln -sfn "$RELEASE" "$LINK"

for name in "$@"; do
  [ -r "$ETC/$name.env" ] || fail "cannot read $ETC/$name.env"
  host=$(setting VOXCTL_HOST "$ETC/$name.env")
  port=$(setting VOXCTL_PORT "$ETC/$name.env")
  [ -n "$port" ] || fail "no VOXCTL_PORT in $ETC/$name.env"
  case ${host:-127.0.0.1} in 0.0.0.0 | '') base="http://127.0.0.1:$port" ;; *:*) base="http://[$host]:$port" ;; *) base="http://$host:$port" ;; esac

  say "restarting voxctl@$name"
  systemctl restart "voxctl@$name"

  # Type=exec: restart returns once the new process runs, not when it serves. Its listener opens at
  # once and answers /health/ready 503 `starting` until the database, schema and engines are ready.
  waited=0
  until curl -fsS --max-time 5 -o /dev/null "$base/health/ready" 2>/dev/null; do
    waited=$((waited + 1))
    [ "$waited" -le $((READY_SECONDS * 2)) ] || fail "voxctl@$name not ready at $base/health/ready after ${READY_SECONDS}s; voxctl@$name is on $RELEASE, the next instances are not restarted"
    sleep 0.5
  done
  id=$(instance_id "$base")
  say "voxctl@$name ready ($id)"

  # The proxy skips an instance for 2 s after it failed: wait until it answers through the proxy again.
  tries=0
  until [ "$(instance_id "$PROXY_URL")" = "$id" ]; do
    tries=$((tries + 1))
    [ "$tries" -le 120 ] || fail "the proxy at $PROXY_URL does not reach voxctl@$name ($id) after 60s"
    sleep 0.5
  done
  say "voxctl@$name back behind $PROXY_URL"
done
say "done: $* on $RELEASE"
