#!/bin/sh
# Print the -DSPECNET_HAVE_* flags for the kernel headers in $1 (srctree)
# and $2 (objtree, optional). Used by Kbuild; see kernel/compat.h.
hdr() { # $1 = path under include/, prints the first existing copy
	for d in "$SRC" "$OBJ"; do
		[ -n "$d" ] && [ -f "$d/$1" ] && { echo "$d/$1"; return; }
	done
}
SRC=$1 OBJ=${2:-$1}
f=$(hdr include/linux/random.h)
[ -n "$f" ] && grep -q 'get_random_u32_below' "$f" &&
	printf ' -DSPECNET_HAVE_GET_RANDOM_U32_BELOW'
f=$(hdr include/net/tcp.h)
[ -n "$f" ] && grep -Eq 'void \(\*cong_control\)\(struct sock \*sk, u32 ack, int flag' "$f" &&
	printf ' -DSPECNET_HAVE_CONG_CONTROL_ACK_FLAG'
[ -n "$(hdr include/net/gso.h)" ] && printf ' -DSPECNET_HAVE_NET_GSO_H'
echo
