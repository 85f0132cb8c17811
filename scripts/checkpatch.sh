#!/usr/bin/env bash
# Run the kernel's checkpatch.pl --strict over our kernel sources. The script
# comes from Debian's linux-source-6.1 package (downloaded once, only the
# three files checkpatch needs extracted into build/tools/).
set -euo pipefail
TOP=$(cd "$(dirname "$0")/.." && pwd)
T=$TOP/build/tools/checkpatch
if [ ! -x "$T/scripts/checkpatch.pl" ]; then
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
	(cd "$tmp" && apt-get download -q linux-source-6.1 >/dev/null)
	dpkg-deb --fsys-tarfile "$tmp"/linux-source-6.1_*.deb |
		tar -x -C "$tmp" --wildcards './usr/src/linux-source-6.1.tar.xz'
	mkdir -p "$T"
	tar -xJf "$tmp/usr/src/linux-source-6.1.tar.xz" -C "$T" --strip-components=1 \
		linux-source-6.1/scripts/checkpatch.pl \
		linux-source-6.1/scripts/spelling.txt \
		linux-source-6.1/scripts/const_structs.checkpatch
fi
cd "$TOP"
cp_run() { perl "$T/scripts/checkpatch.pl" --no-tree --strict --terse --show-types \
	--ignore FILE_PATH_CHANGES,CAMELCASE "$@"; }
files=$(ls kernel/*.h kernel/include/specnet/*.h tcp_*/*.c sch_*/*.c 2>/dev/null |
	grep -v 'kernel/include/specnet/types.h' || true)
out=$(cp_run -f $files 2>&1 || true)
# types.h defines the kernel types for host builds: PREFER_KERNEL_TYPES is moot.
out="$out
$(cp_run --ignore PREFER_KERNEL_TYPES -f kernel/include/specnet/types.h 2>&1 || true)"
if printf '%s\n' "$out" | grep -E ': (ERROR|WARNING|CHECK):'; then
	echo "checkpatch: issues above"
	exit 1
fi
echo "checkpatch --strict: clean ($(echo $files | wc -w) files + types.h)"
