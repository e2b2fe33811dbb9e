"""The one registry of ``simulate`` options: their defaults, allowed values and meaning, read by
the Python API, the model file's ``simulation:`` section and the command line's ``--help``."""
import math
import numbers
from collections import namedtuple

from ..errors import ModelError, keyword
from ..integrators import COMPILED_METHODS, METHODS, STEP_CONTROLS, TABLEAUX
from ..modeling.links import Link

# command_line: also an option of ``mechsim simulate`` and ``mechsim animate`` (--name-with-dashes)
Option = namedtuple("Option", "default choices help check command_line", defaults=(None, False))

COMPILED_SOLVERS = COMPILED_METHODS      # tableaux (integrators/tableaux.py): the compiled loop, or scipy's
SOLVERS = METHODS                        # and scipy's implicit solvers, through the adapter
FIXED_STEP_SOLVERS = tuple(name for name, tableau in TABLEAUX.items() if not tableau.adaptive)
BACKENDS = ("auto", "compiled", "python")
# the names of dynamics/data.py's DRIFT_CODES and SOLVER_CODES, which import the kernels (numba): this registry
# is read at start-up (the command line's --help, model files)
DRIFTS = ("projection", "stabilization", "baumgarte", "none")
CONSTRAINT_SOLVERS = ("cholesky", "qr")

OPTIONS = {
    "t_end": Option(None, None, "end time [s]", "number", command_line=True),
    "t_eval": Option(None, None, "output times (default: every accepted step)"),
    "solver": Option("RK45", SOLVERS, "integration method, or a scipy.integrate.OdeSolver subclass", command_line=True),
    "rtol": Option(1e-6, None, "relative tolerance", "positive", command_line=True),
    "atol": Option(1e-8, None, "absolute tolerance", "positive", command_line=True),
    "max_step": Option(None, None, "largest step of the variable-step solvers [s]", "positive", command_line=True),
    "h": Option(None, None, "step of the fixed-step solvers Euler and RK4; the first step of the others [s]",
                "positive", command_line=True),
    "step_control": Option("standard", STEP_CONTROLS,
                           "step-size control of the compiled RK23, RK45 and DOP853: scipy's (its steps; scipy's own "
                           "solvers always take these), or Gustafsson's predictive controller (fewer rejected steps "
                           "on smooth motions; steps can collapse at singular positions)", command_line=True),
    "drift": Option("projection", DRIFTS, "drift control of the constraints", command_line=True),
    "constraint_solver": Option("cholesky", CONSTRAINT_SOLVERS, "solver of the multipliers", command_line=True),
    "formulation": Option("lagrange", ("lagrange", "nullspace", "penalty"),
                          "equations of motion: Lagrange multipliers, independent velocities (QTZ), or the loop "
                          "constraints as spring-dampers", command_line=True),
    "baumgarte": Option((10.0, 10.0), None, "Baumgarte's (alpha, beta) for drift='baumgarte'", "pair"),
    "sigma": Option(20.0, None, "rate [1/s] of the position stabilization of formulation='nullspace' with "
                                "drift='baumgarte' (Khan, Tang & Krovi 2006, method B)", "positive"),
    "penalty": Option(None, None, "formulation='penalty': dict(stiffness=, damping=) (numbers, or {constraint: "
                                  "number}) or dict(frequency=, damping_ratio=) (default frequency 1000 rad/s, "
                                  "critically damped); iterations=n (and factor=, default 1e6): the augmented "
                                  "Lagrangian (default frequency 10 rad/s)", "mapping"),
    "backend": Option("auto", BACKENDS, "auto: the compiled loop whenever nothing varies from Python", command_line=True),
    "inputs": Option(None, None, "input values: numbers, expressions of t or callables", "mapping"),
    "controller": Option(None, None, "callable(t, outputs) -> {input: value}", "callable"),
    "outputs": Option(None, None, "signals the controller receives (default: joint .q and .v)", "names"),
    "sample_time": Option(None, None, "controller sample time (zero-order hold) [s]", "positive"),
    "events": Option(None, None, "ms.Event objects or solve_ivp-style functions"),
    "initial": Option(None, None, "an ms.State to start from instead of q0/v0"),
    "progress": Option(False, None, "show a progress bar", "flag"),
    "links": Option(None, None, "I/O links exchanging at every step of this run, besides the model's (ms.UDPLink)",
                    "links"),
    "realtime": Option(False, None, "pace the run to the wall clock: each step starts no earlier than its time "
                                    "(True), or at a factor of it (0.5: half speed); fixed-step solvers only",
                       "realtime", command_line=True),
}
DEFAULTS = {name: option.default for name, option in OPTIONS.items()}
COMMAND_LINE = tuple(name for name, option in OPTIONS.items() if option.command_line)


def is_number(value, positive=False):
    """True for a finite real number (not a bool), > 0 if ``positive``."""
    try:
        return (isinstance(value, numbers.Real) and not isinstance(value, bool) and math.isfinite(value)
                and (value > 0 or not positive))
    except OverflowError:                        # an int beyond float's range
        return False


CHECKS = {      # check name: (test of a value, what the value must be)
    "number": (is_number, "a finite number"),
    "positive": (lambda v: is_number(v, positive=True), "a finite positive number"),
    "pair": (lambda v: isinstance(v, (list, tuple)) and len(v) == 2 and all(map(is_number, v)), "two finite numbers"),
    "flag": (lambda v: isinstance(v, bool), "True or False"),
    "links": (lambda v: isinstance(v, (list, tuple)) and all(isinstance(link, Link) for link in v),
              "a list of links (ms.UDPLink)"),
    "realtime": (lambda v: isinstance(v, bool) or is_number(v, positive=True),
                 "True, False or a positive factor (simulated seconds per wall-clock second)"),
    "callable": (callable, "a callable"),
    "names": (lambda v: isinstance(v, (list, tuple)) and all(isinstance(n, str) for n in v), "a list of signal names"),
    "mapping": (lambda v: isinstance(v, dict) and all(isinstance(n, str) for n in v), "a dict {name: value}"),
}


def resolve(model, options):
    """The options of one run: the registry's defaults, then the model file's ``simulation:``
    section, then the call's own (None: not given). Unknown names and values outside the allowed
    choices or of the wrong type raise ModelError."""
    refuse_unknown("simulate()", options, OPTIONS)
    given = {k: v for k, v in model.simulation.items() if k in OPTIONS}
    given.update({k: v for k, v in options.items() if v is not None})
    opts = {**DEFAULTS, **given}
    for name, value in given.items():            # the defaults pass their checks (tests/modeling/test_errors.py)
        try:
            check_option(name, value)
        except ModelError as exc:
            raise ModelError(f"simulate(): {exc.template}") from None
    return opts


def refuse_unknown(call, given, known):
    """ModelError naming the keyword options ``given`` to ``call`` ("simulate()") that are not ``known``."""
    unknown = set(given) - set(known)
    if unknown:
        raise ModelError(f"{call}: unknown option(s) {sorted(unknown)}; options are {sorted(known)}")


def check_option(name, value):
    """ModelError naming the option when ``value`` (not None) is outside its choices or fails its check."""
    option = OPTIONS[name]
    if value is None:
        return
    user_solver = False
    if name == "solver" and isinstance(value, type):
        from scipy.integrate import OdeSolver    # imported here, not at start-up: scipy.integrate takes ~0.4 s
        user_solver = issubclass(value, OdeSolver)
    if option.choices and not user_solver and not (isinstance(value, str) and value in option.choices):
        raise ModelError(f"{keyword(name)}={value!r} is not one of {', '.join(option.choices)}")
    if option.check and not CHECKS[option.check][0](value):
        raise ModelError(f"{keyword(name)} must be {CHECKS[option.check][1]}, got {value!r}")


def describe(name):
    """'help (one of a, b, c; default x)' for the command line."""
    option = OPTIONS[name]
    parts = [f"one of {', '.join(option.choices)}"] if option.choices else []
    if option.default is not None:
        parts.append(f"default {option.default}")
    return option.help + (f" ({'; '.join(parts)})" if parts else "")
