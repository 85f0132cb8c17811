"""specnet's experiment tooling: the Mininet topologies of the lossy long
paths (topos), what the tests and benchmarks share inside the guest
(specnet_lab, and netlink: the qdisc and TCP socket dumps its samplers
read), the benchmark runner (cli: the `specnet-bench` command), the
paper's satellite scenario (satellite), `make demo` (demo) and the
publishing of results under docs/results/ (publish).

The package is not named `mininet`, whose name Mininet's own package holds.
onoff.py runs by path inside Mininet's hosts and imports nothing of it."""

__version__ = "0.1"
