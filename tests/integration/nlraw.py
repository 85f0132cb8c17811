#!/usr/bin/env python3
"""Send one hand-built RTM_NEWQDISC for kind "redopt" and print the
kernel's answer as JSON: {"error": errno (0 = ok), "msg": extack message}.

    nlraw.py DEV '[["BANDWIDTH","u64",1500000], ["SSTHRESH","raw","0f000000"], ...]'

Used by the tc-testing-style cases to send what tc would never send
(malformed, missing or read-only attributes) and check the extack answer,
and (root_options()) to read the kernel's own dump of a qdisc, decoded by
neither tc, the plugin nor the uapi header. Run it inside the namespace
that holds DEV (ip netns exec), or call request() and root_options() from
a thread in that namespace (specnet_lab.in_netns()).
"""
import json
import os
import re
import socket
import struct
import sys

NLM_F_EXCL, NLM_F_CREATE = 0x200, 0x400
NLA_F_NESTED = 1 << 15
TC_H_ROOT = 0xFFFFFFFF

HERE = os.path.dirname(os.path.abspath(__file__))
UAPI = os.path.join(HERE, "..", "..", "kernel", "include", "uapi", "specnet", "redopt.h")
sys.path.insert(0, os.path.join(HERE, "..", ".."))
from specnet_bench import netlink  # noqa: E402
from specnet_bench.netlink import (NETLINK_ROUTE, RTM_NEWQDISC, TCA_KIND,  # noqa: E402
                                   TCA_OPTIONS, attrs)  # attrs: nlfuzz's too


def attr_numbers():
    """TCA_REDOPT_* numbers, read from the uapi header (the contract)."""
    text = open(UAPI).read()
    body = re.search(r"enum \{(.*?)\};", text, re.S).group(1)
    names = re.findall(r"^\s*(TCA_REDOPT_\w+)", body, re.M)
    return {n[len("TCA_REDOPT_"):]: i for i, n in enumerate(names)}


def nla(atype, payload):
    ln = 4 + len(payload)
    return struct.pack("=HH", ln, atype) + payload + b"\0" * ((4 - ln % 4) % 4)


def encode(spec):
    nums = attr_numbers()
    out = b""
    for name, kind, value in spec:
        t = nums[name] if isinstance(name, str) else int(name)
        if kind == "u8":
            p = struct.pack("=B", value)
        elif kind == "u32":
            p = struct.pack("=I", value)
        elif kind == "u64":
            p = struct.pack("=Q", value)
        elif kind == "u32s":
            p = b"".join(struct.pack("=I", v) for v in value)
        elif kind == "raw":
            p = bytes.fromhex(value)
        else:
            raise ValueError(f"unknown kind {kind}")
        out += nla(t, p)
    return out


def request(dev, spec):
    """Send the RTM_NEWQDISC of @spec for @dev (in this thread's network
    namespace) and return the kernel's answer: {"error": errno, "msg":
    extack message}."""
    tcm = netlink.TCMSG.pack(socket.AF_UNSPEC, socket.if_nametoindex(dev), 0, TC_H_ROOT, 0)
    body = tcm + nla(TCA_KIND, b"redopt\0") + nla(TCA_OPTIONS | NLA_F_NESTED, encode(spec))
    with netlink.open_socket(NETLINK_ROUTE, ext_ack=True) as s:
        err, msg = netlink.request(s, RTM_NEWQDISC, NLM_F_CREATE | NLM_F_EXCL, body)
    return {"error": err, "msg": msg}


def root_options(dev, kind="redopt"):
    """The TCA_OPTIONS of @dev's root qdisc of @kind (in this thread's
    network namespace), from the kernel's RTM_GETQDISC dump: {attribute
    type: payload bytes}, or None when @dev has no such root qdisc."""
    idx = socket.if_nametoindex(dev)
    with netlink.open_socket(NETLINK_ROUTE) as s:
        q = next((q for q in netlink.qdiscs(s)
                  if q["ifindex"] == idx and q["parent"] == TC_H_ROOT and q["kind"] == kind), None)
    return dict(attrs(q["options"])) if q else None


def main():
    print(json.dumps(request(sys.argv[1], json.loads(sys.argv[2]))))


if __name__ == "__main__":
    main()
