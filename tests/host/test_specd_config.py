"""Host tests of specd's config checking (`specd -n`, and a bad config at
start: exit 2, "<file>:<line>: <reason>", nothing done) and of
`specctl status` over specd's state file. The daemon's behaviour on a real
stack is tests/integration/test_specd.py (VM)."""
import json
import os
import re
import shutil
import subprocess
import time

import pytest

TOP = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
GOOD = """\
# a comment
manage = 10.0.1.2
manage = 10.0.2.0/24
manage = 2001:db8::/64
speculative_cc = spec
legacy_cc = cubic
probe_ports = 5201, 80 443
probe_send = "HEAD / HTTP/1.0\\r\\n\\r\\n"
probe_timeout = 500ms
probe_interval = 2s
verdict_ttl = 5m
state_file = /var/lib/specnet/specd.state
route_protocol = 245
keep_routes = yes
dry_run = no
"""


def run(exe, *args, timeout=10):
    return subprocess.run([exe, *args], capture_output=True, text=True, timeout=timeout)


def write(tmp_path, text, name="specd.conf"):
    p = tmp_path / name
    p.write_text(text)
    return str(p)


def test_good_config_checks(specd, tmp_path):
    p = run(specd, "-n", "-c", write(tmp_path, GOOD))
    assert p.returncode == 0, p.stderr
    assert p.stdout.strip().endswith("OK (3 managed entries, speculative spec, legacy cubic)")


def test_shipped_example_checks(specd):
    p = run(specd, "-n", "-c", os.path.join(TOP, "userspace", "specd", "specd.conf"))
    assert p.returncode == 0, p.stderr


BAD = [
    ("bogus = 1", "unknown key 'bogus'"),
    ("manage", "expected 'key = value', got 'manage'"),
    ("manage =", "manage: empty value"),
    ("manage = 10.0.0.300", "manage: '10.0.0.300' is not an IPv4 or IPv6 address"),
    ("manage = 10.0.0.1/33", "manage: bad prefix length '33'"),
    ("manage = 10.0.0.1/24", "manage: 10.0.0.1/24 has host bits set beyond /24"),
    ("manage = 0.0.0.0/0", "manage: a /0 prefix would manage every destination"),
    ("speculative_cc = sp ec", "speculative_cc: 'sp ec' is not a congestion control name"),
    ("legacy_cc = averyveryverylongname", "legacy_cc: 'averyveryverylongname' is not a "
     "congestion control name"),
    ("probe_ports = 0", "probe_ports: 0 is outside 1..65535"),
    ("probe_ports = 70000", "probe_ports: 70000 is outside 1..65535"),
    ("probe_ports = 1 2 3 4 5 6 7 8 9", "probe_ports: more than 8 ports"),
    ("probe_ports = http", "probe_ports: 'http' is not a number"),
    ("probe_parallel = 0", "probe_parallel: 0 is outside 1..256"),
    ("probe_parallel = 257", "probe_parallel: 257 is outside 1..256"),
    ("probe_parallel = many", "probe_parallel: 'many' is not a number"),
    ("probe_max = 0", "probe_max: 0 is outside 1..1024"),
    ("probe_max = 1025", "probe_max: 1025 is outside 1..1024"),
    ("probe_timeout = 61", "probe_timeout: 61 is outside 100ms..60000ms"),
    ("probe_timeout = 50ms", "probe_timeout: 50ms is outside 100ms..60000ms"),
    ("probe_timeout = 5x", "probe_timeout: unknown unit 'x' (ms, s, m, h)"),
    ("probe_timeout = -1s", "probe_timeout: '-1s' is not a duration"),
    ("probe_interval = 99999999999999999999", "probe_interval: '99999999999999999999' is "
     "out of range"),
    ("verdict_ttl = 100ms", "verdict_ttl: 100ms is outside 1000ms..604800000ms"),
    ("probe_send = \"abc", "probe_send: unterminated quote"),
    ("probe_send = a\\qb", "probe_send: unknown escape '\\q'"),
    ("state_file = relative/path", "state_file: 'relative/path' is not an absolute path"),
    ("route_protocol = 4", "route_protocol: 4 is outside 5..255"),
    ("keep_routes = maybe", "keep_routes: 'maybe' is not yes or no"),
    ("dry_run = 2", "dry_run: '2' is not yes or no"),
]


@pytest.mark.parametrize("line,why", BAD, ids=[b[0] for b in BAD])
@pytest.mark.parametrize("check", [True, False], ids=["-n", "start"])
def test_bad_line_names_file_line_reason(specd, tmp_path, line, why, check):
    """One bad line among good ones: exit 2 with <file>:<line>: <reason>.
    Started for real (no -n, in a network namespace of its own, should it
    wrongly get going), specd must stop there, before netlink or the state
    file: nothing is written."""
    state = tmp_path / "state" / "specd.state"
    text = GOOD.replace("/var/lib/specnet/specd.state", str(state))
    lines = text.splitlines()
    lines.insert(3, line)
    path = write(tmp_path, "\n".join(lines) + "\n")
    if check:
        p = run(specd, "-n", "-c", path)
    else:
        p = run("unshare", "--net", specd, "-c", path, timeout=5)
    assert p.returncode == 2, (p.stdout, p.stderr)
    assert p.stderr.startswith(f"specd: {path}:4: {why}"), p.stderr
    assert p.stdout == ""
    assert not state.parent.exists()


@pytest.mark.parametrize("text,why", [
    ("# nothing\n", "no 'manage' entry: nothing to do"),
    ("manage = 10.0.0.1\nspeculative_cc = cubic\n",
     "speculative_cc and legacy_cc are both 'cubic'"),
    ("manage = 10.0.0.1\nprobe_interval = 10m\nverdict_ttl = 1m\n",
     "verdict_ttl (60000ms) is shorter than probe_interval (600000ms)"),
])
def test_whole_file_errors(specd, tmp_path, text, why):
    path = write(tmp_path, text)
    p = run(specd, "-n", "-c", path)
    assert p.returncode == 2
    assert p.stderr.strip() == f"specd: {path}: {why}"


def test_missing_file_and_bad_options(specd, tmp_path):
    p = run(specd, "-n", "-c", str(tmp_path / "nope.conf"))
    assert p.returncode == 2 and "nope.conf: No such file or directory" in p.stderr
    p = run(specd, "-x")
    assert p.returncode == 2 and "usage: specd" in p.stderr
    p = run(specd, "-n", "extra")
    assert p.returncode == 2 and "unexpected argument 'extra'" in p.stderr
    p = run(specd, "-h")
    assert p.returncode == 0 and "usage: specd" in p.stdout


def test_config_writable_by_others_refused(specd, tmp_path):
    """A config anybody may write names routes and peers for a daemon with
    CAP_NET_ADMIN: refused, with its mode; group-writable is the admin's
    choice."""
    path = write(tmp_path, GOOD)
    os.chmod(path, 0o646)
    p = run(specd, "-n", "-c", path)
    assert p.returncode == 2 and f"{path}: writable by others (mode 0646): refused" in p.stderr, \
        p.stderr
    os.chmod(path, 0o664)
    p = run(specd, "-n", "-c", path)
    assert p.returncode == 0, p.stderr


# ---- specctl status -----------------------------------------------------

STATE = """\
specd-state 1
pid {pid}
written {now}
conf /etc/specnet/specd.conf
dest 10.0.1.2 capable {since} {exp} 1 254 spec 1
evidence probe port 5201: ECN accepted, ECT seen in the peer's 1 data segments
note \n\
dest 10.0.3.2 incapable {since} {exp} 1 254 cubic 0
evidence probe port 5201: the peer did not accept ECN
note \n\
dest 10.0.9.9 incapable {since} {exp} 0 0 - 0
evidence probe failed: port 5201: No route to host
note route 10.0.9.9/32 is of protocol 4, not installed by specd: left alone
"""


@pytest.fixture
def fake_specd(tmp_path):
    """a live process whose command name is specd (a copy of sleep)"""
    exe = tmp_path / "specd"
    shutil.copy(shutil.which("sleep"), exe)
    p = subprocess.Popen([str(exe), "60"])
    yield p.pid
    p.kill()
    p.wait()


def state_file(tmp_path, pid):
    now = int(time.time())
    p = tmp_path / "specd.state"
    p.write_text(STATE.format(pid=pid, now=now - 2, since=now - 30, exp=now + 570))
    return str(p)


def aged(line):
    """The words of a status row, its AGE (third word) read as "30s" when
    it is 29-32 s: the state file's times come from this process's clock
    (time.time()), specctl's "now" from time(2), which reads the kernel's
    coarse clock and may lag by a tick (29 s right after a second began),
    and a slow run may cross a second or two."""
    w = line.split()
    if len(w) > 2 and re.fullmatch(r"(29|3[0-2])s", w[2]):
        w[2] = "30s"
    return w


def test_status_running(specctl, tmp_path, fake_specd):
    st = state_file(tmp_path, fake_specd)
    p = run(specctl, "status", "--state", st)
    assert p.returncode == 0, p.stderr
    out = p.stdout.splitlines()
    assert out[0].startswith(f"specd running (pid {fake_specd}), state written ")
    assert out[1].split() == ["DESTINATION", "VERDICT", "AGE", "EXPIRES", "CC", "ECN",
                              "ROUTE", "EVIDENCE"]
    rows = [aged(line) for line in out[2:5]]
    assert rows[0][:8] == ["10.0.1.2", "capable", "30s", "in", "9m", "spec", "yes", "yes"]
    assert rows[1][:7] == ["10.0.3.2", "incapable", "30s", "in", "9m", "cubic", "no"]
    assert rows[2][:7] == ["10.0.9.9", "incapable", "30s", "in", "9m", "-", "no"]
    assert "note: route 10.0.9.9/32 is of protocol 4" in out[5]

    j = json.loads(run(specctl, "status", "--state", st, "--json").stdout)
    assert j["running"] and j["pid"] == fake_specd
    d = {x["destination"]: x for x in j["destinations"]}
    # the times as aged() reads them: 29-32 s old, 568-571 s to go
    assert 29 <= d["10.0.1.2"].pop("age_s") <= 32
    assert 568 <= d["10.0.1.2"].pop("expires_in_s") <= 571
    assert d["10.0.1.2"] == {"destination": "10.0.1.2", "verdict": "capable",
                             "evidence": "probe port 5201: ECN accepted, ECT seen in the "
                             "peer's 1 data segments",
                             "cc": "spec", "ecn": True, "route": True, "table": 254,
                             "note": ""}
    assert d["10.0.9.9"]["cc"] is None and not d["10.0.9.9"]["route"]


def test_status_not_running(specctl, tmp_path):
    p = run(specctl, "status", "--state", str(tmp_path / "none"))
    assert p.returncode == 3
    assert p.stderr.startswith("specctl: specd is not running (no state file ")
    # a state file left by a dead specd: said, and the last state shown
    dead = subprocess.Popen(["true"])
    dead.wait()
    st = state_file(tmp_path, dead.pid)
    p = run(specctl, "status", "--state", st)
    assert p.returncode == 3
    assert f"specd is not running (pid {dead.pid} of {st} is gone)" in p.stderr
    assert p.stdout.startswith("specd NOT running; last state")
    j = json.loads(run(specctl, "status", "--state", st, "--json").stdout)
    assert j["running"] is False and len(j["destinations"]) == 3


def test_status_bad_input(specctl, tmp_path):
    bad = tmp_path / "bad.state"
    bad.write_text("something else\n")
    p = run(specctl, "status", "--state", str(bad))
    assert p.returncode == 2 and f"{bad}:1: not a specd state file" in p.stderr
    p = run(specctl, "status", "--bogus")
    assert p.returncode == 2 and "unknown option '--bogus'" in p.stderr
    p = run(specctl, "status", "-c", str(tmp_path / "x.conf"), "--state", str(bad))
    assert p.returncode == 2 and "give -c or --state, not both" in p.stderr
    # the state file named by a config
    conf = tmp_path / "specd.conf"
    conf.write_text(f"manage = 10.0.1.2\nstate_file = {tmp_path}/nothing.state\n")
    p = run(specctl, "status", "-c", str(conf))
    assert p.returncode == 3 and f"{tmp_path}/nothing.state" in p.stderr
