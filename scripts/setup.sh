#!/usr/bin/env bash
# specnet set-up: everything `make demo` and `make test` need, on Debian 12,
# as root. Idempotent: each step checks first and a second run changes
# nothing ("setup: nothing to do").
#
#   * bookworm-backports (deb) and bookworm deb-src (deb822, for
#     `apt-get source iproute2` / linux-source's checkpatch.pl)
#   * kernels: Debian 6.1 (linux-image-amd64) and 6.12 from
#     bookworm-backports, image + headers each
#   * qemu, iperf3, iproute2, ethtool, mininet, build tools, sparse, valgrind (callgrind cost figures), libmnl
#   * clang with its compiler-rt (libclang-rt-14-dev: libFuzzer, ASan, UBSan;
#     only recommended by clang, so named here) for tests/fuzz
#   * a Python venv at $VENV (pinned, requirements.txt) with virtme-ng and
#     pytest, on Debian's python3 with --system-site-packages so that
#     Mininet (a Debian package) imports.
set -euo pipefail

TOP=$(cd "$(dirname "$0")/.." && pwd)
VENV=${VENV:-$TOP/.venv}
export DEBIAN_FRONTEND=noninteractive
did=0

say() { printf 'setup: %s\n' "$*"; }
die() { printf 'setup: error: %s\n' "$*" >&2; exit 1; }

[ "$(id -u)" = 0 ] || die "must run as root (apt, kernels, VM)"
[ -r /etc/os-release ] && . /etc/os-release
[ "${VERSION_CODENAME:-}" = bookworm ] ||
	say "warning: written for Debian 12 (bookworm), this is ${PRETTY_NAME:-unknown}"

# --- apt sources -----------------------------------------------------------
bpo=/etc/apt/sources.list.d/bookworm-backports.list
if ! grep -rqs 'bookworm-backports' /etc/apt/sources.list /etc/apt/sources.list.d/; then
	echo 'deb http://deb.debian.org/debian bookworm-backports main' >"$bpo"
	say "added bookworm-backports ($bpo)"
	need_update=1
fi
src=/etc/apt/sources.list.d/specnet-src.sources
if ! grep -rqsE '^(Types: *deb-src|deb-src )' /etc/apt/sources.list /etc/apt/sources.list.d/; then
	cat >"$src" <<'SRC'
Types: deb-src
URIs: http://deb.debian.org/debian
Suites: bookworm
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SRC
	say "added bookworm deb-src ($src)"
	need_update=1
fi
stamp=/var/lib/apt/periodic/specnet-update-stamp
if [ -n "${need_update:-}" ] || [ ! -e "$stamp" ] ||
   ! apt-cache show -t bookworm-backports linux-image-amd64 >/dev/null 2>&1; then
	say "apt-get update"
	apt-get update -qq
	mkdir -p "$(dirname "$stamp")" && touch "$stamp"
	did=1
fi

# --- packages --------------------------------------------------------------
# Both kernels are installed by their versioned package names (resolved
# from the meta packages of each suite), so that they sit side by side and
# neither meta package pulls the other out.
meta_dep() { # $1 = meta package, $2 = 1 for bookworm-backports, 0 for the rest
	local ver
	ver=$(apt-cache madison "$1" | awk -F'|' -v bpo="$2" '
		{ gsub(/ /, "", $2); isb = ($3 ~ /backports/) }
		isb == bpo { print $2; exit }')
	[ -n "$ver" ] || return 0
	apt-cache show "$1=$ver" 2>/dev/null |
		sed -n 's/^Depends: *\([^ ,]*\).*/\1/p' | head -1
}
K61_IMG=$(meta_dep linux-image-amd64 0)
K61_HDR=$(meta_dep linux-headers-amd64 0)
BPO_IMG=$(meta_dep linux-image-amd64 1)
BPO_HDR=$(meta_dep linux-headers-amd64 1)
[ -n "$K61_IMG" ] && [ -n "$K61_HDR" ] || die "cannot resolve the bookworm 6.1 kernel packages"
[ -n "$BPO_IMG" ] && [ -n "$BPO_HDR" ] || die "cannot resolve the bookworm-backports kernel packages"

PKGS=(
	"$K61_IMG" "$K61_HDR"
	qemu-system-x86 qemu-utils busybox-static
	iperf3 iproute2 ethtool mininet kmod procps psmisc
	build-essential bc flex bison libelf-dev pkg-config sparse valgrind
	libmnl-dev nftables bridge-utils iputils-ping python3-venv python3-dev dpkg-dev
	groff-base man-db dkms
	clang libclang-rt-14-dev
)
missing=()
for p in "${PKGS[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
	say "installing: ${missing[*]}"
	apt-get install -y -qq --no-install-recommends "${missing[@]}"
	did=1
fi
bmissing=()
for p in "$BPO_IMG" "$BPO_HDR"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' || bmissing+=("$p")
done
if [ ${#bmissing[@]} -gt 0 ]; then
	say "installing from bookworm-backports: ${bmissing[*]}"
	apt-get install -y -qq --no-install-recommends "${bmissing[@]/%//bookworm-backports}"
	did=1
fi

# iperf3's package may start a system-wide server; tests run their own.
if systemctl is-enabled iperf3 >/dev/null 2>&1; then
	systemctl disable --now iperf3 >/dev/null 2>&1 || true
fi

# --- Python venv -----------------------------------------------------------
req=$TOP/requirements.txt
if [ ! -x "$VENV/bin/python" ] || ! cmp -s "$req" "$VENV/.specnet-requirements"; then
	say "creating Python venv $VENV (pinned: $(tr '\n' ' ' <"$req"))"
	/usr/bin/python3 -m venv --system-site-packages "$VENV"
	"$VENV/bin/pip" install -q --disable-pip-version-check -r "$req"
	cp "$req" "$VENV/.specnet-requirements"
	did=1
fi
# the bench tooling (pyproject.toml), editable: the venv runs this tree's
# specnet_bench/ and has the specnet-bench command
if ! (cd / && "$VENV/bin/python" -c "import specnet_bench, sys; \
		sys.exit(specnet_bench.__file__ != '$TOP/specnet_bench/__init__.py')" 2>/dev/null) ||
		[ ! -x "$VENV/bin/specnet-bench" ]; then
	say "installing specnet_bench (editable) in $VENV"
	"$VENV/bin/pip" install -q --disable-pip-version-check --no-deps -e "$TOP"
	did=1
fi

if [ "$did" = 0 ]; then
	say "nothing to do (kernels: $(ls /lib/modules | tr '\n' ' '))"
else
	say "done (kernels: $(ls /lib/modules | tr '\n' ' '))"
fi
