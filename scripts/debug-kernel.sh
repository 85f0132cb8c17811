#!/bin/sh
# Build (once) and install a debug kernel for make stress: Debian's
# linux-source-<series> with KASAN, kmemleak, lockdep, DEBUG_ATOMIC_SLEEP,
# UBSAN and the networking the VM suite uses.
#
#   scripts/debug-kernel.sh [--print] SERIES...     SERIES: 6.1, 6.12
#
# The build lives in a cache outside the source tree,
# $SPECNET_DEBUG_CACHE (default /var/cache/specnet/debug-kernels), one
# directory per series and Debian source version, and is reused by any
# clone: a build is redone only when the source package, the config
# fragment or the recipe (RECIPE below) change. Installing is what makes it
# a kernel like any other: /boot/vmlinuz-<release>, /lib/modules/<release>
# (its build link points into the cache), so `make KVER=<release>` and
# tests/vm/vm.py --kernel <release> work as for Debian's kernels.
#
# The configuration is virtme-ng's guest config, then the networking
# options of Debian's own config for that series (the qdiscs, classifiers,
# congestion controls and netfilter the suite loads as modules), then
# scripts/debug-kernel.config, whose every option is checked in the final
# .config. Progress: one line a minute while it builds.
#
# --print: print the release of each series that is built and installed,
# one per line, and build nothing.
set -eu

TOP=$(cd "$(dirname "$0")/.." && pwd)
CACHE=${SPECNET_DEBUG_CACHE:-/var/cache/specnet/debug-kernels}
FRAG=$TOP/scripts/debug-kernel.config
VENV=${VENV:-$TOP/.venv}
JOBS=${JOBS:-$(nproc)}
PRINT=0

# The Debian config's options that the suite's networking needs as in a
# production kernel.
NET_RE='^CONFIG_(NET_SCH_|NET_CLS|NET_ACT_|NET_EMATCH|TCP_CONG_|DEFAULT_TCP|NF_TABLES|NFT_|NF_CONNTRACK|NETFILTER|NF_NAT|NF_DEFRAG|NF_REJECT|IFB|VETH|DUMMY|BRIDGE|TUN|MACVLAN|IPV6|INET_DIAG|INET_TCP_DIAG|INET_UDP_DIAG|PACKET|UNIX_DIAG|NETLINK_DIAG|NET_SCHED|NET_IP_TUNNEL)'

die() { echo "debug-kernel: $*" >&2; exit 1; }

[ "${1:-}" = --print ] && { PRINT=1; shift; }
[ $# -ge 1 ] || die "usage: $0 [--print] SERIES... (6.1, 6.12)"

# The build recipe's version: raise it when the configuration steps or the
# build's commands below change, so that cached builds are redone.
RECIPE=1

# The fingerprint of what a build depends on, besides the source version.
stamp_of() {
	{ echo "$RECIPE $NET_RE"; cat "$FRAG"; } | sha256sum | cut -c1-16
}

# release_of DIR: the release of a finished build in DIR, or nothing.
release_of() {
	[ -f "$1/.specnet-built" ] || return 0
	[ "$(sed -n 1p "$1/.specnet-built")" = "$(stamp_of)" ] || return 0
	sed -n 2p "$1/.specnet-built"
}

# check_config CONFIG: every option of the fragment holds in CONFIG.
check_config() {
	bad=0
	for line in $(grep -E '^CONFIG_' "$FRAG"); do
		opt=${line%%=*}; val=${line#*=}
		case "$val" in
		n) ! grep -q "^$opt=" "$1" || { echo "  $opt is set, wanted off"; bad=1; } ;;
		*) grep -qx "$opt=$val" "$1" || {
			echo "  $opt: wanted $val, have $(grep "^$opt=" "$1" || echo 'not set')"; bad=1; } ;;
		esac
	done
	return $bad
}

# The packages a build needs: the source, Debian's config of the series,
# and the kernel's build dependencies (make setup has the compiler).
need_packages() {	# need_packages SERIES
	missing=""
	for p in "linux-source-$1" "linux-config-$1" bc bison flex libelf-dev libssl-dev \
		xz-utils cpio kmod; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' ||
			missing="$missing $p"
	done
	[ -z "$missing" ] && return 0
	echo "debug-kernel $1: installing$missing"
	# shellcheck disable=SC2086
	apt-get install -y -qq --no-install-recommends $missing >/dev/null ||
		die "cannot install$missing"
}

build() {	# build SERIES DIR
	series=$1; dir=$2; src=$dir/src
	tarball=/usr/src/linux-source-$series.tar.xz
	need_packages "$series"
	[ -x "$VENV/bin/virtme-configkernel" ] ||
		die "no virtme-configkernel in $VENV: run make setup first"
	debconf=$(ls /usr/src/linux-config-"$series"/config.amd64_none_amd64.xz 2>/dev/null) ||
		die "no Debian config in /usr/src/linux-config-$series"
	rm -rf "$src"; mkdir -p "$src"
	echo "debug-kernel $series: extracting $tarball"
	tar -xJf "$tarball" -C "$src" --strip-components=1
	cd "$src"
	{
		xz -dc "$debconf" | grep -E "$NET_RE" | grep -E '=(y|m)$'
		cat "$FRAG"
	} > specnet-debug.fragment
	# virtme-ng's guest items come last in its config: merge the fragment
	# again over them (it wants debug info for gdb; this build does not)
	PATH=$VENV/bin:$PATH virtme-configkernel --defconfig --custom specnet-debug.fragment \
		> "$dir/config.log" 2>&1
	scripts/kconfig/merge_config.sh -m .config specnet-debug.fragment >> "$dir/config.log" 2>&1
	make -s olddefconfig >> "$dir/config.log" 2>&1
	check_config .config || die "$series: the config lost options of $FRAG (above)"
	start=$(date +%s)
	echo "debug-kernel $series: building with $JOBS jobs (about 20 min on 2 cores); log: $dir/build.log"
	make -j"$JOBS" bzImage modules > "$dir/build.log" 2>&1 &
	pid=$!
	while kill -0 $pid 2>/dev/null; do
		sleep 60
		kill -0 $pid 2>/dev/null || break
		echo "debug-kernel $series: $(( ($(date +%s) - start) / 60 )) min, $(grep -c '^  CC' "$dir/build.log") files compiled"
	done
	wait $pid || { tail -30 "$dir/build.log"; die "$series: build failed (log: $dir/build.log)"; }
	rel=$(make -s kernelrelease)
	printf '%s\n%s\n' "$(stamp_of)" "$rel" > "$dir/.specnet-built"
	echo "debug-kernel $series: built $rel in $(( ($(date +%s) - start) / 60 )) min"
}

install_kernel() {	# install DIR RELEASE
	dir=$1; rel=$2; src=$dir/src
	[ -f "/boot/vmlinuz-$rel" ] && cmp -s "$src/arch/x86/boot/bzImage" "/boot/vmlinuz-$rel" &&
		[ -e "/lib/modules/$rel/build/Makefile" ] && return 0
	echo "debug-kernel: installing $rel"
	make -s -C "$src" INSTALL_MOD_STRIP=1 modules_install >/dev/null
	cp "$src/arch/x86/boot/bzImage" "/boot/vmlinuz-$rel"
	cp "$src/System.map" "/boot/System.map-$rel"
	cp "$src/.config" "/boot/config-$rel"
	ln -sfn "$src" "/lib/modules/$rel/build"
}

for series in "$@"; do
	case "$series" in 6.1|6.12) ;; *) die "unsupported series $series (6.1, 6.12)";; esac
	ver=$(dpkg-query -W -f '${Version}' "linux-source-$series" 2>/dev/null || true)
	if [ -z "$ver" ]; then
		[ $PRINT = 1 ] && continue
		need_packages "$series"
		ver=$(dpkg-query -W -f '${Version}' "linux-source-$series")
	fi
	dir=$CACHE/$series-$ver
	rel=$(release_of "$dir")
	if [ $PRINT = 1 ]; then
		[ -n "$rel" ] && [ -e "/lib/modules/$rel/build/Makefile" ] && echo "$rel"
		continue
	fi
	if [ -z "$rel" ]; then
		mkdir -p "$dir"
		(build "$series" "$dir")
		rel=$(release_of "$dir")
		[ -n "$rel" ] || die "$series: no build in $dir"
	else
		echo "debug-kernel $series: $rel cached in $dir"
	fi
	install_kernel "$dir" "$rel"
done
