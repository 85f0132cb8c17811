#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The README's first command on a fresh machine, for real: a fresh clone of
# this repository and `make <target>` (default: demo) in a private mount
# namespace where the machine has no kernel, no headers and no venv, as
# both the file system and dpkg see it:
#
#   /boot, /lib/modules and each /usr/src/linux-* are empty tmpfs;
#   /var/lib/dpkg is an overlay (upper layer in tmpfs) in which every
#   linux-image-*, linux-headers-* and linux-kbuild-* package is marked
#   not installed, so make setup really downloads and installs them.
#
# Everything those installs write lands in the namespace's tmpfs, except
# what dpkg writes elsewhere: the .deb cache, dpkg's and apt's logs, and
# the /vmlinuz and /initrd.img symlinks the kernel's postinst refreshes.
# Takes about 13 minutes for the demo (2 cores, TCG), of which 2-3 for setup.
#
#   tests/fresh_machine.sh [make arguments]    as root; default: demo
#   tests/fresh_machine.sh demo DRY=1          setup, then resolve the kernel
set -euo pipefail

TOP=$(cd "$(dirname "$0")/.." && pwd)
[ "$(id -u)" = 0 ] || { echo "fresh_machine: needs root" >&2; exit 2; }
command -v unshare >/dev/null || { echo "fresh_machine: needs unshare" >&2; exit 2; }

if [ "${FRESH_INNER:-}" != 1 ]; then
	exec env FRESH_INNER=1 unshare -m --propagation private "$0" "$@"
fi

work=$(mktemp -d /tmp/specnet-fresh.XXXXXX)
mount -t tmpfs none "$work"
mount -t tmpfs none /boot
mount -t tmpfs none /lib/modules
for d in /usr/src/linux-*; do
	[ -d "$d" ] && mount -t tmpfs none "$d"
done
mkdir -p "$work/up" "$work/work"
mount -t overlay overlay \
	-o "lowerdir=/var/lib/dpkg,upperdir=$work/up,workdir=$work/work" /var/lib/dpkg
mapfile -t pkgs < <(dpkg-query -W -f='${Package} ${Status}\n' \
	'linux-image-[0-9]*' 'linux-headers-[0-9]*' 'linux-kbuild-*' 2>/dev/null |
	awk '$NF == "installed" { print $1 }')
python3 - "${pkgs[@]}" <<'PY'
import sys
hide = set(sys.argv[1:])
path = "/var/lib/dpkg/status"
blocks = open(path).read().split("\n\n")
for i, b in enumerate(blocks):
    lines = b.split("\n")
    if any(l == f"Package: {p}" for p in hide for l in lines):
        blocks[i] = "\n".join("Status: purge ok not-installed" if l.startswith("Status: ")
                              else l for l in lines)
open(path, "w").write("\n\n".join(blocks))
PY
echo "fresh: /lib/modules [$(ls -A /lib/modules)], /boot [$(ls -A /boot)]," \
	"kernel packages hidden: ${pkgs[*]:-none}"
git clone -q "$TOP" "$work/specnet"
cd "$work/specnet"
[ ! -e .venv ] && echo "fresh: no .venv in $work/specnet"
[ $# -gt 0 ] || set -- demo
echo "fresh: make $*"
make "$@"
