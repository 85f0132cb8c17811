"""The stress suite (`make stress`): runs inside the VM like the
integration suite (tests/integration), with its fixtures; the runner
(tests/run.py --suite stress) fails the run on any kernel report in the
guest's log. Lengths scale with STRESS_SCALE (stresslib.scaled(); default 1:
the documented counts), the soak's with SOAK_SCALE (default STRESS_SCALE)."""
import pytest

import stresslib

_it = stresslib.load("specnet_integration_conftest", "../integration/conftest.py")

pytest_collection_modifyitems = _it.pytest_collection_modifyitems
_figures_file = _it._figures_file
figure = _it.figure
spec = _it.spec
no_leftover_namespaces = _it.no_leftover_namespaces


@pytest.fixture(scope="session", autouse=True)
def memory_baseline():
    """Before the first test: the slab in use (caches dropped) and, on a
    kernel with kmemleak, its list of suspects cleared, so that
    test_zz_memory judges what the suite left behind."""
    stresslib.memory_baseline()
    yield
