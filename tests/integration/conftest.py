"""Integration tests: run inside the VM (tests/vm), as root, with the
modules of the running kernel in build/<release>/. Each test builds its own
namespaces and removes them."""
import os
import sys

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", ".."))

from specnet_bench import specnet_lab as lab  # noqa: E402


def pytest_collection_modifyitems(config, items):
    if not os.path.exists("/proc/modules") or os.geteuid() != 0:
        skip = pytest.mark.skip(reason="needs root and a kernel with modules: run through `make test` (VM)")
        for item in items:
            item.add_marker(skip)


def pytest_configure(config):
    config.addinivalue_line(
        "markers", "quiet: a test whose verdict needs the guest undisturbed (a window, "
        "a queue or a rate judged over time on a shaped link); `make test` takes it "
        "again, alone on the host, when it fails beside the other guest")


# tests/run.py names a file here (SPECNET_QUIET_FAILED) on the run of the
# whole suite beside the other guest: the node ids of the quiet tests that
# failed, one a line, which it takes again alone
QUIET_FAILED = os.environ.get("SPECNET_QUIET_FAILED")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    rep = outcome.get_result()
    if QUIET_FAILED and rep.failed and item.get_closest_marker("quiet"):
        with open(QUIET_FAILED, "a") as f:
            f.write(item.nodeid + "\n")


# tests/run.py names the file of its run (figures-<suite>.json), so that a
# suite run by hand never mixes its figures into another run's report
FIGURES = (os.environ.get("SPECNET_FIGURES")
           or os.path.join(lab.TOP, "build", lab.kernel_release(), "figures.json"))


@pytest.fixture(scope="session", autouse=True)
def _figures_file():
    if os.path.exists(FIGURES):
        os.unlink(FIGURES)
    yield


_FIGURE_OWNERS = {}


@pytest.fixture
def figure(request):
    """figure(name, value): record a measured figure; `make test` prints
    them after the VM part (build/<release>/figures-<suite>.json). A figure
    is keyed by the test's name: two modules' tests of the same name must
    name their figures apart (the second would overwrite the first), and a
    figure recorded under one key by two tests fails the second."""
    import json

    def rec(name, value):
        key = f"{request.node.name}: {name}"
        owner = _FIGURE_OWNERS.setdefault(key, request.node.nodeid)
        assert owner == request.node.nodeid, f"figure '{key}' already recorded by {owner}"
        try:
            with open(FIGURES) as f:
                data = json.load(f)
        except (OSError, ValueError):
            data = {}
        data[key] = value
        with open(FIGURES, "w") as f:
            json.dump(data, f, indent=1)
    return rec


@pytest.fixture
def spec():
    """tcp_spec loaded fresh with default parameters; unloaded afterwards."""
    lab.load_module("tcp_spec")
    yield "spec"
    lab.unload_module("tcp_spec")


@pytest.fixture
def cpecn():
    """tcp_cpecn (cpecn and wecn) loaded fresh with default parameters."""
    lab.load_module("tcp_cpecn")
    yield "cpecn"
    lab.unload_module("tcp_cpecn")


@pytest.fixture
def tp():
    """tcp_tp loaded fresh with default parameters; unloaded afterwards."""
    lab.load_module("tcp_tp")
    yield "tp"
    lab.unload_module("tcp_tp")


@pytest.fixture(autouse=True)
def no_leftover_namespaces():
    before = lab.netns_names()
    yield
    after = lab.netns_names()
    leaked = {n for n in after - before if n.startswith("sn")}
    for n in leaked:
        lab.run(f"ip netns del {n}")
    assert not leaked, f"namespaces left behind: {leaked}"
