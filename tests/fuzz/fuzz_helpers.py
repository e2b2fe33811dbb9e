"""Shared pieces of the property-based tests (issue 16): small valid models in the model-file
format, junk values, hostile expressions, and the guards that turn a hang into a failure."""
import contextlib
import copy
import faulthandler
import io
import math
import os
import signal

import numpy as np

TIMEOUT = 10.0          # seconds an input may take (warm kernel cache; models run for t_end <= 0.2 s)
SCALE = int(os.environ.get("MECHSIM_FUZZ_SCALE", "1"))


def examples(n):
    """``n`` examples, times MECHSIM_FUZZ_SCALE."""
    return n * SCALE

# ------------------------------------------------------------------------------ valid models
PENDULUM = {
    "name": "pendulum", "gravity": [0, -9.81, 0],
    "bodies": [{"name": "rod", "mass": 1.0, "com": [0.5, 0, 0], "inertia": [0.001, 0.0833, 0.0833],
                "frames": {"tip": [1, 0, 0]}}],
    "joints": [{"name": "j1", "kind": "revolute", "parent": "ground", "child": "rod", "axis": [0, 0, 1], "q0": 0.3}],
    "forces": [{"name": "damper", "kind": "joint_spring_damper", "joint": "j1", "damping": 0.1}],
    "simulation": {"t_end": 0.1},
}
CART = {
    "name": "cart", "gravity": [0, -9.81, 0], "inputs": ["u"],
    "bodies": [{"name": "cart", "mass": 1.0, "inertia": [0.0017, 0.0042, 0.0042]},
               {"name": "rod", "mass": 0.5, "com": [0, -0.25, 0], "inertia": [0.0104, 3.3e-05, 0.0104]}],
    "joints": [{"name": "slide", "kind": "prismatic", "parent": "ground", "child": "cart", "axis": [1, 0, 0]},
               {"name": "hinge", "kind": "revolute", "parent": "cart", "child": "rod", "axis": [0, 0, 1], "q0": 0.1}],
    "forces": [{"name": "spring", "kind": "joint_spring_damper", "joint": "slide", "stiffness": 20.0, "damping": 0.5},
               {"name": "motor", "kind": "joint_force", "joint": "slide", "value": "u"},
               {"name": "push", "kind": "body_force", "body": "rod", "point": [0, -0.5, 0],
                "force": ["0.1*sin(2*pi*t)", 0, 0]}],
    "simulation": {"t_end": 0.1, "inputs": {"u": "sin(t)"}, "t_eval": {"start": 0, "stop": 0.1, "num": 11}},
}
DOUBLE_PENDULUM = {
    "name": "double", "gravity": [0, -9.81, 0],
    "bodies": [{"name": "upper", "mass": 1.0, "com": [0, -0.5, 0], "inertia": [0.0834, 0.0001, 0.0834],
                "frames": {"tip": [0, -1.0, 0]}},
               {"name": "lower", "mass": 1.0, "com": [0, -0.5, 0], "inertia": [0.0834, 0.0001, 0.0834]}],
    "joints": [{"name": "j1", "kind": "revolute", "parent": "ground", "child": "upper", "q0": 1.0},
               {"name": "j2", "kind": "revolute", "parent": "upper", "child": "lower", "parent_frame": "tip"}],
    "forces": [{"name": "kick", "kind": "joint_force", "joint": "j2", "value": "0.5*(t >= 0.05)"},
               {"name": "cord", "kind": "spring_damper", "body_a": "ground", "point_a": [1, 0, 0],
                "body_b": "lower", "point_b": [0, -1, 0], "stiffness": 5.0, "rest_length": 1.0}],
    "events": [{"signal": "j1.q", "value": 0.9, "direction": -1}],
    "simulation": {"t_end": 0.1, "solver": "DOP853", "rtol": 1e-8},
}
FOUR_BAR = {
    "name": "four-bar", "gravity": [0, -9.81, 0],
    "bodies": [{"name": "crank", "mass": 1.0, "com": [0.5, 0, 0], "inertia": [0.0, 0.0833, 0.0833],
                "frames": {"tip": [1.0, 0, 0]}},
               {"name": "coupler", "mass": 1.0, "com": [2.0, 0, 0], "inertia": [0.0, 1.333, 1.333],
                "frames": {"tip": [4.0, 0, 0]}},
               {"name": "rocker", "mass": 1.0, "com": [1.25, 0, 0], "inertia": [0.0, 0.5208, 0.5208],
                "frames": {"tip": [2.5, 0, 0]}}],
    "joints": [{"name": "j1", "kind": "revolute", "parent": "ground", "child": "crank", "q0": 1.5708},
               {"name": "j2", "kind": "revolute", "parent": "crank", "child": "coupler", "parent_frame": "tip",
                "q0": -1.2175187539062247},
               {"name": "j4", "kind": "revolute", "parent": "ground", "child": "rocker", "parent_frame": [3.0, 0, 0],
                "q0": 1.2648595635335869},
               {"name": "j3", "kind": "revolute", "parent": "coupler", "child": "rocker", "parent_frame": "tip",
                "child_frame": "tip", "q0": 0.9115783174398115, "cut": True}],
    "forces": [{"name": "motor", "kind": "joint_force", "joint": "j1", "value": 6.0}],
    "simulation": {"t_end": 0.1, "rtol": 1e-8, "atol": 1e-8},
}
SLIDER_CRANK = {
    "name": "slider-crank", "gravity": [0, -9.81, 0],
    "bodies": [{"name": "crank", "mass": 1.0, "com": [0.5, 0, 0], "inertia": [0, 0.1, 0.1]},
               {"name": "slider", "mass": 2.0}],
    "joints": [{"name": "j1", "kind": "revolute", "parent": "ground", "child": "crank", "q0": 0.3},
               {"name": "s", "kind": "prismatic", "parent": "ground", "child": "slider", "axis": [1, 0, 0],
                "q0": 2.0}],
    "constraints": [{"name": "rod", "kind": "distance", "body_a": "crank", "point_a": [1, 0, 0],
                     "body_b": "slider", "length": "1.5 + 0.01*sin(t)"}],
    "drivers": [{"joint": "j1", "position": "0.3 + 2*t"}],
    "simulation": {"t_end": 0.1},
}
BALL = {
    "name": "ball", "gravity": [0, 0, -9.81],
    "bodies": [{"name": "ball", "mass": 0.17, "inertia": [5.6e-05, 5.6e-05, 5.6e-05]}],
    "joints": [{"name": "free", "kind": "free", "parent": "ground", "child": "ball",
                "q0": [0, 0, 0.08, 1, 0, 0, 0], "v0": [1, 0, 0, 0, 0, 0]}],
    "contacts": [{"name": "floor", "body": "ball", "shape": "sphere", "radius": 0.0286, "restitution": 0.5,
                  "static": 0.2, "kinetic": 0.2}],
    "simulation": {"t_end": 0.2, "solver": "DOP853"},
}
STOP = {
    "name": "stop", "gravity": [0, -9.81, 0],
    "bodies": [{"name": "rod", "mass": 1.0, "com": [0.5, 0, 0], "inertia": [0.001, 0.0833, 0.0833]}],
    "joints": [{"name": "hinge", "kind": "revolute", "parent": "ground", "child": "rod", "q0": -0.9, "v0": -2.0}],
    "forces": [{"name": "stop", "kind": "joint_limit", "joint": "hinge", "lower": -1.0, "restitution": 0.75},
               {"name": "friction", "kind": "joint_friction", "joint": "hinge", "static": 0.2, "kinetic": 0.1}],
    "simulation": {"t_end": 0.2},
}
MODELS = {"pendulum": PENDULUM, "cart": CART, "double_pendulum": DOUBLE_PENDULUM, "four_bar": FOUR_BAR,
          "slider_crank": SLIDER_CRANK, "ball": BALL, "stop": STOP}


def model(name):
    """A fresh deep copy of one of MODELS."""
    return copy.deepcopy(MODELS[name])


# ------------------------------------------------------------------------------ values
SPECIAL_NUMBERS = [0, -1, 1e-300, -1e-300, 5e-324, 1e300, -1e300, 1e308, 10 ** 400, -10 ** 400, 2 ** 63,
                   math.inf, -math.inf, math.nan, 1e200, 1e-12]
VALID_EXPRESSIONS = ["sin(t)", "t**2", "2*sin(2*pi*t)", "5*(t >= 0.05)", "heaviside(t - 0.01)", "1 if t < 0.05 else -1",
                     "clip(t, 0, 1)", "maximum(t, 0.5)", "exp(-t)", "sqrt(t)", "0*t", "1e308*t", "t % 0.03",
                     "log(t)", "1/t", "1/(t - 0.05)", "arcsin(2)", "sqrt(-1)", "1/0", "0/0", "10**400", "9**9**9",
                     "2**1024", "exp(1000*t)", "(-8)**(1/3)", "1e308*1e308", "e**pi", "t < 0.05 < 1",
                     "tan(pi/2)", "floor(t*100) % 2"]
HOSTILE_EXPRESSIONS = [
    "__import__('os').system('touch pwned')", "open('pwned', 'w').write('x')", "t.__class__",
    "t.__class__.__mro__[1].__subclasses__()", "(lambda: 1)()", "lambda t: t", "exec('x = 1')",
    "eval('1')", "globals()", "getattr(t, 'real')", "sin.__globals__", "__builtins__", "[1, 2][0]",
    "[c for c in ().__class__.__bases__]", "{'a': 1}", "(1, 2)", "t if t else __import__('os')",
    "sin(t).real", "x + 1", "import os", "t; open('pwned', 'w')", "f'{t}'", "(y := 3)", "compile('1', 'f', 'eval')",
    "sin(*[t])", "sin(t, out=t)", "np.sin(t)", "os.getcwd()", "t.__init__.__globals__['sys']", "sin.__self__",
    "t[0]", "t and 1", "not t", "1 << 2000", "~t", "t @ t", "t // 0", "sin()", "sin(t, t)", "clip(t)",
    "'abc'", "b'abc'", "None", "True + t", "...", "t is t", "1 in t", "yield t", "await t", "*t",
]
NAMES = ["ground", "rod", "j1", "nope", "", "a.b", "a b", "x[0]", "u", "j1.q", "ground.position", "é", "\x00"]


def junk_values(st):
    """Any value a model file or an API call might wrongly hold."""
    plain = st.sampled_from([None, True, False, "", "abc", "1.0", "NaN", [], {}, [0], [1, 2], [1, 2, 3],
                             [1, 2, 3, 4], [[1, 0, 0], [0, 1, 0]], {"a": 1}, {"position": [0, 0, 0]},
                             [None, None, None], ["a", "b", "c"], [math.nan, 0, 0], [1e300, 1e300, 0]])
    nested = st.integers(2, 300).map(nested_list)
    return st.one_of(plain, st.sampled_from(SPECIAL_NUMBERS), st.floats(), st.integers(-10 ** 30, 10 ** 30),
                     st.text(max_size=8), st.sampled_from(VALID_EXPRESSIONS + HOSTILE_EXPRESSIONS),
                     st.lists(st.floats(), max_size=5), st.lists(st.sampled_from(SPECIAL_NUMBERS), max_size=6),
                     st.sampled_from(NAMES), nested)


def nested_list(depth):
    value = [1.0]
    for _ in range(depth):
        value = [value]
    return value


# ------------------------------------------------------------------------------ guards
class Hang(BaseException):
    """An input ran longer than TIMEOUT (a BaseException: the code under test cannot catch it)."""


@contextlib.contextmanager
def time_limit(seconds=TIMEOUT, what="input"):
    """Raise Hang if the block runs longer than ``seconds``. The compiled loop returns to Python
    between chunks of steps, where the alarm is delivered; should native code never return, a
    watchdog thread dumps the stacks and ends the process after 6x the limit, so that CI fails
    instead of hanging."""
    def alarm(signum, frame):
        raise Hang(f"{what} took more than {seconds} s")
    previous = signal.signal(signal.SIGALRM, alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    faulthandler.dump_traceback_later(6 * seconds, exit=True)
    try:
        yield
    except Hang as exc:                  # a failure hypothesis reports and shrinks
        raise AssertionError(str(exc)) from None
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        faulthandler.cancel_dump_traceback_later()
        signal.signal(signal.SIGALRM, previous)


def run_cli(argv, seconds=TIMEOUT):
    """(exit code, stdout, stderr) of ``mechsim.cli.main.main(argv)`` run in this process."""
    from mechsim.cli.main import main
    out, err = io.StringIO(), io.StringIO()
    with time_limit(seconds, f"mechsim {' '.join(map(str, argv))}"), \
            contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main([str(a) for a in argv])
    return code, out.getvalue(), err.getvalue()


def assert_clean_failure(code, stderr, context=""):
    """Exit code 1 with exactly one stderr line, ``error: ...``, and no traceback."""
    lines = stderr.splitlines()
    assert code == 1, f"exit code {code}, stderr {stderr!r} {context}"
    assert len(lines) == 1 and lines[0].startswith("error: "), f"stderr {stderr!r} {context}"
    assert "Traceback" not in stderr


def assert_finite_csv(path, context=""):
    """The CSV written by the CLI: a header and rows of finite numbers."""
    with open(path) as f:
        header = f.readline().strip().split(",")
    data = np.loadtxt(path, delimiter=",", skiprows=1, ndmin=2)
    assert header[0] == "t" and data.shape[1] == len(header), context
    assert len(data) >= 1 and np.all(np.isfinite(data)), f"non-finite values in {path} {context}"


def all_finite(result):
    """Every signal of a Result finite at every sample."""
    return all(np.all(np.isfinite(column)) for column in result.flat_columns().values())
