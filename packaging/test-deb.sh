#!/usr/bin/env bash
# `make deb-test`: the package's life on a fresh Debian bookworm, under a real
# systemd. A root made by debootstrap (Debian's packages only; no Swift
# toolchain in it) is booted with systemd-nspawn, so the maintainer scripts,
# the units and their hardening run as on a server:
#   install   the user exists, the units come disabled;
#   a night   `systemctl start ingest.service` under the hardened unit publishes
#             (flags from /etc/default/ingest), JSON lines only in the log;
#   serve     `systemctl enable --now ingest-serve` answers /health and q=a;
#   upgrade   to a newer version: the running server restarts on the new binary;
#   remove    the server stops;
#   purge     no enable link, no user, no /var/log/ingest; /var/lib/ingest kept;
#             a reinstall comes back disabled.
# Then the shipped files are judged: lintian (no error), systemd-analyze
# security (2.5 or below for both units), promtool on the alert rules.
# Every step prints one line; the first that fails stops the test (exit 1).
set -euo pipefail
cd "$(dirname "$0")/.."
SUDO=$([ "$(id -u)" = 0 ] || echo sudo)
need() { command -v "$1" >/dev/null || { $SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "$2" >/dev/null; }; }
need debootstrap debootstrap
need systemd-nspawn systemd-container
need dpkg-deb dpkg
DEB=$(ls -t var/deb/ingest_*.deb | head -1)
VERSION=$(dpkg-deb -f "$DEB" Version)
ROOT=var/deb-root
MACHINE=ingest-deb-test
# systemd and curl in the root: systemd to boot it, curl to ask the server.
if [ ! -x "$ROOT/usr/bin/apt-get" ] || [ ! -x "$ROOT/lib/systemd/systemd" ] || [ ! -x "$ROOT/usr/bin/curl" ]; then
  rm -rf "$ROOT"
  $SUDO debootstrap --variant=minbase --include=systemd,systemd-sysv,dbus,curl bookworm "$ROOT" http://deb.debian.org/debian >&2
fi

fail() { echo "deb-test: FAILED: $*" >&2; exit 1; }
ok() { echo "deb-test: $*"; }

# An older package to upgrade from: the same tree under a lower version, so the
# upgrade replaces every file (a server left on the old binary would show its
# executable as deleted).
OLD_VERSION="${VERSION%%+*}~previous"
OLD_TREE=var/deb/previous
rm -rf "$OLD_TREE" && cp -a "var/deb/$(basename "$DEB" .deb)" "$OLD_TREE"
sed -i "s/^Version: .*/Version: $OLD_VERSION/" "$OLD_TREE/DEBIAN/control"
dpkg-deb --build --root-owner-group "$OLD_TREE" var/deb/previous.deb >/dev/null
mkdir -p "$ROOT/root/debs"
cp var/deb/previous.deb "$ROOT/root/debs/previous.deb"
cp "$DEB" "$ROOT/root/debs/current.deb"

# Boot the root. Leftovers of an earlier test (the package, its user, the data) go first.
NSPAWN_LOG=var/deb-test.boot.log
$SUDO systemd-nspawn -q -D "$ROOT" -M "$MACHINE" --register=no --keep-unit -b >"$NSPAWN_LOG" 2>&1 &
NSPAWN=$!
cleanup() {
  kill "$NSPAWN" 2>/dev/null || true
  for _ in $(seq 1 60); do kill -0 "$NSPAWN" 2>/dev/null || return 0; sleep 0.5; done
  kill -9 "$NSPAWN" 2>/dev/null || true
}
trap cleanup EXIT
leader=""
for _ in $(seq 1 120); do
  leader=""
  for pid in $(pgrep -x systemd || true); do  # the container's PID 1: a systemd that nspawn started
    parent=$(ps -o ppid= -p "$pid" | tr -d ' ')
    [ "$parent" = "$NSPAWN" ] || [ "$(ps -o ppid= -p "$parent" 2>/dev/null | tr -d ' ')" = "$NSPAWN" ] && leader=$pid
  done
  if [ -n "$leader" ]; then
    state=$($SUDO nsenter -t "$leader" -a systemctl is-system-running 2>/dev/null || true)
    case "$state" in running|degraded) break ;; esac
  fi
  sleep 0.5
done
[ -n "$leader" ] || fail "the root did not boot under systemd-nspawn (see $NSPAWN_LOG)"
in_root() { $SUDO nsenter -t "$leader" -a env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8 "$@"; }
ok "booted a bookworm root under systemd-nspawn: systemd $(in_root systemctl --version | head -1 | cut -d' ' -f2), system $(in_root systemctl is-system-running || true)"
in_root sh -c 'dpkg -s ingest >/dev/null 2>&1 && apt-get purge -y -qq ingest >/dev/null 2>&1; rm -rf /var/lib/ingest; true'

# install
in_root apt-get install -y -qq /root/debs/previous.deb >/dev/null 2>&1 || fail "apt-get install of $OLD_VERSION"
in_root getent passwd ingest >/dev/null || fail "no ingest user after install"
for unit in ingest.timer ingest-serve.service; do
  [ "$(in_root systemctl is-enabled "$unit" 2>/dev/null || true)" = disabled ] || fail "$unit is not disabled after install"
done
test ! -e "$ROOT/opt/swift" || fail "a Swift toolchain is in the root"
ok "install $OLD_VERSION: user ingest, units disabled until the operator enables them"

# a night under the hardened unit, as the operator runs it (flags from /etc/default/ingest)
cp feeds/* "$ROOT/var/lib/ingest/feeds/"
cp mappings/*.mapping.toml "$ROOT/etc/ingest/mappings/"
echo 'INGEST_FLAGS="--as-of 2024-05-20"' > "$ROOT/etc/default/ingest"
in_root systemctl start ingest.service || {
  in_root journalctl -u ingest.service --no-pager | tail -20 >&2
  fail "systemctl start ingest.service"
}
result=$(in_root systemctl show -P Result ingest.service)
[ "$result" = success ] || fail "ingest.service ended $result"
current=$(readlink "$ROOT/var/lib/ingest/snapshots/current" || true)
[ -n "$current" ] || fail "the night published no current"
owner=$(in_root stat -c %U "/var/lib/ingest/snapshots/$current")
[ "$owner" = ingest ] || fail "the snapshot is owned by $owner"
log="$ROOT/var/log/ingest/ingest.log"
lines=$(grep -c . "$log")
python3 - "$log" <<'PY' || fail "the unit's log holds a line that is not JSON, or no run_finished"
import json, sys
events = [json.loads(line).get("event") for line in open(sys.argv[1]) if line.strip()]
sys.exit(0 if events.count("run_finished") == 1 else 1)
PY
in_root su -s /bin/sh ingest -c 'ingest snapshots verify' >/dev/null || fail "ingest snapshots verify as the ingest user"
ok "a night under the hardened ingest.service: success, current $current owned by ingest, JSON lines only in its log ($lines, one run_finished), verify passes"

# The sandbox, as README.Debian says: a snapshots folder outside the unit's
# ReadWritePaths fails 73 under the unit only, and its drop-in (taken from
# README.Debian as written) mends it.
in_root sh -c 'mkdir -p /srv/ingest/snapshots && chown ingest:ingest /srv/ingest/snapshots'
cp "$ROOT/etc/ingest/ingest.toml" var/deb/ingest.toml.saved
sed -i 's|^snapshots = .*|snapshots = "/srv/ingest/snapshots"|' "$ROOT/etc/ingest/ingest.toml"
in_root systemctl start ingest.service 2>/dev/null && fail "a night into /srv/ingest/snapshots ran without the drop-in"
status=$(in_root systemctl show -P ExecMainStatus ingest.service)
[ "$status" = 73 ] || fail "a night into /srv/ingest/snapshots without the drop-in exited $status, not 73"
mkdir -p "$ROOT/etc/systemd/system/ingest.service.d"
awk '/sudo systemctl edit ingest.service/ { on = 1; next } on && /^$/ { exit } on { sub(/^    /, ""); print }' packaging/README.Debian \
  > "$ROOT/etc/systemd/system/ingest.service.d/override.conf"
grep -q '^ReadWritePaths=/srv/ingest/snapshots$' "$ROOT/etc/systemd/system/ingest.service.d/override.conf" || fail "README.Debian's drop-in not found"
in_root systemctl daemon-reload
in_root systemctl start ingest.service || fail "the night into /srv/ingest/snapshots with README.Debian's drop-in"
test -L "$ROOT/srv/ingest/snapshots/current" || fail "no current in /srv/ingest/snapshots"
rm -r "$ROOT/etc/systemd/system/ingest.service.d" && in_root systemctl daemon-reload
cp var/deb/ingest.toml.saved "$ROOT/etc/ingest/ingest.toml"
ok "the sandbox: snapshots in /srv exit 73 under the unit; README.Debian's drop-in makes the night publish there"

# serve
in_root systemctl enable --now ingest-serve.service >/dev/null 2>&1 || fail "systemctl enable --now ingest-serve"
# The server takes a moment to listen: refused connections are tried again (quietly) for 20 s.
ask() { in_root curl -fs --retry 20 --retry-connrefused --retry-delay 1 "http://127.0.0.1:8080/$1"; }
health=$(ask health) || fail "GET /health under the hardened ingest-serve.service"
case "$health" in *"${current%.sqlite}"*) ;; *) fail "/health does not name ${current%.sqlite}: $health" ;; esac
atc=$(ask '?q=a') || fail "GET /?q=a"
[ "${#atc}" -gt 10 ] || fail "q=a answered $atc"
old_pid=$(in_root systemctl show -P MainPID ingest-serve.service)
ok "ingest-serve under the hardened unit: /health names $current, q=a answers ${#atc} bytes (pid $old_pid)"

# upgrade: the running server restarts on the new binary
in_root apt-get install -y -qq /root/debs/current.deb >/dev/null 2>&1 || fail "apt-get install of $VERSION over $OLD_VERSION"
new_pid=$(in_root systemctl show -P MainPID ingest-serve.service)
[ "$new_pid" != 0 ] && [ "$new_pid" != "$old_pid" ] || fail "ingest-serve was not restarted by the upgrade (pid $old_pid, now $new_pid)"
exe=$(in_root readlink "/proc/$new_pid/exe")
case "$exe" in *deleted*) fail "ingest-serve runs a deleted binary after the upgrade: $exe" ;; esac
[ "$(in_root ingest --version)" = "$VERSION" ] || fail "ingest --version is not $VERSION after the upgrade"
ask health >/dev/null || fail "/health after the upgrade"
ok "upgrade to $VERSION: ingest-serve restarted (pid $old_pid → $new_pid) on $exe, answering"

# remove: the server stops
in_root apt-get remove -y -qq ingest >/dev/null 2>&1 || fail "apt-get remove"
state=$(in_root systemctl is-active ingest-serve.service || true)
[ "$state" != active ] || fail "ingest-serve still runs after apt-get remove"
# (no procps in the root: the processes' executables read from /proc)
in_root sh -c 'for p in /proc/[0-9]*; do readlink "$p/exe"; done' 2>/dev/null | grep -q ingest-serve && fail "an ingest-serve process is left after apt-get remove"
ok "remove: ingest-serve stopped ($state), no process left"

# purge: no links, no user, no logs; the data is kept
in_root apt-get purge -y -qq ingest >/dev/null 2>&1 || fail "apt-get purge"
links=$(find "$ROOT/etc/systemd/system" -name 'ingest*' | sed "s|^$ROOT||")
[ -z "$links" ] || fail "purge left $links"
in_root getent passwd ingest >/dev/null && fail "purge left the ingest user"
test ! -e "$ROOT/var/log/ingest" || fail "purge left /var/log/ingest"
test -L "$ROOT/var/lib/ingest/snapshots/current" || fail "purge removed /var/lib/ingest (it must keep the data)"
ok "purge: no unit link, no ingest user, no /var/log/ingest; /var/lib/ingest kept"

# a reinstall after purge starts disabled
in_root apt-get install -y -qq /root/debs/current.deb >/dev/null 2>&1 || fail "apt-get install after purge"
[ "$(in_root systemctl is-enabled ingest-serve.service 2>/dev/null || true)" = disabled ] || fail "a reinstall after purge came back enabled"
[ "$(in_root systemctl is-active ingest-serve.service || true)" != active ] || fail "a reinstall after purge started ingest-serve"
ok "reinstall after purge: disabled, not running"
cleanup
trap - EXIT

# The man pages: one per command, named with dashes, with the sections the plugin leaves out.
page="$ROOT/usr/share/man/man1/ingest-import.1.gz"
test -e "$page" || fail "no ingest-import.1.gz"
for section in 'EXIT STATUS' ENVIRONMENT FILES '(default: 7)'; do
  zcat "$page" | grep -qF "$section" || fail "ingest-import.1 lacks $section"
done
zcat "$page" | grep -q '^\.Ex -std' && fail "ingest-import.1 still has the generic EXIT STATUS"
ok "man pages: ingest-import.1 has defaults, EXIT STATUS, ENVIRONMENT and FILES"

# The shipped alert rules, by Prometheus's own checker (Debian's prometheus package brings promtool).
command -v promtool >/dev/null || { $SUDO apt-get install -y -qq prometheus >/dev/null 2>&1 || true; }
if command -v promtool >/dev/null; then
  promtool check rules "$ROOT/usr/share/doc/ingest/examples/alerts.yml" >/dev/null || fail "promtool check rules alerts.yml"
  ok "promtool check rules: alerts.yml is sound"
else
  ok "promtool does not install here; alerts.yml not checked"
fi
need lintian lintian
lintian --fail-on error "$DEB" >var/deb/lintian.txt 2>&1 || { cat var/deb/lintian.txt >&2; fail "lintian found errors"; }
ok "lintian: no error ($(grep -c '^W:' var/deb/lintian.txt || true) warnings, var/deb/lintian.txt)"
for unit in ingest.service ingest-serve.service; do
  score=$(systemd-analyze security --offline=yes "$ROOT/lib/systemd/system/$unit" 2>/dev/null | sed -n 's/.*Overall exposure level for [^:]*: \([0-9.]*\).*/\1/p')
  awk -v s="$score" 'BEGIN { exit !(s != "" && s <= 2.5) }' || fail "$unit exposure ${score:-unknown} is over 2.5"
  ok "$unit: systemd-analyze security $score"
done
ok "passed"
