"""Host tests of the tc plugin q_redopt.so (userspace/tc/q_redopt.c).

The host kernel has no module support, so sch_redopt never runs here: the
qdisc itself is tested in the VM (tests/integration). What runs here is the
real /sbin/tc with TC_LIB_DIR pointing at build/userspace/tc, so that tc
dlopen()s our q_redopt.so (tc/tc.c get_qdisc_kind(): "$TC_LIB_DIR/q_<kind>.so",
then dlsym("<kind>_qdisc_util")):

* parse errors: every bad command line exits 1 with the iproute2-style
  message (Illegal "x", What is "x"?, duplicate, required parameter) and
  the usage, and sends nothing;
* what a good command line sends: a small LD_PRELOAD shim (compiled here
  with cc) records the RTM_NEWQDISC/RTM_DELQDISC request tc sends and
  refuses it (tc exits 2, "Cannot talk to rtnetlink"), so nothing reaches
  the kernel -- safe on the host and in a VM that has sch_redopt;
* the dump and xstats printers: the same shim answers tc's RTM_GETQDISC dump
  with a message built here, as the qdisc would send it; text, -d and -j.

Attribute numbers are read from kernel/include/uapi/specnet/redopt.h, the
contract, so the test follows it.
"""
import json
import os
import re
import shutil
import struct
import subprocess

import pytest

TOP = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
PLUGIN_DIR = os.path.join(TOP, "build", "userspace", "tc")
PLUGIN = os.path.join(PLUGIN_DIR, "q_redopt.so")
UAPI = os.path.join(TOP, "kernel", "include", "uapi", "specnet", "redopt.h")
TC = "/sbin/tc" if os.path.exists("/sbin/tc") else shutil.which("tc")

# rtnetlink constants (linux/rtnetlink.h, linux/netlink.h, linux/pkt_sched.h)
RTM_NEWQDISC, RTM_DELQDISC, RTM_GETQDISC = 36, 37, 38
NLM_F_MULTI, NLM_F_REPLACE, NLM_F_EXCL, NLM_F_CREATE = 0x2, 0x100, 0x200, 0x400
NLA_F_NESTED = 1 << 15
NLA_TYPE_MASK = 0x3FFF
TCA_KIND, TCA_OPTIONS, TCA_STATS2 = 1, 2, 7
TCA_STATS_APP = 4
TC_H_ROOT = 0xFFFFFFFF


def _uapi():
    txt = open(UAPI).read()
    body = re.search(r"enum\s*\{(.*?)\};", txt, re.S).group(1)
    body = re.sub(r"/\*.*?\*/", "", body, flags=re.S)
    attrs = {n.strip(): i for i, n in enumerate(x for x in body.split(",") if x.strip())}
    flags = {m.group(1): 1 << int(m.group(2)) for m in
             re.finditer(r"#define\s+(TC_REDOPT_\w+)\s+\(1U << (\d+)\)", txt)}
    xs = re.search(r"struct tc_redopt_xstats\s*\{(.*?)\};", txt, re.S).group(1)
    xfields = re.findall(r"__u32\s+(\w+);", xs)
    maxf = int(re.search(r"#define\s+TC_REDOPT_MAX_FLOWS\s+(\d+)", txt).group(1))
    return attrs, flags, xfields, maxf


A, F, XFIELDS, MAX_FLOWS = _uapi()
ECN, ADAPTIVE, HARDDROP = F["TC_REDOPT_ECN"], F["TC_REDOPT_ADAPTIVE"], F["TC_REDOPT_HARDDROP"]
U32_MAX = 2**32 - 1

# What add/replace send, all of it: every input (the qdisc computes the rest).
INPUTS = {"TCA_REDOPT_BANDWIDTH", "TCA_REDOPT_RTT", "TCA_REDOPT_FLOWS", "TCA_REDOPT_SSTHRESH",
          "TCA_REDOPT_WINDOW", "TCA_REDOPT_MIN", "TCA_REDOPT_MAX_P", "TCA_REDOPT_WLOG",
          "TCA_REDOPT_AVPKT", "TCA_REDOPT_LOSS_RATE", "TCA_REDOPT_FLAGS"}

# The example: m = 2, SSth 15, r = 59 ms, C = 1.5 Mbit/s, s = 1000,
# min_th 5, max_p 0.1 (docs/algorithms.md, the RED buffer model).
BASE = ["bandwidth", "1.5mbit", "rtt", "59ms", "flows", "2", "ssthresh", "15",
        "min", "5", "probability", "0.1"]

SHIM_C = r"""
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>

/*
 * REDOPT_CAPTURE=file: append each RTM_NEWQDISC/RTM_DELQDISC request to
 *   file and fail the sendmsg() with EOPNOTSUPP (nothing reaches the kernel).
 * REDOPT_DUMP=file: answer the RTM_GETQDISC dump with the netlink messages
 *   in file (seq/pid patched) and NLMSG_DONE.
 */
static int fake_fd = -1;
static __u32 fake_seq;

ssize_t sendmsg(int fd, const struct msghdr *m, int flags)
{
	static ssize_t (*real)(int, const struct msghdr *, int);
	static char buf[1 << 16];
	const char *cap = getenv("REDOPT_CAPTURE");
	const char *dump = getenv("REDOPT_DUMP");
	struct nlmsghdr *h = (struct nlmsghdr *)buf;
	size_t len = 0, i;

	if (!real)
		real = (ssize_t (*)(int, const struct msghdr *, int))dlsym(RTLD_NEXT, "sendmsg");
	for (i = 0; i < m->msg_iovlen; i++) {
		if (len + m->msg_iov[i].iov_len > sizeof(buf))
			return real(fd, m, flags);
		memcpy(buf + len, m->msg_iov[i].iov_base, m->msg_iov[i].iov_len);
		len += m->msg_iov[i].iov_len;
	}
	if (len >= sizeof(*h) && cap &&
	    (h->nlmsg_type == RTM_NEWQDISC || h->nlmsg_type == RTM_DELQDISC)) {
		FILE *f = fopen(cap, "ab");

		if (f) {
			fwrite(buf, 1, len, f);
			fclose(f);
		}
		errno = EOPNOTSUPP;
		return -1;
	}
	if (len >= sizeof(*h) && dump && h->nlmsg_type == RTM_GETQDISC) {
		fake_fd = fd;
		fake_seq = h->nlmsg_seq;
		return len;
	}
	return real(fd, m, flags);
}

ssize_t recvmsg(int fd, struct msghdr *m, int flags)
{
	static ssize_t (*real)(int, struct msghdr *, int);
	static char buf[1 << 16];
	struct sockaddr_nl local = {};
	socklen_t sl = sizeof(local);
	struct nlmsghdr *h;
	size_t len, off, cp;
	FILE *f;

	if (!real)
		real = (ssize_t (*)(int, struct msghdr *, int))dlsym(RTLD_NEXT, "recvmsg");
	if (fd != fake_fd)
		return real(fd, m, flags);
	getsockname(fd, (struct sockaddr *)&local, &sl);
	f = fopen(getenv("REDOPT_DUMP"), "rb");
	len = f ? fread(buf, 1, sizeof(buf) - 64, f) : 0;
	if (f)
		fclose(f);
	for (off = 0; off + sizeof(*h) <= len; off += NLMSG_ALIGN(h->nlmsg_len)) {
		h = (struct nlmsghdr *)(buf + off);
		if (h->nlmsg_len < sizeof(*h))
			break;
		h->nlmsg_seq = fake_seq;
		h->nlmsg_pid = local.nl_pid;
		h->nlmsg_flags |= NLM_F_MULTI;
	}
	len = off;
	h = (struct nlmsghdr *)(buf + len);
	memset(h, 0, NLMSG_LENGTH(sizeof(int)));
	h->nlmsg_len = NLMSG_LENGTH(sizeof(int));
	h->nlmsg_type = NLMSG_DONE;
	h->nlmsg_flags = NLM_F_MULTI;
	h->nlmsg_seq = fake_seq;
	h->nlmsg_pid = local.nl_pid;
	len += NLMSG_ALIGN(h->nlmsg_len);

	cp = m->msg_iovlen && m->msg_iov[0].iov_len < len ? m->msg_iov[0].iov_len : len;
	if (m->msg_iovlen)
		memcpy(m->msg_iov[0].iov_base, buf, m->msg_iovlen ? cp : 0);
	if (m->msg_name) {
		memset(m->msg_name, 0, sizeof(struct sockaddr_nl));
		((struct sockaddr_nl *)m->msg_name)->nl_family = AF_NETLINK;
		m->msg_namelen = sizeof(struct sockaddr_nl);
	}
	m->msg_controllen = 0;
	m->msg_flags = cp < len ? MSG_TRUNC : 0;
	if (!(flags & MSG_PEEK))
		fake_fd = -1;
	return (flags & MSG_TRUNC) ? (ssize_t)len : (ssize_t)cp;
}
"""


# ---- fixtures ---------------------------------------------------------------

@pytest.fixture(scope="session")
def plugin():
    """Build q_redopt.so (make is incremental) and return its directory."""
    if not TC:
        pytest.skip("no tc (iproute2) on this host")
    p = subprocess.run(["make", "-s", "-C", os.path.join(TOP, "userspace", "tc"),
                        f"O={PLUGIN_DIR}"], capture_output=True, text=True, timeout=600)
    assert p.returncode == 0, f"plugin build failed:\n{p.stdout}\n{p.stderr}"
    assert os.path.exists(PLUGIN)
    return PLUGIN_DIR


@pytest.fixture(scope="session")
def shim(tmp_path_factory):
    """The LD_PRELOAD netlink shim, or None without a C compiler."""
    cc = shutil.which("cc") or shutil.which("gcc")
    if not cc:
        return None
    d = tmp_path_factory.mktemp("shim")
    src, so = d / "nlshim.c", d / "nlshim.so"
    src.write_text(SHIM_C)
    p = subprocess.run([cc, "-O1", "-Wall", "-fPIC", "-shared", "-o", str(so), str(src), "-ldl"],
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    return str(so)


@pytest.fixture
def run(plugin, shim, tmp_path):
    """run(*tc_args) -> (returncode, stdout, stderr, sent messages or None)."""
    def _run(*args, dump=None):
        env = dict(os.environ, TC_LIB_DIR=plugin, LC_ALL="C")
        cap = tmp_path / "sent.bin"
        if cap.exists():
            cap.unlink()
        if shim:
            env["LD_PRELOAD"] = shim
            env["REDOPT_CAPTURE"] = str(cap)
            if dump is not None:
                (tmp_path / "dump.bin").write_bytes(dump)
                env["REDOPT_DUMP"] = str(tmp_path / "dump.bin")
        elif dump is not None:
            pytest.skip("no C compiler for the netlink shim")
        p = subprocess.run([TC, *args], env=env, capture_output=True, text=True, timeout=30)
        sent = None
        if shim:
            sent = parse_msgs(cap.read_bytes()) if cap.exists() else []
        return p.returncode, p.stdout, p.stderr, sent
    return _run


def add(*opts):
    return ["qdisc", "add", "dev", "lo", "root", "redopt", *opts]


def change(*opts):
    return ["qdisc", "change", "dev", "lo", "root", "redopt", *opts]


# ---- netlink helpers --------------------------------------------------------

def nla(t, payload):
    n = 4 + len(payload)
    return struct.pack("=HH", n, t) + payload + b"\0" * ((-n) % 4)


def parse_attrs(buf):
    out, off = {}, 0
    while off + 4 <= len(buf):
        n, t = struct.unpack_from("=HH", buf, off)
        if n < 4:
            break
        out[t & NLA_TYPE_MASK] = (t, buf[off + 4:off + n])
        off += (n + 3) & ~3
    return out


def parse_msgs(data):
    msgs, off = [], 0
    while off + 16 <= len(data):
        n, typ, flags, _seq, _pid = struct.unpack_from("=IHHII", data, off)
        body = data[off + 16:off + n]
        family, _p1, _p2, ifindex, handle, parent, _info = struct.unpack_from("=BBHiIII", body)
        msgs.append({"type": typ, "flags": flags, "ifindex": ifindex, "parent": parent,
                     "attrs": parse_attrs(body[20:])})
        off += (n + 3) & ~3
    return msgs


def options(msg):
    """The TCA_REDOPT_* attributes of a request: {name: bytes}. Only inputs
    may be sent: never a number beyond TCA_REDOPT_MAX (no idle table,
    STAB/SCELL_LOG are gone), PAD or a computed value."""
    assert TCA_OPTIONS in msg["attrs"], "no TCA_OPTIONS"
    t, payload = msg["attrs"][TCA_OPTIONS]
    assert t & NLA_F_NESTED, "TCA_OPTIONS without NLA_F_NESTED"
    names = {v: k for k, v in A.items()}
    out = {names.get(k, f"#{k}"): v[1] for k, v in parse_attrs(payload).items()}
    assert set(out) <= INPUTS, sorted(set(out) - INPUTS)
    return out


def u32(b):
    assert len(b) == 4, len(b)
    return struct.unpack("=I", b)[0]


def u8(b):
    assert len(b) == 1, len(b)
    return b[0]


def u64(b):
    assert len(b) == 8, len(b)
    return struct.unpack("=Q", b)[0]


def qdisc_msg(opts, xstats=None, ifindex=1):
    """An RTM_NEWQDISC as the qdisc's dump sends it; opts: {name: bytes}."""
    payload = b"".join(nla(A[k], v) for k, v in opts.items())
    attrs = nla(TCA_KIND, b"redopt\0") + nla(TCA_OPTIONS | NLA_F_NESTED, payload)
    if xstats is not None:
        attrs += nla(TCA_STATS2 | NLA_F_NESTED, nla(TCA_STATS_APP, xstats))
    body = struct.pack("=BBHiIII", 0, 0, 0, ifindex, 0x80010000, TC_H_ROOT, 1) + attrs
    return struct.pack("=IHHII", 16 + len(body), RTM_NEWQDISC, NLM_F_MULTI, 0, 0) + body


def P32(v):
    return struct.pack("=I", v)


# ---- the uapi ----------------------------------------------------------------

def test_uapi_enum():
    """Contiguous, no idle table (STAB/SCELL_LOG removed: the qdisc's idle
    decay is exact), inputs before the computed values."""
    names = sorted(A, key=A.get)
    assert [A[n] for n in names] == list(range(len(names)))
    assert names[:2] == ["TCA_REDOPT_UNSPEC", "TCA_REDOPT_PAD"]
    assert names[-1] == "__TCA_REDOPT_MAX"
    assert not any("STAB" in n or "SCELL" in n for n in names)
    assert set(names[2:2 + len(INPUTS)]) == INPUTS
    assert names[2 + len(INPUTS):-1] == [
        "TCA_REDOPT_BUFFER", "TCA_REDOPT_LIMIT", "TCA_REDOPT_QTH_MIN", "TCA_REDOPT_QTH_MAX",
        "TCA_REDOPT_QMAX", "TCA_REDOPT_FLOWS_EST", "TCA_REDOPT_M_BOUND"]


# ---- plugin loading ----------------------------------------------------------

def test_plugin_exports_only_redopt_qdisc_util(plugin):
    out = subprocess.run(["nm", "-D", "--defined-only", PLUGIN], capture_output=True,
                         text=True, check=True).stdout.split()
    assert [s for s in out if not re.fullmatch(r"[0-9a-f]+|[A-Za-z]", s)] == ["redopt_qdisc_util"]


def test_help_prints_usage(run):
    rc, _out, err, sent = run(*add("help"))
    assert rc == 1
    assert "Usage: ... redopt bandwidth RATE rtt TIME ssthresh" in err
    assert "[loss-rate EVENTS]" in err
    assert "any subset" in err and "needs all three" not in err
    assert "unparsable" not in err     # the plugin was loaded
    assert not sent


def test_without_tc_lib_dir_the_plugin_is_not_found(plugin):
    """Sanity of the mechanism: Debian's tc dir has no q_redopt.so, so tc
    falls back to parse_noqopt(): "Unknown qdisc ..., hence option ... is
    unparsable" (unless q_redopt.so is installed there)."""
    if os.path.exists("/usr/lib/x86_64-linux-gnu/tc/q_redopt.so"):
        pytest.skip("q_redopt.so is installed system-wide")
    env = {k: v for k, v in os.environ.items() if k != "TC_LIB_DIR"}
    p = subprocess.run([TC, *add("help")], env=env, capture_output=True, text=True, timeout=30)
    assert p.returncode != 0
    assert "hence option \"help\" is unparsable" in p.stderr


# ---- parse errors: exit 1, usage, nothing sent --------------------------------

VALUED = ["bandwidth", "rtt", "flows", "ssthresh", "window", "min", "probability",
          "ewma", "avpkt", "loss-rate"]


@pytest.mark.parametrize("key", VALUED)
def test_keyword_without_value(run, key):
    rc, _out, err, sent = run(*add(*BASE, key))
    assert rc == 1
    assert f'Illegal "{key}": missing value' in err
    assert "Usage: ... redopt" in err
    assert not sent


BAD_VALUES = [
    ("bandwidth", "foo"), ("bandwidth", "0"), ("bandwidth", "0mbit"), ("bandwidth", "-1mbit"),
    ("bandwidth", "1.5xbit"), ("bandwidth", "nan"), ("bandwidth", "1e30tbit"),
    ("bandwidth", "101gbit"), ("bandwidth", "1e11tbit"), ("bandwidth", "12.5GBps1"),
    ("rtt", "0"), ("rtt", "0ms"), ("rtt", "-5ms"), ("rtt", "5parsecs"), ("rtt", "abc"),
    ("rtt", "11s"), ("rtt", "1e30s"), ("rtt", "10001ms"),
    ("flows", "0"), ("flows", str(MAX_FLOWS + 1)), ("flows", "two"), ("flows", "-1"),
    ("flows", "1.5"),
    ("ssthresh", "0"), ("ssthresh", "15,,15"), ("ssthresh", "15,"), ("ssthresh", ",15"),
    ("ssthresh", "a"), ("ssthresh", "15;16"), ("ssthresh", "-15"), ("ssthresh", "15,0"),
    ("ssthresh", "1000001"),
    ("window", "0"), ("window", "x"), ("window", "-3"), ("window", "10000001"),
    ("min", "0"), ("min", "5.5"), ("min", "five"), ("min", "1000001"),
    ("probability", "0"), ("probability", "1.5"), ("probability", "-0.1"),
    ("probability", "nan"), ("probability", "0.1x"), ("probability", "1e-9"),
    ("ewma", "0"), ("ewma", "1"), ("ewma", "1.5"), ("ewma", "abc"), ("ewma", "-0.002"),
    ("ewma", "0.0000004"),
    ("avpkt", "0"), ("avpkt", "63"), ("avpkt", "65536"), ("avpkt", "big"), ("avpkt", "-1000"),
    ("avpkt", "1e30kb"), ("avpkt", "1gb"), ("avpkt", "5e9e95"), ("rtt", "1e9e95s"),
    ("bandwidth", "1e9e95bit"),
    ("loss-rate", "0"), ("loss-rate", "0.0"), ("loss-rate", "0.0004"), ("loss-rate", "-1"),
    ("loss-rate", "abc"), ("loss-rate", "1e3"), ("loss-rate", "."), ("loss-rate", "1.2.3"),
    ("loss-rate", "0,5"), ("loss-rate", "nan"), ("loss-rate", "inf"), ("loss-rate", "0x10"),
    ("loss-rate", "+1"), ("loss-rate", " 1"), ("loss-rate", "1/s"), ("loss-rate", ""),
    ("loss-rate", "4294967.296"), ("loss-rate", "4294967.2955"), ("loss-rate", "4294968"),
    ("loss-rate", "99999999999999999999999"),
]


@pytest.mark.parametrize("key,value", BAD_VALUES, ids=[f"{k}={v}" for k, v in BAD_VALUES])
def test_illegal_value(run, key, value):
    opts = list(BASE)
    if key in opts:
        i = opts.index(key)
        opts[i + 1] = value
    else:
        opts += [key, value]
    rc, _out, err, sent = run(*add(*opts))
    assert rc == 1, err
    assert f'Illegal "{key}"' in err
    assert "Usage: ... redopt" in err
    assert not sent


@pytest.mark.parametrize("key,value,attr,expect", [
    ("bandwidth", "100gbit", "TCA_REDOPT_BANDWIDTH", 10**11),
    ("bandwidth", "12.5GBps", "TCA_REDOPT_BANDWIDTH", 10**11),
    ("bandwidth", "1kbit", "TCA_REDOPT_BANDWIDTH", 1000),
    ("rtt", "10s", "TCA_REDOPT_RTT", 10**7),
    ("rtt", "1.5ms", "TCA_REDOPT_RTT", 1500),
    ("rtt", "250us", "TCA_REDOPT_RTT", 250),
    ("avpkt", "64", "TCA_REDOPT_AVPKT", 64),
    ("avpkt", "1kb", "TCA_REDOPT_AVPKT", 1024),
    ("avpkt", "65535", "TCA_REDOPT_AVPKT", 65535),
    # loss-rate: events/s in 1/1000, exact, half up (specctl's parse_fixed)
    ("loss-rate", "0.001", "TCA_REDOPT_LOSS_RATE", 1),
    ("loss-rate", "0.0005", "TCA_REDOPT_LOSS_RATE", 1),
    ("loss-rate", "0.5", "TCA_REDOPT_LOSS_RATE", 500),
    ("loss-rate", ".5", "TCA_REDOPT_LOSS_RATE", 500),
    ("loss-rate", "7.", "TCA_REDOPT_LOSS_RATE", 7000),
    ("loss-rate", "0010", "TCA_REDOPT_LOSS_RATE", 10000),
    ("loss-rate", "12.3456", "TCA_REDOPT_LOSS_RATE", 12346),
    ("loss-rate", "12.3454999", "TCA_REDOPT_LOSS_RATE", 12345),
    ("loss-rate", "1000", "TCA_REDOPT_LOSS_RATE", 1000000),
    ("loss-rate", "4294967.295", "TCA_REDOPT_LOSS_RATE", U32_MAX),
    ("loss-rate", "4294967.2954", "TCA_REDOPT_LOSS_RATE", U32_MAX),
])
def test_value_edges(run, key, value, attr, expect):
    opts = list(BASE)
    if key in opts:
        opts[opts.index(key) + 1] = value
    else:
        opts += [key, value]
    rc, _out, err, sent = run(*add(*opts))
    need_shim(sent)
    assert "Illegal" not in err, err
    v = options(sent[0])[attr]
    assert (u64(v) if len(v) == 8 else u32(v)) == expect


def test_illegal_value_on_change_too(run):
    rc, _out, err, sent = run(*change("min", "0"))
    assert rc == 1 and 'Illegal "min"' in err and not sent


@pytest.mark.parametrize("word", ["limit", "max", "burst", "hard-drop", "ecnn", "15"])
def test_unknown_keyword(run, word):
    rc, _out, err, sent = run(*add(*BASE, word))
    assert rc == 1
    assert f'What is "{word}"?' in err
    assert "Usage: ... redopt" in err
    assert not sent


@pytest.mark.parametrize("key,value", [("bandwidth", "2mbit"), ("rtt", "10ms"), ("flows", "3"),
                                       ("ssthresh", "20"), ("min", "6"),
                                       ("probability", "0.2"), ("loss-rate", "2")])
def test_duplicate(run, key, value):
    extra = ["loss-rate", "1"] if key == "loss-rate" else []
    rc, _out, err, sent = run(*add(*BASE, *extra, key, value))
    assert rc == 1
    assert f'duplicate "{key}": "{value}" is the second value' in err
    assert not sent


REQUIRED = ["bandwidth", "rtt", "ssthresh", "min", "probability"]


@pytest.mark.parametrize("verb", ["add", "replace"])
@pytest.mark.parametrize("key", REQUIRED)
def test_required_parameter_missing(run, verb, key):
    opts = list(BASE)
    i = opts.index(key)
    del opts[i:i + 2]
    rc, _out, err, sent = run("qdisc", verb, "dev", "lo", "root", "redopt", *opts)
    assert rc == 1
    assert f'Required parameter "{key}" is missing' in err
    for other in set(REQUIRED) - {key}:
        assert f'"{other}" is missing' not in err
    assert not sent


def test_all_required_missing_are_named(run):
    rc, _out, err, sent = run(*add("ecn"))
    assert rc == 1
    for key in REQUIRED:
        assert f'Required parameter "{key}" is missing' in err
    assert not sent


@pytest.mark.parametrize("opts,msg", [
    (["flows", "2", "ssthresh", "15,15,20"], 'Illegal "ssthresh"'),
    (["flows", "auto", "ssthresh", "15,15"], 'Illegal "ssthresh"'),
    (["flows", "auto", "noadaptive"], 'Illegal "noadaptive"'),
])
def test_inconsistent(run, opts, msg):
    base = list(BASE)
    for k in ("flows", "ssthresh"):
        i = base.index(k)
        del base[i:i + 2]
    rc, _out, err, sent = run(*add(*base, *opts))
    assert rc == 1 and msg in err and not sent


def test_model_check_on_add(run):
    """redopt_check_params() of red_model.h, the kernel's check, runs on add:
    min 5000 with Wlog 20 gives max_th << Wlog beyond 32 bits (red.h)."""
    opts = list(BASE)
    opts[opts.index("min") + 1] = "5000"
    rc, _out, err, sent = run(*add(*opts, "ewma", "0.000001"))
    assert rc == 1
    assert "REDOPT: invalid parameters: max_th << Wlog exceeds 32 bits" in err
    assert not sent


def test_inconsistent_on_change(run):
    rc, _out, err, sent = run(*change("flows", "3", "ssthresh", "15,15"))
    assert rc == 1 and 'Illegal "ssthresh"' in err and not sent


def test_too_many_ssthresh_values(run):
    rc, _out, err, sent = run(*add("bandwidth", "1mbit", "rtt", "10ms", "min", "5",
                                   "probability", "0.1", "ssthresh",
                                   ",".join(["10"] * (MAX_FLOWS + 1))))
    assert rc == 1 and 'Illegal "ssthresh"' in err and not sent


def test_illegal_loss_rate_on_change_too(run):
    rc, _out, err, sent = run(*change("loss-rate", "0"))
    assert rc == 1 and 'Illegal "loss-rate"' in err and "Usage: ... redopt" in err
    assert not sent


# ---- what good command lines send --------------------------------------------

def need_shim(sent):
    if sent is None:
        pytest.skip("no C compiler for the netlink shim")


def test_add_sends_the_model_inputs(run):
    rc, _out, err, sent = run(*add(*BASE, "window", "38", "ewma", "0.002", "avpkt", "1000",
                                   "loss-rate", "0.5", "ecn", "adaptive"))
    need_shim(sent)
    assert rc == 2 and "Cannot talk to rtnetlink" in err, err    # refused by the shim
    assert "Illegal" not in err and "What is" not in err
    assert len(sent) == 1
    m = sent[0]
    assert m["type"] == RTM_NEWQDISC
    assert m["flags"] & (NLM_F_CREATE | NLM_F_EXCL) == NLM_F_CREATE | NLM_F_EXCL
    assert m["parent"] == TC_H_ROOT and m["ifindex"] == 1
    assert m["attrs"][TCA_KIND][1] == b"redopt\0"
    o = options(m)
    assert u64(o["TCA_REDOPT_BANDWIDTH"]) == 1500000            # bit/s
    assert u32(o["TCA_REDOPT_RTT"]) == 59000                    # us
    assert u32(o["TCA_REDOPT_FLOWS"]) == 2
    assert o["TCA_REDOPT_SSTHRESH"] == P32(15)
    assert u32(o["TCA_REDOPT_WINDOW"]) == 38
    assert u32(o["TCA_REDOPT_MIN"]) == 5
    assert u32(o["TCA_REDOPT_MAX_P"]) == round(0.1 * 2**32)
    assert u8(o["TCA_REDOPT_WLOG"]) == 9                        # 0.002 -> 2^-9
    assert u32(o["TCA_REDOPT_AVPKT"]) == 1000
    assert u32(o["TCA_REDOPT_FLAGS"]) == ECN | ADAPTIVE
    assert u32(o["TCA_REDOPT_LOSS_RATE"]) == 500                # 1/1000 event/s
    # every input, nothing else (no idle table, nothing computed: options())
    assert set(o) == INPUTS


def test_add_defaults(run):
    """avpkt 1000 and Wlog 9 are sent; window 0 (the qdisc derives it) and
    loss rate 0 (none), so that a replace resets a window or loss rate
    given before; flags always sent on add (0 here). Every input, nothing
    else."""
    rc, _out, err, sent = run(*add(*BASE))
    need_shim(sent)
    o = options(sent[0])
    assert u32(o["TCA_REDOPT_AVPKT"]) == 1000
    assert u8(o["TCA_REDOPT_WLOG"]) == 9
    assert u32(o["TCA_REDOPT_WINDOW"]) == 0
    assert u32(o["TCA_REDOPT_LOSS_RATE"]) == 0
    assert u32(o["TCA_REDOPT_FLAGS"]) == 0
    assert set(o) == INPUTS


def test_no_idle_table_at_any_rate(run):
    """The former STAB inputs at their extremes: nothing derived is sent."""
    for bw, avpkt, ewma in (("10gbit", "1500", "0.01"), ("1kbit", "65535", "0.000001"),
                            ("100gbit", "64", "0.9")):
        rc, _out, err, sent = run(*add("bandwidth", bw, "rtt", "1ms", "flows", "2",
                                       "ssthresh", "15", "min", "5", "probability", "0.1",
                                       "avpkt", avpkt, "ewma", ewma))
        need_shim(sent)
        assert "Illegal" not in err, err
        assert set(options(sent[0])) == INPUTS, (bw, avpkt, ewma)


def test_flows_auto_is_adaptive(run):
    opts = list(BASE)
    opts[opts.index("flows") + 1] = "auto"
    rc, _out, err, sent = run(*add(*opts, "ecn"))
    need_shim(sent)
    o = options(sent[0])
    assert u32(o["TCA_REDOPT_FLOWS"]) == 0
    assert u32(o["TCA_REDOPT_FLAGS"]) == ECN | ADAPTIVE


def test_flows_default(run):
    """Without flows: the number of ssthresh values if more than one, else
    auto (0, adaptive)."""
    rc, _out, err, sent = run(*add("bandwidth", "1.5mbit", "rtt", "59ms", "ssthresh", "15,15,20",
                                   "min", "5", "probability", "0.1"))
    need_shim(sent)
    o = options(sent[0])
    assert u32(o["TCA_REDOPT_FLOWS"]) == 3
    assert o["TCA_REDOPT_SSTHRESH"] == P32(15) + P32(15) + P32(20)
    assert u32(o["TCA_REDOPT_FLAGS"]) == 0
    rc, _out, err, sent = run(*add("bandwidth", "1.5mbit", "rtt", "59ms", "ssthresh", "15",
                                   "min", "5", "probability", "0.1"))
    o = options(sent[0])
    assert u32(o["TCA_REDOPT_FLOWS"]) == 0
    assert u32(o["TCA_REDOPT_FLAGS"]) == ADAPTIVE


def test_ssthresh_list(run):
    opts = list(BASE)
    opts[opts.index("flows") + 1] = "3"
    opts[opts.index("ssthresh") + 1] = "15,15,20"
    rc, _out, err, sent = run(*add(*opts))
    need_shim(sent)
    assert options(sent[0])["TCA_REDOPT_SSTHRESH"] == P32(15) + P32(15) + P32(20)


def test_max_flows_ssthresh_list(run):
    rc, _out, err, sent = run(*add("bandwidth", "100mbit", "rtt", "10ms", "min", "5",
                                   "probability", "0.1", "flows", str(MAX_FLOWS), "ssthresh",
                                   ",".join(str(10 + i % 7) for i in range(MAX_FLOWS))))
    need_shim(sent)
    assert "Illegal" not in err
    ss = options(sent[0])["TCA_REDOPT_SSTHRESH"]
    assert len(ss) == 4 * MAX_FLOWS and u32(ss[-4:]) == 10 + (MAX_FLOWS - 1) % 7


@pytest.mark.parametrize("p,expect", [("1", 0xFFFFFFFF), ("0.5", 2**31), ("0.02", round(0.02 * 2**32)),
                                      ("0.000001", round(2**32 / 1e6))])
def test_probability_scaling(run, p, expect):
    opts = list(BASE)
    opts[opts.index("probability") + 1] = p
    rc, _out, err, sent = run(*add(*opts))
    need_shim(sent)
    assert u32(options(sent[0])["TCA_REDOPT_MAX_P"]) == expect


@pytest.mark.parametrize("w,wlog", [("0.9", 1), ("0.5", 1), ("0.002", 9), ("0.001", 10),
                                    ("0.00195", 9), ("0.000001", 20)])
def test_ewma_to_wlog(run, w, wlog):
    rc, _out, err, sent = run(*add(*BASE, "ewma", w))
    need_shim(sent)
    assert u8(options(sent[0])["TCA_REDOPT_WLOG"]) == wlog


def test_replace_is_a_create(run):
    rc, _out, err, sent = run("qdisc", "replace", "dev", "lo", "root", "redopt", *BASE)
    need_shim(sent)
    m = sent[0]
    assert m["flags"] & (NLM_F_CREATE | NLM_F_REPLACE) == NLM_F_CREATE | NLM_F_REPLACE
    o = options(m)
    assert set(o) == INPUTS
    assert u32(o["TCA_REDOPT_WINDOW"]) == 0 and u32(o["TCA_REDOPT_LOSS_RATE"]) == 0


def test_change_sends_only_what_is_given(run):
    rc, _out, err, sent = run(*change("min", "6"))
    need_shim(sent)
    m = sent[0]
    assert m["type"] == RTM_NEWQDISC and not m["flags"] & NLM_F_CREATE
    assert list(options(m)) == ["TCA_REDOPT_MIN"]
    assert u32(options(m)["TCA_REDOPT_MIN"]) == 6


def test_change_flags_word(run):
    rc, _out, err, sent = run(*change("ecn"))
    need_shim(sent)
    assert {k: u32(v) for k, v in options(sent[0]).items()} == {"TCA_REDOPT_FLAGS": ECN}
    rc, _out, err, sent = run(*change("noecn"))
    assert {k: u32(v) for k, v in options(sent[0]).items()} == {"TCA_REDOPT_FLAGS": 0}
    rc, _out, err, sent = run(*change("flows", "auto"))
    assert {k: u32(v) for k, v in options(sent[0]).items()} == {"TCA_REDOPT_FLOWS": 0}
    rc, _out, err, sent = run(*change("ecn", "harddrop"))
    assert {k: u32(v) for k, v in options(sent[0]).items()} == {"TCA_REDOPT_FLAGS":
                                                                ECN | HARDDROP}
    rc, _out, err, sent = run(*change("harddrop", "noharddrop"))
    assert {k: u32(v) for k, v in options(sent[0]).items()} == {"TCA_REDOPT_FLAGS": 0}


@pytest.mark.parametrize("given,expect", [
    (["bandwidth", "10mbit"], {"TCA_REDOPT_BANDWIDTH": 10**7}),
    (["ewma", "0.004"], {"TCA_REDOPT_WLOG": 8}),
    (["avpkt", "1500"], {"TCA_REDOPT_AVPKT": 1500}),
    (["loss-rate", "2.5"], {"TCA_REDOPT_LOSS_RATE": 2500}),
    (["bandwidth", "10mbit", "avpkt", "1500"],
     {"TCA_REDOPT_BANDWIDTH": 10**7, "TCA_REDOPT_AVPKT": 1500}),
    (["bandwidth", "10mbit", "ewma", "0.004", "avpkt", "1500"],
     {"TCA_REDOPT_BANDWIDTH": 10**7, "TCA_REDOPT_WLOG": 8, "TCA_REDOPT_AVPKT": 1500}),
], ids=["bandwidth", "ewma", "avpkt", "loss-rate", "bandwidth+avpkt", "all-three"])
def test_change_sends_any_subset(run, given, expect):
    """redopt keeps no idle table: a change of bandwidth, ewma or avpkt alone
    is fine and sends just that (no STAB/SCELL_LOG, checked by options())."""
    rc, _out, err, sent = run(*change(*given))
    need_shim(sent)
    assert rc == 2 and "Cannot talk to rtnetlink" in err, err
    assert len(sent) == 1 and not sent[0]["flags"] & NLM_F_CREATE
    o = options(sent[0])
    got = {k: (u64(v) if len(v) == 8 else u8(v) if len(v) == 1 else u32(v)) for k, v in o.items()}
    assert got == expect


def test_del_sends_no_options(run):
    rc, _out, err, sent = run("qdisc", "del", "dev", "lo", "root", "redopt")
    need_shim(sent)
    assert len(sent) == 1 and sent[0]["type"] == RTM_DELQDISC
    assert TCA_OPTIONS not in sent[0]["attrs"]


def _netns_prefix():
    """A command prefix that runs tc in a throw-away network namespace."""
    if not shutil.which("unshare"):
        return None
    for pre in (["unshare", "-n"], ["unshare", "-rn"]):
        if subprocess.run([*pre, "true"], capture_output=True, timeout=30).returncode == 0:
            return pre
    return None


def test_good_command_reaches_the_kernel(plugin):
    """No shim: the kernel answers, in a throw-away netns (so a kernel that
    has sch_redopt changes nothing that outlives the test). On a host
    without module support tc exits 2 with the kernel's error; never 1 with a
    parse error."""
    pre = _netns_prefix()
    if pre is None:
        if os.path.exists("/proc/modules"):
            pytest.skip("no network namespace, and this kernel could load sch_redopt")
        pre = []
    env = dict(os.environ, TC_LIB_DIR=plugin, LC_ALL="C")
    env.pop("LD_PRELOAD", None)
    p = subprocess.run([*pre, TC, *add(*BASE)], env=env, capture_output=True, text=True,
                       timeout=30)
    assert "Illegal" not in p.stderr and "What is" not in p.stderr, p.stderr
    assert p.returncode in (0, 2), p.stderr
    if p.returncode == 2:
        assert re.search(r"Specified qdisc kind is unknown|Unknown qdisc"
                         r"|Operation not permitted", p.stderr), p.stderr


# ---- dump and xstats printers --------------------------------------------------
# The shim answers tc's RTM_GETQDISC with a message built here, as
# sch_redopt's redopt_dump()/redopt_dump_stats() send it: inputs, then the
# computed values (BUFFER, LIMIT, QTH_MIN, QTH_MAX, QMAX, FLOWS_EST, and
# M_BOUND only when a loss rate is set), xstats in TCA_STATS_APP.

def dump_opts(**over):
    """The paper's example with loss-rate 12.5: L 19, limit 19, max_th 8,
    Qmax 7.30, alpha = 11.0625 * 12.5 * 0.059 / 2 = 4.08 -> m_bound 4."""
    o = {
        "TCA_REDOPT_BANDWIDTH": struct.pack("=Q", 1500000),
        "TCA_REDOPT_RTT": P32(59000),
        "TCA_REDOPT_FLOWS": P32(2),
        "TCA_REDOPT_SSTHRESH": P32(15),
        "TCA_REDOPT_WINDOW": P32(38),
        "TCA_REDOPT_MIN": P32(5),
        "TCA_REDOPT_MAX_P": P32(round(0.1 * 2**32)),
        "TCA_REDOPT_WLOG": bytes([9]),
        "TCA_REDOPT_AVPKT": P32(1000),
        "TCA_REDOPT_FLAGS": P32(ECN | ADAPTIVE),
        "TCA_REDOPT_LOSS_RATE": P32(12500),
        "TCA_REDOPT_BUFFER": P32(19),
        "TCA_REDOPT_LIMIT": P32(19),
        "TCA_REDOPT_QTH_MIN": P32(5),
        "TCA_REDOPT_QTH_MAX": P32(8),
        "TCA_REDOPT_QMAX": P32(7300),
        "TCA_REDOPT_FLOWS_EST": P32(2),
        "TCA_REDOPT_M_BOUND": P32(4),
    }
    o.update(over)
    return {k: v for k, v in o.items() if v is not None}


NO_LOSS_RATE = dict(TCA_REDOPT_LOSS_RATE=None, TCA_REDOPT_M_BOUND=None)

INPUTS_TEXT = ("bandwidth 1500Kbit rtt 59ms flows 2 ssthresh 15 min 5 probability 0.1 "
               "window 38 ewma 0.00195 avpkt 1000")
COMPUTED_TEXT = "buffer 19p limit 19p qth_min 5p qth_max 8p qavg_max 7.30"

XSTATS = dict(marked=12, early=3, forced=1, overflow=0, flows_est=2, qth_min=5, qth_max=8,
              limit=19, qavg=7250, recomputes=4, forced_mark=6)
XSTATS_TEXT = ("marked 12 early 3 forced 1 forced_mark 6 overflow 0 flows_est 2 qavg 7.250 "
               "recomputes 4")


def xstats_bytes(**over):
    v = dict(XSTATS, **over)
    return b"".join(P32(v[f]) for f in XFIELDS)


def show(run, *flags, opts=None, xstats=None):
    rc, out, err, _ = run(*flags, "qdisc", "show",
                          dump=qdisc_msg(dump_opts() if opts is None else opts, xstats))
    assert rc == 0, err
    return out


def show_json(run, *flags, opts=None, xstats=None):
    out = show(run, "-j", *flags, opts=opts, xstats=xstats)
    q = json.loads(out)         # valid JSON, whatever the flags
    assert len(q) == 1 and q[0]["kind"] == "redopt"
    return q[0], out


def test_dump_text(run):
    """Inputs (loss-rate among them), then buffer before limit, and with a
    loss rate the bound on m in the normal output."""
    out = show(run)
    assert (f"qdisc redopt 8001: dev lo root {INPUTS_TEXT} loss-rate 12.5 ecn adaptive "
            f"{COMPUTED_TEXT} m_bound 4 ") in out, out
    assert "Wlog" not in out and "Scell_log" not in out


def test_dump_text_without_loss_rate(run):
    out = show(run, opts=dump_opts(**NO_LOSS_RATE))
    assert f"{INPUTS_TEXT} ecn adaptive {COMPUTED_TEXT}" in out, out
    assert "loss-rate" not in out and "m_bound" not in out


def test_dump_loss_rate_zero_is_not_printed(run):
    """0 is "none" (the kernel does not send it; the printer agrees)."""
    out = show(run, opts=dump_opts(TCA_REDOPT_LOSS_RATE=P32(0), TCA_REDOPT_M_BOUND=None))
    assert "loss-rate" not in out and "avpkt 1000 ecn adaptive buffer 19p" in out, out
    q, _ = show_json(run, opts=dump_opts(TCA_REDOPT_LOSS_RATE=P32(0), TCA_REDOPT_M_BOUND=None))
    assert "loss_rate" not in q["options"]


@pytest.mark.parametrize("milli,text", [(1, "0.001"), (10, "0.01"), (500, "0.5"), (1000, "1"),
                                        (12345, "12.345"), (1000000, "1000"),
                                        (U32_MAX, "4294967.295")])
def test_dump_loss_rate_digits(run, milli, text):
    """Exact in text and JSON (events/s as a JSON number, all the digits)."""
    out = show(run, opts=dump_opts(TCA_REDOPT_LOSS_RATE=P32(milli)))
    assert f" avpkt 1000 loss-rate {text} ecn " in out, out
    q, raw = show_json(run, opts=dump_opts(TCA_REDOPT_LOSS_RATE=P32(milli)))
    assert f'"loss_rate":{text},' in raw, raw
    assert q["options"]["loss_rate"] == milli / 1000


def test_dump_details(run):
    """-d: Wlog; the bound as in the normal output, or n/a without a loss
    rate; m_bound 0 (alpha < 1) is a bound, not n/a."""
    out = show(run, "-d")
    assert f"{COMPUTED_TEXT} m_bound 4 Wlog 9" in out, out
    assert "Scell_log" not in out
    out = show(run, "-d", opts=dump_opts(**NO_LOSS_RATE))
    assert f"{COMPUTED_TEXT} Wlog 9 m_bound n/a" in out, out
    out = show(run, "-d", opts=dump_opts(TCA_REDOPT_LOSS_RATE=P32(500),
                                         TCA_REDOPT_M_BOUND=P32(0)))
    assert f"loss-rate 0.5 ecn adaptive {COMPUTED_TEXT} m_bound 0 Wlog 9" in out, out


def test_dump_flows_auto_and_list(run):
    out = show(run, opts=dump_opts(
        TCA_REDOPT_FLOWS=P32(0), TCA_REDOPT_FLOWS_EST=P32(3),
        TCA_REDOPT_SSTHRESH=P32(15) + P32(15) + P32(20), TCA_REDOPT_FLAGS=P32(ADAPTIVE),
        TCA_REDOPT_WINDOW=None))
    assert "flows auto (est 3) ssthresh 15,15,20 min 5" in out, out
    assert " ecn " not in out and "window" not in out
    assert "avpkt 1000 loss-rate 12.5 adaptive buffer 19p limit 19p" in out, out


def test_dump_buffer_below_limit(run):
    """L and the limit in force differ when L < max_th + 1."""
    out = show(run, opts=dump_opts(TCA_REDOPT_BUFFER=P32(1), TCA_REDOPT_LIMIT=P32(9)))
    assert "buffer 1p limit 9p qth_min 5p qth_max 8p" in out, out
    q, _ = show_json(run, opts=dump_opts(TCA_REDOPT_BUFFER=P32(1), TCA_REDOPT_LIMIT=P32(9)))
    assert (q["options"]["buffer"], q["options"]["limit"]) == (1, 9)


def test_stats_text(run):
    """tc -s: inputs, computed buffer/limit/min/max, then the xstats; -d
    adds Wlog and the thresholds in force to the xstats."""
    out = show(run, "-s", xstats=xstats_bytes())
    assert (f"{INPUTS_TEXT} loss-rate 12.5 ecn adaptive {COMPUTED_TEXT} m_bound 4") in out, out
    assert XSTATS_TEXT in out, out
    assert out.index(COMPUTED_TEXT) < out.index(XSTATS_TEXT)
    assert "qth_min 5p qth_max 8p qavg_max 7.30 m_bound 4" in out
    assert f"{XSTATS_TEXT} limit" not in out
    out = show(run, "-s", "-d", xstats=xstats_bytes())
    assert f"{COMPUTED_TEXT} m_bound 4 Wlog 9" in out, out
    assert f"{XSTATS_TEXT} limit 19p qth_min 5p qth_max 8p" in out, out


def _check_json_options(o, details):
    assert o["bandwidth"] == 1500000 // 8         # tc's JSON rates are bytes/s
    assert o["rtt"] == 59000                       # us
    assert o["flows"] == 2 and o["flows_est"] == 2
    assert o["ssthresh"] == [15]
    assert o["min"] == 5 and o["window"] == 38 and o["avpkt"] == 1000
    assert o["probability"] == pytest.approx(0.1)
    assert o["ewma"] == pytest.approx(2**-9, rel=1e-5)
    assert o["loss_rate"] == 12.5 and isinstance(o["loss_rate"], float)
    assert o["ecn"] is True and o["adaptive"] is True
    assert (o["buffer"], o["limit"], o["qth_min"], o["qth_max"]) == (19, 19, 5, 8)
    assert o["qavg_max"] == pytest.approx(7.3)
    assert o["m_bound"] == 4
    assert ("Wlog" in o) == details and o.get("Wlog", 9) == 9
    assert "Scell_log" not in o


@pytest.mark.parametrize("flags", [[], ["-s"], ["-d"], ["-s", "-d"]],
                         ids=["plain", "s", "d", "s-d"])
def test_dump_json(run, flags):
    q, _ = show_json(run, *flags, xstats=xstats_bytes())
    _check_json_options(q["options"], "-d" in flags)
    if "-s" in flags:
        for k in ("marked", "early", "forced", "forced_mark", "overflow", "flows_est",
                  "recomputes"):
            assert q[k] == XSTATS[k], k
        assert q["qavg"] == pytest.approx(7.25)
        if "-d" in flags:
            assert (q["limit"], q["qth_min"], q["qth_max"]) == (19, 5, 8)
    else:
        assert "marked" not in q


def test_dump_json_without_loss_rate(run):
    """No loss rate: no loss_rate key; m_bound absent, or null with -d
    (specctl model red --json's n/a)."""
    q, _ = show_json(run, opts=dump_opts(**NO_LOSS_RATE))
    assert "loss_rate" not in q["options"] and "m_bound" not in q["options"]
    q, _ = show_json(run, "-s", "-d", opts=dump_opts(**NO_LOSS_RATE), xstats=xstats_bytes())
    assert "loss_rate" not in q["options"]
    assert "m_bound" in q["options"] and q["options"]["m_bound"] is None


def test_xstats_text(run):
    out = show(run, "-s", xstats=xstats_bytes())
    assert XSTATS_TEXT in out, out


def test_dump_json_flows_auto_and_flags_off(run):
    q, _ = show_json(run, opts=dump_opts(
        TCA_REDOPT_FLOWS=P32(0), TCA_REDOPT_FLOWS_EST=P32(5), TCA_REDOPT_FLAGS=P32(0),
        TCA_REDOPT_SSTHRESH=P32(15) + P32(16)))
    o = q["options"]
    assert o["flows"] == 0 and o["flows_est"] == 5 and o["ssthresh"] == [15, 16]
    assert o["ecn"] is False and o["adaptive"] is False


def test_round_trip(run):
    """What add sends, printed back by the dump printer; and the printed
    inputs, given to add again, send the same attributes."""
    rc, _out, err, sent = run(*add(*BASE, "window", "38", "loss-rate", "0.5", "ecn"))
    need_shim(sent)
    o = options(sent[0])
    rc, out, err, _ = run("qdisc", "show", dump=qdisc_msg(o))
    assert rc == 0, err
    assert f"{INPUTS_TEXT} loss-rate 0.5 ecn" in out, out
    words = out.split(" root ", 1)[1].split()
    rc, _out, err, again = run(*add(*words))
    assert "Illegal" not in err and "What is" not in err, err
    assert options(again[0]) == o


def test_harddrop_flag_dumped(run):
    out = show(run, opts=dump_opts(TCA_REDOPT_FLAGS=P32(ECN | HARDDROP)))
    assert " ecn harddrop buffer 19p" in out, out
    q, _ = show_json(run, opts=dump_opts(TCA_REDOPT_FLAGS=P32(ECN | HARDDROP)))
    assert q["options"]["harddrop"] is True and q["options"]["ecn"] is True
    q, _ = show_json(run, opts=dump_opts(TCA_REDOPT_FLAGS=P32(ECN)))
    assert q["options"]["harddrop"] is False


def test_xstats_of_an_older_qdisc(run):
    """A qdisc built before forced_mark sends the fields before it: printed
    without it; a shorter block than that is refused (nothing printed)."""
    old = xstats_bytes()[:4 * XFIELDS.index("forced_mark")]
    out = show(run, "-s", xstats=old)
    assert "marked 12 early 3 forced 1 overflow 0" in out and "forced_mark" not in out, out
    out = show(run, "-s", xstats=old[:-4])
    assert "marked" not in out, out
