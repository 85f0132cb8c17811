"""specd under route churn and faults (make stress).

The bed of tests/integration/test_specd.py (a sender with three receivers
behind a router: a capable, b and c legacy), plus two managed destinations
that never answer a probe: U, an address past the router that nobody holds
(its probes go unanswered), and R, the router itself (its probe port
refuses). While other routes of the sender's table are added and deleted
at ROUTE_CHANGES a minute, specd must:
* give U and R the legacy control (no port answers: incapable);
* follow a peer that goes silent in the middle of its probes (a's link
  drops every packet for a while): legacy while silent, capable again
  after;
* survive KILLS kill -9 at random points: the routes it installed stay in
  the kernel, and the next specd adopts them (none lost, none doubled);
* refuse a bad config on reload and keep the running one;
* on SIGTERM withdraw every route it owns, and leave every other route as
  it was.
"""
import random
import signal
import threading
import time

from specnet_bench import specnet_lab as lab
import stresslib

_sd = stresslib.load("specnet_test_specd", "../integration/test_specd.py")
rt_protos = _sd.rt_protos
sd = _sd.sd

CHURN_SECONDS = 240
ROUTE_CHANGES = 1000        # additions a minute, and as many deletions
KILLS = 5


class Churn(threading.Thread):
    """Adds host routes 10.77.x.y/32 (proto static) on the sender and
    deletes them at the next round, ROUTE_CHANGES a minute each way, until
    stopped; then deletes what is left. A round adds what the rate owes
    since the start, so a round that takes more than a second (an `ip
    -batch` in a debug guest: 1156 routes in 4 minutes at a fixed 17 a
    round) makes its next one larger."""

    def __init__(self, ns, gw):
        super().__init__(daemon=True)
        self.ns, self.gw = ns, gw
        self.stop = threading.Event()
        self.added = self.deleted = 0
        self.error = None

    def run(self):
        live, n = [], 0
        start = time.monotonic()
        try:
            while not self.stop.is_set():
                t0 = time.monotonic()
                due = int((t0 - start + 1) * ROUTE_CHANGES / 60) - n
                new = [f"10.77.{(n + i) // 250 % 250}.{(n + i) % 250 + 1}" for i in range(due)]
                n += due
                cmds = [f"route add {d}/32 via {self.gw} proto static" for d in new]
                cmds += [f"route del {d}/32 proto static" for d in live]
                self._batch(cmds)
                self.added += len(new)
                self.deleted += len(live)
                live = new
                self.stop.wait(max(0.0, 1.0 - (time.monotonic() - t0)))
            self._batch([f"route del {d}/32 proto static" for d in live])
            self.deleted += len(live)
        except Exception as e:      # noqa: BLE001 -- reported by the test
            self.error = f"{type(e).__name__}: {e}"

    def _batch(self, cmds):
        path = f"/tmp/{self.ns}-churn.batch"
        with open(path, "w") as f:
            f.write("\n".join(cmds) + "\n")
        lab.sh(f"ip -batch {path}", ns=self.ns, timeout=60)


def test_specd_churn_faults_kill9(sd, figure):
    n = sd.net
    u = f"10.{n.base}.8.8"                  # past the router, nobody holds it
    r = n.addr("rtr", "snd")                # the router: its port 5201 refuses
    a, b, c = sd.ip("a"), sd.ip("b"), sd.ip("c")
    manage = [a, b, c, u, r]
    legacy = ("cubic", False)
    want = {a: ("spec", True), b: legacy, c: legacy, u: legacy, r: legacy}
    sd.start(manage=manage, verdict_ttl="4s", keep_routes="no")
    sd.want(want, timeout=60)
    rng = random.Random(7)
    seconds = stresslib.scaled(CHURN_SECONDS)
    churn = Churn(sd.ns, n.addr("rtr", "snd"))
    churn.start()
    t_end = time.monotonic() + seconds
    kills = 0
    try:
        # a peer that goes silent in the middle of its probes, and back
        lab.sh(f"tc qdisc add dev {n.ifname('rtr', 'a')} root netem loss 100%", ns=n.ns("rtr"))
        try:
            sd.want({**want, a: legacy}, timeout=60)
        finally:
            lab.sh(f"tc qdisc del dev {n.ifname('rtr', 'a')} root", ns=n.ns("rtr"))
        sd.want(want, timeout=60)

        # kill -9 at random points of the probing; the next specd adopts
        for k in range(KILLS):
            time.sleep(rng.uniform(0.2, 3.0))
            # stopped first, so that the routes read are those it dies
            # with (a probe under way changes a route between a read and
            # the kill)
            sd.proc.send_signal(signal.SIGSTOP)
            before = sd.routes()
            sd.proc.send_signal(signal.SIGKILL)
            sd.proc.wait(15)
            sd.logf.close()
            assert sd.routes() == before, "routes changed by a kill -9"
            mark = len(sd.read_log())
            sd.start()
            sd.wait(lambda: "started" in sd.read_log()[mark:], 20, "the restart")
            # its routes are adopted, not installed again
            sd.wait(lambda: f"{len(before)} adopted, 0 withdrawn" in sd.read_log()[mark:], 20,
                    f"{len(before)} routes adopted")
            sd.want(want, timeout=60)
            kills += 1

        # a bad config on reload: refused, the running one kept
        good = open(sd.conf).read()
        with open(sd.conf, "a") as f:
            f.write("probe_interval = soon\n")
        mark = len(sd.read_log())
        sd.signal(signal.SIGHUP)
        sd.wait(lambda: "reload refused" in sd.read_log()[mark:], 20, "the refusal")
        with open(sd.conf, "w") as f:
            f.write(good)
        assert sd.proc.poll() is None
        sd.want(want, timeout=30)

        # the rest of the churn, specd's routes steady throughout, but for
        # the probes: a legacy route asks for ECN (features ecn) while its
        # destination is probed, every verdict_ttl (specd.c, "Probing"),
        # and a reading can catch that; never another change
        flipped = {d: (cc, True) for d, (cc, ecn) in want.items() if not ecn}
        reads = flips = 0
        while time.monotonic() < t_end and not churn.error:
            got = sd.routes()
            reads += 1
            odd = {d: r for d, r in got.items() if r != want.get(d)}
            assert set(got) == set(want) and all(flipped.get(d) == r for d, r in odd.items()), \
                (got, sd.read_log()[-3000:])
            flips += bool(odd)
            time.sleep(2)
        sd.want(want, timeout=30)
    finally:
        churn.stop.set()
        churn.join(120)
    figure("specd: foreign route additions and deletions, kill -9 restarts",
           [churn.added, churn.deleted, kills])
    figure("specd: readings of its routes in the churn, of them during a probe", [reads, flips])
    assert churn.error is None, churn.error
    assert churn.added >= seconds * ROUTE_CHANGES // 60 // 2, churn.added
    assert sd.stop() == 0
    assert sd.routes() == {}, "SIGTERM left routes"
    sd.assert_foreign_untouched()
