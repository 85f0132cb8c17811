"""The stress suite (`make stress`): runs inside the VM like the
integration suite (tests/integration), with its fixtures; the runner
(tests/run.py --suite stress) fails the run on any kernel report in the
guest's log. Lengths scale with STRESS_SCALE (stresslib.scaled(); default 1:
the documented counts)."""
import importlib.util
import os

_spec = importlib.util.spec_from_file_location(
    "specnet_integration_conftest",
    os.path.join(os.path.dirname(__file__), "..", "integration", "conftest.py"))
_it = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_it)

pytest_collection_modifyitems = _it.pytest_collection_modifyitems
_figures_file = _it._figures_file
figure = _it.figure
no_leftover_namespaces = _it.no_leftover_namespaces
