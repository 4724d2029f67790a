#!/usr/bin/env bash
# `make deb-test`: the package in a fresh Debian bookworm root made by
# debootstrap (from Debian's packages; no Swift toolchain in it): installed
# with apt (which brings its Depends), `ingest --version`, a night from
# /etc/ingest/ingest.toml over the example feeds, the snapshot verified,
# and the systemd units checked with `systemd-analyze verify`.
set -euo pipefail
cd "$(dirname "$0")/.."
SUDO=$([ "$(id -u)" = 0 ] || echo sudo)
command -v debootstrap >/dev/null || { $SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq debootstrap; }
DEB=$(ls -t var/deb/ingest_*.deb | head -1)
ROOT=var/deb-root
if [ ! -x "$ROOT/usr/bin/apt-get" ]; then
  rm -rf "$ROOT"
  $SUDO debootstrap --variant=minbase bookworm "$ROOT" http://deb.debian.org/debian >&2
fi
cleanup() { for m in proc sys dev; do $SUDO umount -l "$ROOT/$m" 2>/dev/null || true; done; }
trap cleanup EXIT
for m in proc sys dev; do $SUDO mount --bind "/$m" "$ROOT/$m"; done
cp "$DEB" "$ROOT/tmp/ingest.deb"
$SUDO chroot "$ROOT" sh -c 'apt-get install -y -qq --reinstall /tmp/ingest.deb >/dev/null' >&2
# systemd itself (for its targets) only to check the units; the package does not need it.
[ -e "$ROOT/lib/systemd/system/sysinit.target" ] || $SUDO chroot "$ROOT" sh -c 'apt-get install -y -qq systemd >/dev/null' >&2
echo "in $ROOT: $(chroot "$ROOT" ingest --version)"
test ! -e "$ROOT/opt/swift" || { echo "deb-test: a Swift toolchain is in the root"; exit 1; }
rm -rf "$ROOT/var/lib/ingest/feeds" "$ROOT"/var/lib/ingest/snapshots/* && mkdir -p "$ROOT/var/lib/ingest/feeds"
cp feeds/* "$ROOT/var/lib/ingest/feeds/"
cp mappings/*.mapping.toml "$ROOT/etc/ingest/mappings/"
$SUDO chroot "$ROOT" su -s /bin/sh ingest -c 'ingest --as-of 2024-05-20 --quiet'
echo "a night from /etc/ingest/ingest.toml, as the ingest user: current is $(readlink "$ROOT/var/lib/ingest/snapshots/current")"
$SUDO chroot "$ROOT" su -s /bin/sh ingest -c 'ingest snapshots verify' 
systemd-analyze verify --root="$ROOT" "$ROOT/lib/systemd/system/ingest.service" "$ROOT/lib/systemd/system/ingest.timer" \
  "$ROOT/lib/systemd/system/ingest-serve.service" && echo "systemd-analyze verify: the units are sound"
# The shipped alert rules, by Prometheus's own checker (Debian's prometheus package brings promtool).
command -v promtool >/dev/null || { $SUDO apt-get install -y -qq prometheus >/dev/null 2>&1 || true; }
if command -v promtool >/dev/null; then
  promtool check rules "$ROOT/usr/share/doc/ingest/examples/alerts.yml"
else
  echo "deb-test: promtool does not install here; alerts.yml not checked"
fi
# lintian: no error (warnings are listed); the units' exposure at 2.5 or below.
command -v lintian >/dev/null || { $SUDO apt-get install -y -qq lintian >/dev/null 2>&1 || true; }
if command -v lintian >/dev/null; then
  lintian --fail-on error "$DEB" && echo "lintian: no error"
else
  echo "deb-test: lintian does not install here; not run"
fi
for unit in ingest.service ingest-serve.service; do
  score=$(systemd-analyze security --offline=yes "$ROOT/lib/systemd/system/$unit" 2>/dev/null | sed -n 's/.*Overall exposure level for [^:]*: \([0-9.]*\).*/\1/p')
  awk -v s="$score" -v u="$unit" 'BEGIN { if (s == "" || s > 2.5) { print "deb-test: " u " exposure " s " is over 2.5"; exit 1 } print u ": systemd-analyze security " s }'
done
