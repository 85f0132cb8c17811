#!/usr/bin/env python3
"""Netlink fuzzer of sch_redopt: generated and mutated RTM_NEWQDISC
(add, replace, change) and RTM_DELQDISC messages for kind "redopt" on one
device, interleaved with traffic through the qdisc.

    nlfuzz.py DEV DST N SEED      -> one JSON line of counts on stdout

Run inside the namespace that holds DEV (a dummy device: every packet sent
to DST goes through its root qdisc and is freed). About 3% of the
messages delete the qdisc; each other one starts from a valid configuration
(a change: a random subset of it) and, 85% of the time, gets 1-3
mutations: attributes dropped, duplicated, truncated, extended, of another
attribute's size, flagged nested, read-only, unknown or garbage, shuffled;
boundary and random values for every input attribute; ssthresh arrays of
0 to TC_REDOPT_MAX_FLOWS + 79 (1103) values. 7% of them have TCA_OPTIONS
not nested, empty, garbage or absent. Between messages, UDP datagrams
(some as UDP GSO aggregates, which redopt segments) go through the qdisc.

What is checked, for every message:
* the kernel answers (an NLMSG_ERROR), and a refusal carries an extack
  message (every mutation is inside TCA_OPTIONS, so each refusal is
  redopt's or the qdisc core's answer to a well-formed request);
* a refused message changes nothing: the qdisc's kind and its dumped
  inputs (raw bytes) are the same before and after;
* an accepted one leaves a consistent qdisc: its dump parses, min_th <
  max_th < limit.
Violations are counted and the first ones printed (stderr).
"""
import json
import os
import random
import re
import socket
import struct
import sys

RTM_DELQDISC = 37
NLM_F_REPLACE, NLM_F_EXCL, NLM_F_CREATE = 0x100, 0x200, 0x400
SOL_UDP, UDP_SEGMENT = 17, 103

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "integration"))
# nlraw puts the repository on the path too
from nlraw import NLA_F_NESTED, TC_H_ROOT, UAPI, attr_numbers, attrs, nla  # noqa: E402
from specnet_bench import netlink  # noqa: E402
from specnet_bench.netlink import (NETLINK_ROUTE, RTM_NEWQDISC, TCA_KIND,  # noqa: E402
                                   TCA_OPTIONS)


def uapi():
    """TCA_REDOPT_* numbers, the flag word's bits, the most flows."""
    text = open(UAPI).read()
    flags_all = 0
    for m in re.finditer(r"#define\s+TC_REDOPT_(\w+)\s+\(1U << (\d+)\)", text):
        flags_all |= 1 << int(m.group(2))
    maxf = int(re.search(r"#define\s+TC_REDOPT_MAX_FLOWS\s+(\d+)", text).group(1))
    return attr_numbers(), flags_all, maxf


NUM, FLAGS_ALL, MAX_FLOWS = uapi()
# what userspace may set, and its wire size; the rest is read-only
SIZE = {"BANDWIDTH": 8, "RTT": 4, "FLOWS": 4, "SSTHRESH": 4, "WINDOW": 4, "MIN": 4,
        "MAX_P": 4, "WLOG": 1, "AVPKT": 4, "FLAGS": 4, "LOSS_RATE": 4}
READ_ONLY = [n for n in NUM if n not in SIZE and n not in ("UNSPEC", "PAD")]
GOOD = {"BANDWIDTH": 1500000, "RTT": 59000, "FLOWS": 2, "SSTHRESH": [15], "MIN": 5,
        "MAX_P": 429496730, "WINDOW": 38, "WLOG": 9, "AVPKT": 1000, "FLAGS": 1}


FMT = {1: "=B", 4: "=I", 8: "=Q"}


def pack(name, v):
    if name == "SSTHRESH":
        return b"".join(struct.pack("=I", x & 0xFFFFFFFF) for x in v)
    return struct.pack(FMT[SIZE[name]], v & ((1 << (8 * SIZE[name])) - 1))


def inputs(opts):
    """The input attributes of a dump (the computed ones may move with the
    flow estimator between two dumps)."""
    keep = {NUM[n] for n in SIZE}
    return sorted((t, p) for t, p in attrs(opts) if t in keep)


def boundary(rng, nbytes):
    top = (1 << (8 * nbytes)) - 1
    return rng.choice([0, 1, 2, 3, 7, 8, 9, 24, 25, 31, 32, 63, 64, 255, 256, 1023, 1024,
                       1025, 65535, 65536, 2**31 - 1, 2**31, top - 1, top,
                       rng.randrange(0, top + 1), rng.randrange(0, 1 << 16)]) & top


class Fuzzer:
    def __init__(self, dev, dst, seed):
        self.rng = random.Random(seed)
        self.ifindex = socket.if_nametoindex(dev)
        self.nl = netlink.open_socket(NETLINK_ROUTE, ext_ack=True)
        self.nl.settimeout(10)
        self.seq = 0
        self.dst = dst
        self.udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.udp.setblocking(False)
        self.gso = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.gso.setblocking(False)
        try:
            self.gso.setsockopt(SOL_UDP, UDP_SEGMENT, 1000)
        except OSError:
            self.gso = None
        self.c = dict(messages=0, accepted=0, refused=0, refused_no_extack=0,
                      changed_by_refusal=0, inconsistent=0, no_answer=0, datagrams=0,
                      gso_datagrams=0, by_errno={}, extack={})
        self.bad = []
        # the root qdisc after the last message, the state before the next
        # (nothing else writes this device's qdisc); False: dump it again
        self.state = False

    # ---- netlink -------------------------------------------------------------
    def talk(self, mtype, flags, body):
        """The kernel's answer to one request: (errno, extack message)."""
        self.seq += 1
        return netlink.request(self.nl, mtype, flags, body, self.seq)

    def tcmsg(self):
        return netlink.TCMSG.pack(socket.AF_UNSPEC, self.ifindex, 0, TC_H_ROOT, 0)

    def dump(self):
        """The root qdisc's (kind, TCA_OPTIONS bytes) on the device."""
        q = next((q for q in netlink.qdiscs(self.nl)
                  if q["ifindex"] == self.ifindex and q["parent"] == TC_H_ROOT), None)
        return (q["kind"], q["options"]) if q else None

    # ---- messages ------------------------------------------------------------
    def mutate(self, a):
        """@a: list of [type, payload bytes, nested flag]; 1-3 mutations."""
        r = self.rng
        for _ in range(r.randint(1, 3)):
            k = r.randrange(12)
            names = [n for n in SIZE]
            if k == 0 and a:                                  # drop one
                a.pop(r.randrange(len(a)))
            elif k == 1 and a:                                # duplicate one
                a.insert(r.randrange(len(a) + 1), list(r.choice(a)))
            elif k == 2 and a:                                # truncate
                x = r.choice(a)
                x[1] = x[1][:r.randrange(len(x[1]) + 1)]
            elif k == 3 and a:                                # extend
                x = r.choice(a)
                x[1] = x[1] + bytes(r.randrange(256) for _ in range(r.choice([1, 3, 4, 8, 256])))
            elif k in (4, 5, 6):                              # a boundary or random value
                n = r.choice(names)
                a[:] = [x for x in a if x[0] != NUM[n]]
                if n == "SSTHRESH":
                    cnt = r.choice([0, 1, 2, 3, r.randrange(1, MAX_FLOWS + 80)])
                    v = [boundary(r, 4) if r.random() < 0.3 else r.randrange(1, 200)
                         for _ in range(cnt)]
                elif n == "FLAGS":
                    v = r.choice([0, 1, 2, 3, FLAGS_ALL, FLAGS_ALL + 1, 1 << r.randrange(32)])
                else:
                    v = boundary(r, SIZE[n])
                a.append([NUM[n], pack(n, v), False])
            elif k == 7:                                      # read-only or unknown type
                t = r.choice([NUM[n] for n in READ_ONLY] +
                             [max(NUM.values()) + 1, 99, 0, 0x3FFF])
                a.append([t, struct.pack("=I", boundary(r, 4)), False])
            elif k == 8 and a:                                # nested flag on a leaf
                r.choice(a)[2] = True
            elif k == 9 and a:                                # another attribute's size
                x = r.choice(a)
                x[1] = bytes(r.choice([1, 2, 4, 8, 12]))
            elif k == 10:                                     # garbage attribute
                a.append([r.randrange(0x4000), bytes(r.randrange(256) for _ in
                                                      range(r.randrange(16))), False])
            elif k == 11 and len(a) > 1:                      # shuffle
                r.shuffle(a)
        return a

    def options(self, mode):
        r = self.rng
        a = [[NUM[n], pack(n, v), False] for n, v in GOOD.items()]
        if mode == "change":
            a = r.sample(a, r.randrange(0, len(a) + 1))
        if r.random() < 0.85:
            a = self.mutate(a)
        body = b"".join(nla(t | (NLA_F_NESTED if nested else 0), p) for t, p, nested in a)
        shape = r.random()
        if shape < 0.02:
            return nla(TCA_OPTIONS, body)                     # not flagged nested
        if shape < 0.04:
            return nla(TCA_OPTIONS | NLA_F_NESTED, b"")       # empty
        if shape < 0.06:
            return nla(TCA_OPTIONS | NLA_F_NESTED,
                       bytes(r.randrange(256) for _ in range(r.randrange(1, 64))))
        if shape < 0.07:
            return b""                                        # none
        return nla(TCA_OPTIONS | NLA_F_NESTED, body)

    def traffic(self):
        for _ in range(self.rng.randint(1, 4)):
            try:
                self.udp.sendto(bytes(self.rng.choice([64, 512, 1000, 1400])), (self.dst, 9))
                self.c["datagrams"] += 1
            except OSError:
                pass
        if self.gso and self.rng.random() < 0.3:
            try:
                self.gso.sendto(bytes(self.rng.choice([2000, 4000, 16000])), (self.dst, 9))
                self.c["gso_datagrams"] += 1
            except OSError:
                pass

    def violation(self, kind, detail):
        self.c[kind] += 1
        if len(self.bad) < 20:
            self.bad.append(f"{kind}: {detail}")

    def check_consistent(self, opts):
        o = {t: p for t, p in attrs(opts)}
        try:
            lim = struct.unpack("=I", o[NUM["LIMIT"]])[0]
            lo = struct.unpack("=I", o[NUM["QTH_MIN"]])[0]
            hi = struct.unpack("=I", o[NUM["QTH_MAX"]])[0]
        except (KeyError, struct.error) as e:
            return f"dump lacks a computed value: {e}"
        if not lo < hi < lim:
            return f"min_th {lo}, max_th {hi}, limit {lim}"
        return None

    def one(self):
        r = self.rng
        before = self.dump() if self.state is False else self.state
        have = before is not None and before[0] == "redopt"
        x = r.random()
        if x < 0.03 and have:
            err, _ = self.talk(RTM_DELQDISC, 0, self.tcmsg())
            self.c["messages"] += 1
            self.c["accepted" if err == 0 else "refused"] += 1
            self.state = False
            return
        if not have or x < 0.25:
            mode, flags = ("add", NLM_F_CREATE | NLM_F_EXCL) if not have else \
                ("replace", NLM_F_CREATE | NLM_F_REPLACE)
        else:
            mode, flags = "change", 0
        body = self.tcmsg() + nla(TCA_KIND, b"redopt\0") + self.options(mode)
        err, text = self.talk(RTM_NEWQDISC, flags, body)
        self.c["messages"] += 1
        after = self.state = self.dump()
        if err:
            self.c["refused"] += 1
            self.c["by_errno"][err] = self.c["by_errno"].get(err, 0) + 1
            key = text or "(none)"
            self.c["extack"][key] = self.c["extack"].get(key, 0) + 1
            if not text:
                self.violation("refused_no_extack", f"{mode} errno {err}: {body.hex()}")
            if (after is None) != (before is None) or (after and before and (
                    after[0] != before[0] or inputs(after[1]) != inputs(before[1]))):
                self.violation("changed_by_refusal", f"{mode} errno {err} {text!r}")
        else:
            self.c["accepted"] += 1
            if after is None or after[0] != "redopt":
                self.violation("inconsistent", f"{mode} accepted, no redopt after: {after}")
            else:
                why = self.check_consistent(after[1])
                if why:
                    self.violation("inconsistent", f"{mode}: {why}")

    def run(self, n):
        for _ in range(n):
            self.one()
            self.traffic()
        return self.c


def main():
    dev, dst, n, seed = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    f = Fuzzer(dev, dst, seed)
    c = f.run(n)
    for b in f.bad:
        print(b, file=sys.stderr)
    c["by_errno"] = {str(k): v for k, v in sorted(c["by_errno"].items())}
    c["extack"] = dict(sorted(c["extack"].items(), key=lambda kv: -kv[1])[:40])
    print(json.dumps(c))


if __name__ == "__main__":
    main()
