"""The event locator (integrators/locator.py) on a plain ODE with closed-form crossings, for every kind of
stepper: the compiled loop's tableaux and scipy's solvers, whose dense outputs it reads as Interpolants
(dense.py); compiled into the loop and interpreted from Python alike; and the package's only root finding."""
import ast
from pathlib import Path

import numpy as np
import pytest

import mechsim
from ode_problems import Oscillator, oscillator_events, oscillator_rhs, python_events, python_rhs
from mechsim.integrators import CompiledStepper, ScipyStepper, Watcher
from mechsim.status import EVENT, OK, PAUSED

# x'' = -x from (1, 0): x = cos t crosses 0 at pi/2 + k pi (event 0), and it is above LEVEL (event 1) only within
# WIDTH of each 2 pi k: a level reached and left between two samples of a wide step, found at the extremum of x,
# the root of its rate x' (event function 2, the rate of both events)
LEVEL = 1 - 1e-6
WIDTH = np.arccos(LEVEL)                    # 1.4e-3 s
T_END = 2 * np.pi + 0.5
OSCILLATOR = Oscillator(LEVEL)
EVENTS = python_events(oscillator_events, OSCILLATOR, 3)
EPS = np.finfo(float).eps
# the dense outputs' errors stay far below LEVEL's 1e-6 under 1: every interpolant rises above it near 2 pi
TOLERANCES = dict(rtol=1e-10, atol=1e-12)
STEPPERS = [("compiled", "RK23"), ("compiled", "RK45"), ("compiled", "DOP853"), ("compiled", "RK4"),
            ("scipy", "RK23"), ("scipy", "RK45"), ("scipy", "DOP853"), ("scipy", "Radau"), ("scipy", "BDF"),
            ("scipy", "LSODA")]


def exact_crossings():
    """(time, event) of every crossing up to T_END, in time order."""
    zeros = [(np.pi / 2 + k * np.pi, 0) for k in range(4)]
    level = [(WIDTH, 1), (2 * np.pi - WIDTH, 1), (2 * np.pi + WIDTH, 1)]
    return sorted(crossing for crossing in zeros + level if crossing[0] < T_END)


def stepper_of(kind, method, **events):
    """A stepper of the oscillator (RK4: fixed steps of 0.02 s, global error ~1e-8)."""
    if kind == "compiled":
        return CompiledStepper(OSCILLATOR, method, 0.0, [1.0, 0.0], T_END, h=0.02 if method == "RK4" else None,
                               **TOLERANCES, **events)
    return ScipyStepper(python_rhs(oscillator_rhs, OSCILLATOR), None, None, method, 0.0, [1.0, 0.0], T_END,
                        **TOLERANCES)


def one_step(stepper):
    """The status of the stepper's next step."""
    T, Y = np.empty(1), np.empty((1, 2))
    return stepper.advance(T_END, 1, True, None, 0, T, Y)[0]


def dense_error(stepper):
    """The largest error of the last step's dense output against x = cos t (201 points)."""
    times = np.linspace(stepper.t_old, stepper.t, 201)
    return max(abs(stepper.dense(t)[0] - np.cos(t)) for t in times)


def located_along(stepper, watcher):
    """(t, event, the dense output's error in its step) of every root the watcher locates along the stepper's
    steps to T_END, as the driver runs it: after a root, the rest of its step from there, that root's events
    counted as zero at it."""
    found = []
    while stepper.t < T_END:
        assert one_step(stepper) in (OK, PAUSED)
        t_from, quiet = stepper.t_old, []
        while (root := watcher.roots(stepper.interpolant(), t_from, quiet, stepper.t, stepper.y)) is not None:
            found += [(root[0], k, dense_error(stepper)) for k in root[1]]
            t_from, quiet = root
    return found


@pytest.mark.parametrize("kind, method", STEPPERS)
def test_every_crossing_is_located_on_every_steppers_dense_output(kind, method):
    """x = cos t through 0 and through LEVEL, both ways, located by a Watcher along the steps of each kind of
    stepper: every crossing found, in order, at the exact time to first order in the dense output's error e
    in its step, with the rounding of x and LEVEL (2 eps: |x| <= 1) (the interpolant's root is off by that
    over the rate |sin t|; twice that for e between the points where it was measured and the second order
    near the extremum), the locator's tolerance aside."""
    found = located_along(stepper_of(kind, method), Watcher(None, EVENTS, 2, rates=[2, 2]))
    exact = exact_crossings()
    assert [k for _, k, _ in found] == [k for _, k in exact]
    for (t, _, error), (t_exact, _) in zip(found, exact):
        assert abs(t - t_exact) <= 2 * (error + 2 * EPS) / abs(np.sin(t_exact)) + 16 * np.spacing(t_exact)


def test_without_its_rate_a_level_reached_and_left_inside_a_step_is_missed():
    """DOP853's steps around 2 pi are wider than 5 x 2 WIDTH: its samples straddle the level's excursion, which
    only the rate's root finds; without the rate both crossings there are missed, the others found."""
    stepper = stepper_of("compiled", "DOP853")
    found = located_along(stepper, Watcher(None, lambda t, y: EVENTS(t, y)[:2], 2))
    assert [k for _, k, _ in found] == [1, 0, 0]
    wide = stepper_of("compiled", "DOP853")
    while wide.t < 2 * np.pi:
        one_step(wide)
    assert wide.t - wide.t_old > 5 * 2 * WIDTH


@pytest.mark.parametrize("method", ["RK45", "DOP853"])
def test_the_compiled_loop_locates_as_the_locator_interpreted(method):
    """One locator two ways: the compiled loop's scan of each step and its compiled location (Stepper.locate after
    EVENT), and a Watcher interpreting the same functions from Python on the same step, find the same earliest
    root and events, each within the tolerance of Brent's method (locator.root: 2 tol ~ 8 ulp of the root), in
    each of the four steps holding crossings (the two around 2 pi share one)."""
    stepper = stepper_of("compiled", method, n_events=2, rates=[2, 2])
    watcher = Watcher(None, EVENTS, 2, rates=[2, 2])
    located = []
    while stepper.t < T_END:
        status = one_step(stepper)
        assert status in (OK, PAUSED, EVENT)
        if status == EVENT:
            (t, which), (t_python, which_python) = stepper.locate(), watcher.roots(
                stepper.interpolant(), stepper.t_old, [], stepper.t, stepper.y)
            assert which == which_python and abs(t - t_python) <= 16 * np.spacing(t)
            located.append(t)
    assert len(located) == 4 and abs(located[-1] - 2 * np.pi + WIDTH) < 1e-6


# ------------------------------------------------------------------------------------------ one locator
SOURCE = Path(mechsim.__file__).parent
ROOT_FINDERS = {"brentq", "brenth", "ridder", "bisect", "newton", "toms748", "root_scalar", "fsolve", "root"}


def test_the_locator_is_the_only_root_finding_of_event_location():
    """No module of simulation/ or integrators/ imports a scalar root finder of scipy.optimize (the driver's
    brentq was one of three event locations), and the bracketing rule (crossing, bracket) and Brent's method
    (root) are module functions of integrators/locator.py alone, in the whole package."""
    for path in sorted((SOURCE / "simulation").glob("*.py")) + sorted((SOURCE / "integrators").glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("scipy.optimize"):
                assert not {alias.name for alias in node.names} & ROOT_FINDERS, path
            if isinstance(node, ast.Import):
                assert not any(alias.name.startswith("scipy.optimize") for alias in node.names), path
    defining = [path.relative_to(SOURCE).as_posix() for path in sorted(SOURCE.rglob("*.py"))
                if {node.name for node in ast.parse(path.read_text(encoding="utf-8")).body
                    if isinstance(node, ast.FunctionDef)} & {"crossing", "bracket", "root"}]
    assert defining == ["integrators/locator.py"]
