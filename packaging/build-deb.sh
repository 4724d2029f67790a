#!/usr/bin/env bash
# `make deb`: var/deb/ingest_<version>_<arch>.deb, built with
# dpkg-deb. The binaries link the Swift runtime statically
# (--static-swift-stdlib: no toolchain at run time); the C libraries they
# use are Debian's, named in Depends from what the binaries link. The
# version is the binary's `--version` (the release, the commit's date and
# id, from BuildInfoPlugin), never a literal. `make install` copies the same tree (bin, man, completions,
# units, settings) under DESTDIR and PREFIX.
set -euo pipefail
cd "$(dirname "$0")/.."
SWIFT=${SWIFT:-swift}
SCRATCH=.build-static
# SwiftPM runs BuildInfoPlugin only when it plans the build again: with no
# source changed since the last package, the binaries kept the commit they
# were first built at. Touching the files that read BuildInfo makes it plan.
touch Sources/IngestCLI/IngestCommand.swift Sources/IngestServe/ServeCommand.swift
for product in ingest ingest-serve; do
  "$SWIFT" build -c release --static-swift-stdlib --scratch-path "$SCRATCH" --product "$product" >&2
done
BIN="$SCRATCH/release"

# The package's version is the binary's own (`ingest --version`): one
# string, 0.1.0+gitDATE.COMMIT, sorting by commit date.
VERSION=$("$BIN/ingest" --version)
commit=$(git describe --always --dirty --abbrev=12 --exclude '*')
case "$VERSION" in
  *".${commit//-/.}") ;;
  *) echo "build-deb: ingest --version says $VERSION, but the checkout is $commit: a stale build" >&2; exit 1 ;;
esac
[ "$("$BIN/ingest-serve" --version)" = "$VERSION" ] || { echo "build-deb: ingest-serve --version differs from ingest's" >&2; exit 1; }
ARCH=$(dpkg --print-architecture)
NAME="ingest_${VERSION}_${ARCH}"
ROOT="var/deb/$NAME"
rm -rf "$ROOT"
mkdir -p "$ROOT/DEBIAN"

# The tree, also what `make install` copies.
install -D -m 755 -s "$BIN/ingest" "$ROOT/usr/bin/ingest"
install -D -m 755 -s "$BIN/ingest-serve" "$ROOT/usr/bin/ingest-serve"
for unit in ingest.service ingest.timer ingest-serve.service; do
  install -D -m 644 "packaging/$unit" "$ROOT/lib/systemd/system/$unit"
done
install -D -m 644 packaging/ingest.toml "$ROOT/etc/ingest/ingest.toml"
install -D -m 644 packaging/ingest-serve.toml "$ROOT/etc/ingest/ingest-serve.toml"
install -D -m 644 mappings/patient_price_rules.toml "$ROOT/etc/ingest/mappings/patient_price_rules.toml"
install -D -m 644 packaging/ingest.logrotate "$ROOT/etc/logrotate.d/ingest"
# Completions and man pages, from the commands' own definitions (swift-argument-parser).
for shell in bash zsh fish; do
  case $shell in
    bash) target="$ROOT/usr/share/bash-completion/completions/ingest" ;;
    zsh) target="$ROOT/usr/share/zsh/vendor-completions/_ingest" ;;
    fish) target="$ROOT/usr/share/fish/vendor_completions.d/ingest.fish" ;;
  esac
  mkdir -p "$(dirname "$target")"
  "$ROOT/usr/bin/ingest" --generate-completion-script "$shell" > "$target"
done
# The manual plugin builds the products its own way: in the usual .build,
# never in the static build's folder (its links would replace these).
mkdir -p "$ROOT/usr/share/man/man1" var/deb/man
rm -f var/deb/man/*
"$SWIFT" package --allow-writing-to-package-directory generate-manual --multi-page --output-directory "$PWD/var/deb/man" >&2
# The plugin writes no defaults for the import's layered options, no FILES or
# ENVIRONMENT and a generic EXIT STATUS: complete-man-pages.py adds them, the
# defaults from `ingest config show` with no settings file and no variable.
: > var/deb/man/empty.toml
(cd var/deb/man && env -i PATH=/usr/bin:/bin "$OLDPWD/$BIN/ingest" config show --config empty.toml) > var/deb/man/defaults.txt
python3 packaging/complete-man-pages.py --import-defaults var/deb/man/defaults.txt var/deb/man/*.1
# ingest.import.1 → ingest-import.1, so that `man ingest-import` finds it (Debian's git-* style).
for page in var/deb/man/*.1; do
  name=$(basename "$page" .1 | tr . -)
  gzip -9n -c "$page" > "$ROOT/usr/share/man/man1/$name.1.gz"
done
install -D -m 644 README.md "$ROOT/usr/share/doc/ingest/README.md"
for doc in OPERATIONS FORMATS USAGE SNAPSHOTS SERVING; do install -m 644 "docs/$doc.md" "$ROOT/usr/share/doc/ingest/"; done
install -D -m 644 docs/schemas/run-report.schema.json "$ROOT/usr/share/doc/ingest/schemas/run-report.schema.json"
install -D -m 644 packaging/alerts.yml "$ROOT/usr/share/doc/ingest/examples/alerts.yml"
install -m 644 packaging/copyright packaging/README.Debian "$ROOT/usr/share/doc/ingest/"
gzip -9n -c packaging/changelog > "$ROOT/usr/share/doc/ingest/changelog.gz" # a native package: changelog, not changelog.Debian
install -D -m 644 packaging/ingest.default "$ROOT/etc/default/ingest"

# No Swift runtime outside the binaries: a toolchain library here would be missing on the servers.
ldd "$ROOT/usr/bin/ingest" "$ROOT/usr/bin/ingest-serve" > var/deb/ldd.txt
if grep -q 'libswiftCore' var/deb/ldd.txt; then
  echo "build-deb: the binaries load the Swift runtime dynamically" >&2
  exit 1
fi

# Depends: the Debian package of every shared library the binaries load.
depends=$(for binary in "$ROOT/usr/bin/ingest" "$ROOT/usr/bin/ingest-serve"; do ldd "$binary"; done \
  | awk '/=> \// { print $3 }' | sort -u | while read -r library; do
      dpkg -S "$(readlink -f "$library")" 2>/dev/null || dpkg -S "$library" 2>/dev/null || true
    done | cut -d: -f1 | sort -u | while read -r package; do
      echo "$package (>= $(dpkg-query -W -f='${Version}' "$package" | sed 's/-[^-]*$//'))"
    done | paste -sd, - | sed 's/,/, /g')

cat > "$ROOT/DEBIAN/control" <<CONTROL
Package: ingest
Version: $VERSION
Architecture: $ARCH
Maintainer: ingest developers <ingest@example.org>
Depends: $depends, adduser
Section: misc
Priority: optional
Installed-Size: $(du -sk "$ROOT" | cut -f1)
Description: nightly importer of pharmacy stock feeds into versioned SQLite snapshots
 Reads pharmacy stock exports (RAX, Noom, mapped CSV, fixed width, JSON and
 XML) with the reference data, computes patient prices per reimbursement
 tier and publishes a versioned, verified SQLite snapshot; ingest-serve
 answers the read API from it. Runs nightly from ingest.timer.
CONTROL
printf '%s\n' /etc/ingest/ingest.toml /etc/ingest/ingest-serve.toml /etc/ingest/mappings/patient_price_rules.toml /etc/logrotate.d/ingest /etc/default/ingest \
  > "$ROOT/DEBIAN/conffiles"
install -m 755 packaging/postinst packaging/prerm packaging/postrm "$ROOT/DEBIAN/"
dpkg-deb --build --root-owner-group "$ROOT" "var/deb/$NAME.deb" >&2
echo "var/deb/$NAME.deb"
