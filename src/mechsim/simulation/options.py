"""The one registry of ``simulate`` options: their defaults, allowed values and meaning, read by
the Python API, the model file's ``simulation:`` section and the command line's ``--help``."""
from collections import namedtuple

from scipy.integrate import OdeSolver

from ..dynamics.data import DRIFT_CODES, SOLVER_CODES
from ..errors import MechsimError
from ..integrators import COMPILED_METHODS, METHODS, TABLEAUX

Option = namedtuple("Option", "default choices help")

COMPILED_SOLVERS = COMPILED_METHODS      # tableaux (integrators/tableaux.py): the compiled loop, or scipy's
SOLVERS = METHODS                        # and scipy's implicit solvers, through the adapter
FIXED_STEP_SOLVERS = tuple(name for name, tableau in TABLEAUX.items() if not tableau.adaptive)
BACKENDS = ("auto", "compiled", "python")

OPTIONS = {
    "t_end": Option(None, None, "end time [s]"),
    "t_eval": Option(None, None, "output times (default: every accepted step)"),
    "solver": Option("RK45", SOLVERS, "integration method, or a scipy.integrate.OdeSolver subclass"),
    "rtol": Option(1e-6, None, "relative tolerance"),
    "atol": Option(1e-8, None, "absolute tolerance"),
    "max_step": Option(None, None, "largest step of the variable-step solvers [s]"),
    "h": Option(None, None, "step of the fixed-step solvers Euler and RK4 [s]"),
    "drift": Option("projection", tuple(DRIFT_CODES), "drift control of the constraints"),
    "constraint_solver": Option("cholesky", tuple(SOLVER_CODES), "solver of the multipliers"),
    "formulation": Option("lagrange", ("lagrange", "nullspace", "penalty"), "equations of motion"),
    "baumgarte": Option((10.0, 10.0), None, "Baumgarte's (alpha, beta) for drift='baumgarte'"),
    "backend": Option("auto", BACKENDS, "auto: the compiled loop whenever nothing varies from Python"),
    "inputs": Option(None, None, "input values: numbers, expressions of t or callables"),
    "controller": Option(None, None, "callable(t, outputs) -> {input: value}"),
    "outputs": Option(None, None, "signals the controller receives (default: joint .q and .v)"),
    "sample_time": Option(None, None, "controller sample time (zero-order hold) [s]"),
    "events": Option(None, None, "ms.Event objects or solve_ivp-style functions"),
    "initial": Option(None, None, "an ms.State to start from instead of q0/v0"),
    "progress": Option(False, None, "show a progress bar"),
}
DEFAULTS = {name: option.default for name, option in OPTIONS.items()}


def resolve(model, options):
    """The options of one run: the registry's defaults, then the model file's ``simulation:``
    section, then the call's own (None: not given). Unknown names and values outside the allowed
    choices raise MechsimError."""
    unknown = set(options) - set(OPTIONS)
    if unknown:
        raise MechsimError(f"simulate(): unknown option(s) {sorted(unknown)}; options are {sorted(OPTIONS)}")
    opts = dict(DEFAULTS)
    opts.update({k: v for k, v in model.simulation.items() if k in OPTIONS})
    opts.update({k: v for k, v in options.items() if v is not None})
    for name, value in opts.items():
        choices = OPTIONS[name].choices
        user_solver = name == "solver" and isinstance(value, type) and issubclass(value, OdeSolver)
        if choices and not user_solver and value not in choices:
            raise MechsimError(f"simulate(): {name}={value!r} is not one of {', '.join(choices)}")
    return opts


def describe(name):
    """'help (one of a, b, c; default x)' for the command line."""
    option = OPTIONS[name]
    parts = [f"one of {', '.join(option.choices)}"] if option.choices else []
    if option.default is not None:
        parts.append(f"default {option.default}")
    return option.help + (f" ({'; '.join(parts)})" if parts else "")
