#!/usr/bin/env bash
# Make the Debian source of the EXACT installed iproute2 available under
# build/iproute2-src/ and print its path. The tc plugin (userspace/tc)
# compiles against its include/ and tc/ headers, and tc/tc_red.c, so that
# the structures and helpers match the installed /sbin/tc.
#
#   apt-get source --download-only iproute2=<installed version>
#   dpkg-source -x <dsc> build/iproute2-src
#
# Idempotent: when build/iproute2-src/ already holds the installed version
# (stamp file .specnet-version), it only prints the path. Needs a deb-src
# entry for bookworm (scripts/setup.sh adds one); no root needed when the
# apt lists are current.
set -euo pipefail

TOP=$(cd "$(dirname "$0")/.." && pwd)
DEST=${IPROUTE2_SRC:-$TOP/build/iproute2-src}
STAMP=$DEST/.specnet-version

die() { printf 'iproute2-src: error: %s\n' "$*" >&2; exit 1; }

ver=$(dpkg-query -W -f='${Version}' iproute2 2>/dev/null) ||
	die "iproute2 is not installed (run scripts/setup.sh)"
[ -n "$ver" ] || die "cannot read the installed iproute2 version"

if [ -r "$STAMP" ] && [ "$(cat "$STAMP")" = "$ver" ] &&
   [ -r "$DEST/tc/tc_util.h" ] && [ -r "$DEST/tc/tc_red.c" ]; then
	echo "$DEST"
	exit 0
fi

command -v dpkg-source >/dev/null || die "dpkg-source missing (apt-get install dpkg-dev)"

mkdir -p "$TOP/build"
work=$(mktemp -d "$TOP/build/.iproute2-src.XXXXXX")
trap 'rm -rf "$work"' EXIT

# apt-get source writes into the current directory. Quiet, but keep
# apt's error on stderr when the source is not available. As root, apt
# would drop to _apt, who cannot write here, and warn: download as root.
sandbox=()
[ "$(id -u)" = 0 ] && sandbox=(-o APT::Sandbox::User=root)
(cd "$work" && apt-get source -qq "${sandbox[@]}" --download-only "iproute2=$ver" >&2) ||
	die "apt-get source iproute2=$ver failed (deb-src for bookworm configured? apt-get update?)"

# The .dsc of an epoch-less version is iproute2_<ver>.dsc.
dsc=$work/iproute2_${ver#*:}.dsc
[ -r "$dsc" ] || die "no $dsc after apt-get source"

rm -rf "$work/src"
dpkg-source --no-check -q -x "$dsc" "$work/src" >&2 ||
	die "dpkg-source -x $dsc failed"
echo "$ver" >"$work/src/.specnet-version"

rm -rf "$DEST"
mkdir -p "$(dirname "$DEST")"
mv "$work/src" "$DEST"
echo "$DEST"
