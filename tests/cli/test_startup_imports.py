"""Start-up and exit (issue 15): ``import mechsim`` and the light commands leave out the heavy modules
they do not use, the program leaves its objects to the operating system at exit, and the lazy names of
the package still resolve as before."""
import importlib
import subprocess
import sys
from pathlib import Path

import pytest

import mechsim as ms

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "cart_pendulum.yaml"     # an open tree
HEAVY = ("numba", "scipy.integrate", "scipy.optimize", "scipy.linalg", "matplotlib", "pandas")


def imported(code, heavy=HEAVY):
    """The modules of ``heavy`` that a fresh interpreter has imported after running ``code``."""
    check = f"print(sorted(m for m in {heavy!r} if m in sys.modules))"
    run = subprocess.run([sys.executable, "-c", f"import sys\n{code}\n{check}"], capture_output=True, text=True,
                         check=True)
    return run.stdout.splitlines()[-1]


def test_import_mechsim_imports_nothing_heavy():
    assert imported("import mechsim") == "[]"


def test_help_imports_nothing_heavy():
    assert imported("from mechsim.cli.main import main\nmain(['--help'])") == "[]"


@pytest.mark.parametrize("command", ["check", "signals"])
def test_check_and_signals_of_an_open_tree_import_neither_scipy_solvers_nor_plotting(command):
    # numba they need: the model's compiled form lives in the kernels' modules
    code = f"from mechsim.cli.main import main\nmain([{command!r}, {str(EXAMPLE)!r}])"
    assert imported(code, HEAVY[1:]) == "[]"


def test_a_run_of_the_program_loads_numpys_unused_modules_only_on_use(tmp_path):
    # numba's first kernel imports scipy.linalg, whose array-API layer touches every numpy submodule (cli/main.py)
    code = (f"sys.argv = ['mechsim', 'simulate', {str(EXAMPLE)!r}, '-o', {str(tmp_path / 'out.csv')!r}]\n"
            "from mechsim.cli.main import main\nmain()")
    assert imported(code, ("scipy.linalg", "numpy.f2py.crackfortran", "unittest")) == "['scipy.linalg']"
    assert imported(code + "\nimport numpy\nnumpy.testing.assert_equal(1, 1)", ("unittest",)) == "['unittest']"


def test_only_the_programs_own_command_line_freezes_the_objects_it_leaves_at_exit():
    code = ("import gc, sys\nfrom mechsim.cli.main import main\n"
            "main(['--version'])\nprint('frozen', gc.get_freeze_count() > 0)\n"
            "sys.argv = ['mechsim', '--version']\nmain()\nprint('frozen', gc.get_freeze_count() > 0)")
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert [line for line in run.stdout.splitlines() if line.startswith("frozen")] == ["frozen False", "frozen True"]


def test_every_exported_name_resolves_and_is_listed():
    for name in ms.__all__:
        assert getattr(ms, name) is not None and name in dir(ms)
    namespace = {}
    exec("from mechsim import *", namespace)
    assert set(ms.__all__) <= set(namespace)
    assert ms.Result is ms.results.result.Result and ms.Event is ms.modeling.events.Event
    with pytest.raises(AttributeError, match="has no attribute 'nothing'"):
        ms.nothing


def test_a_function_named_like_its_module_stays_the_packages_attribute():
    importlib.import_module("mechsim.simulation.simulate")           # the submodule imported first
    assert callable(ms.simulation.simulate) and ms.simulation.simulate.__name__ == "simulate"
    assert ms.integrators.ScipyStepper.__module__ == "mechsim.integrators.scipy_adapter"


def test_the_options_registry_names_the_kernels_drift_controls_and_multiplier_solvers():
    from mechsim.dynamics.data import DRIFT_CODES, SOLVER_CODES
    from mechsim.simulation.options import CONSTRAINT_SOLVERS, DRIFTS
    assert DRIFTS == tuple(DRIFT_CODES) and CONSTRAINT_SOLVERS == tuple(SOLVER_CODES)


def test_the_package_resolves_names_in_its_module_getattr_so_loaded_names_are_plain_lookups():
    # a __getattr__ on the package's class routes every ``ms.name`` through Python (~60 ns, measured on the
    # path of ms.forward_dynamics); PEP 562's module __getattr__ is asked only for names not loaded yet
    for package in (ms, ms.simulation, ms.analysis, ms.integrators):
        assert "__getattr__" not in vars(type(package)) and callable(vars(package)["__getattr__"])
