"""The VM suites' figure fixture (tests/integration/conftest.py) on the
host: a figure is keyed by its test's name, and the same key recorded by
a second test (a same-named test of another module) fails instead of
overwriting the first's."""
import importlib.util
import json
import os
import types

import pytest

TOP = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))


@pytest.fixture
def conftest(tmp_path, monkeypatch):
    monkeypatch.setenv("SPECNET_FIGURES", str(tmp_path / "figures.json"))
    spec = importlib.util.spec_from_file_location(
        "specnet_it_conftest_host", os.path.join(TOP, "tests", "integration", "conftest.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def recorder(mod, nodeid):
    node = types.SimpleNamespace(nodeid=nodeid, name=nodeid.split("::")[-1])
    return mod.figure.__pytest_wrapped__.obj(types.SimpleNamespace(node=node))


def test_a_figure_key_belongs_to_one_test(conftest):
    a = recorder(conftest, "tests/integration/test_spec.py::test_same")
    a("drops", 1)
    a("drops", 2)                       # the same test may record it again
    recorder(conftest, "tests/integration/test_cpecn.py::test_same")("cpecn drops", 3)
    with open(os.environ["SPECNET_FIGURES"]) as f:
        assert json.load(f) == {"test_same: drops": 2, "test_same: cpecn drops": 3}
    b = recorder(conftest, "tests/integration/test_cpecn.py::test_same")
    with pytest.raises(AssertionError, match="already recorded by tests/integration/test_spec"):
        b("drops", 4)
    with open(os.environ["SPECNET_FIGURES"]) as f:
        assert json.load(f)["test_same: drops"] == 2
