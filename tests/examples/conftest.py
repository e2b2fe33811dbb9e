"""Fixtures of the tests of examples/ (their plain helpers are in example_helpers.py)."""
import pytest

from example_helpers import start_script


@pytest.fixture(scope="module")
def script_runs(request, tmp_path_factory):
    """Every example script of the test module's SCRIPT_RUNS ({id: (script, arguments,
    MECHSIM_EXAMPLE_T_END)}), started at once in subprocesses with a short end time: id -> (process,
    out dir)."""
    procs = {}
    for key, (name, args, t_end) in request.module.SCRIPT_RUNS.items():
        out = tmp_path_factory.mktemp(key)
        procs[key] = (start_script(name, args, t_end, out), out)
    yield procs
    for proc, _ in procs.values():
        if proc.poll() is None:
            proc.kill()
