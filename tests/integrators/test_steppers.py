"""The steppers (integrators/explicit.py, scipy_adapter.py) on plain ODEs: scipy's steps taken
exactly, correction after steps and at outputs, events sampled inside steps, pausing, failures,
the problem registry."""
import pickle

import numpy as np
import pytest
from numba.core.errors import TypingError
from numba.core.typing.typeof import typeof
from scipy.integrate import DOP853, RK23, RK45
from scipy.optimize import brentq

from ode_problems import (DAMPED_ROTATION, Blowup, Circle, Kepler, Reciprocal, Sine, blowup_rhs, circle_correct,
                          circle_rhs, kepler_rhs, kepler_start, linear_rhs, python_correct, python_events, python_rhs,
                          sine_events, sine_rhs)
from mechsim.integrators import TABLEAUX, CompiledStepper, ScipyStepper, crossing, register_problem
from mechsim.integrators import problem as registry
from mechsim.integrators.explicit import MAX_FACTOR, MIN_FACTOR, SAFETY, new_state, predicted_factor, rk_start
from mechsim.status import EVENT, NON_FINITE, OK, PAUSED, SINGULAR, STEP_TOO_SMALL

SCIPY = {"RK23": RK23, "RK45": RK45, "DOP853": DOP853}
EPS = np.finfo(float).eps
# How far two paths that differ only by rounding (the compiled loop's stage sums against scipy's BLAS calls,
# whose kernel the CPU picks) may place the same steps. The step factor SAFETY err^(-1/(p+1)) turns a relative
# change d of the error estimate into d/(p+1) of the step. The estimate h sum(e_i K_i)/sc cancels down to err
# (below 1: the steps grow) while its rounding is ~ s eps h |K|/sc: on the first steps of these runs
# (h |K|/sc ~ 3e4, err ~ 2e-5 when the step then grows 8x) d reaches ~1e-6, i.e. steps ~3e-7 relative, and
# the times, sums of the steps, keep it. Measured: 1.2e-7 where OpenBLAS picks its SkylakeX kernel.
STEP_RTOL = 1e-6


def steps(stepper, t_bound, max_steps=10 ** 6, size=20000):
    """(status, T, Y) of stepper.advance recording every step."""
    T, Y = np.empty(size), np.empty((size, len(stepper.y)))
    status, n = stepper.advance(t_bound, max_steps, True, None, 0, T, Y)
    return status, T[:n], Y[:n]


def assert_same_flow(problem, T, Y, T_ref, Y_ref, rtol):
    """Y at the times T and Y_ref at the nearby times T_ref (the same steps placed by two paths, STEP_RTOL) lie
    on one solution: Y moved back along the flow by T_ref - T, to first order, equals Y_ref to the runs' rtol
    (their steps' local errors differ by that much where the step sizes differ)."""
    rhs = python_rhs(kepler_rhs, problem)
    moved = Y + np.array([rhs(t, y) for t, y in zip(T, Y)]) * (T_ref - T)[:, None]
    np.testing.assert_allclose(moved, Y_ref, rtol=0, atol=rtol * np.abs(Y_ref).max())


def scipy_steps(solver):
    T, Y = [], []
    while solver.status == "running":
        solver.step()
        T.append(solver.t)
        Y.append(solver.y)
    return np.array(T), np.array(Y)


# ------------------------------------------------------------------------------- scipy's steps
@pytest.mark.parametrize("name", list(SCIPY))
def test_takes_scipys_steps(name):
    """On the same ODE (the same compiled function) the compiled loop takes scipy's steps: the same
    accepted times and states up to rounding, and the same number of evaluations, rejected steps
    included. Not bit for bit: the stage sums are loops, not numpy's BLAS calls (~0.3 us each, a
    tenth of a four-bar evaluation), and their different rounding, amplified by the cancellation in
    the error estimate, moves the step sizes (STEP_RTOL)."""
    problem, y0 = Kepler(1.0), kepler_start(0.8)
    solver = SCIPY[name](python_rhs(kepler_rhs, problem), 0.0, y0, 7.0, rtol=1e-6, atol=1e-9)
    T_ref, Y_ref = scipy_steps(solver)
    stepper = CompiledStepper(problem, name, 0.0, y0, 7.0, rtol=1e-6, atol=1e-9)
    status, T, Y = steps(stepper, 7.0)
    assert status == OK and stepper.stats["rejected"] > 0
    np.testing.assert_allclose(T, T_ref, rtol=STEP_RTOL, atol=0)
    assert_same_flow(problem, T, Y, T_ref, Y_ref, rtol=1e-6)
    assert stepper.stats["rhs_evaluations"] == solver.nfev and stepper.stats["steps"] == len(T_ref)


def test_scipy_stepper_and_compiled_stepper_agree():
    """ScipyStepper on scipy's RK45 (and on a user's OdeSolver subclass) takes the compiled
    stepper's steps, also with a correction after every step; the compiled stepper evaluates
    f at the last corrected state at once, the adapter before the next step."""
    class MyRK45(RK45):
        pass

    problem, y0 = Kepler(1.0), kepler_start(0.5)
    compiled = CompiledStepper(problem, "RK45", 0.0, y0, 6.0, rtol=1e-7, atol=1e-9)
    _, T, Y = steps(compiled, 6.0)
    for solver in ("RK45", MyRK45):
        adapter = ScipyStepper(python_rhs(kepler_rhs, problem), None, None, solver, 0.0, y0, 6.0, rtol=1e-7, atol=1e-9)
        status, T2, Y2 = steps(adapter, 6.0)
        assert status == OK and adapter.correctable
        np.testing.assert_allclose(T2, T, rtol=STEP_RTOL, atol=0)
        assert_same_flow(problem, T2, Y2, T, Y, rtol=1e-7)
        assert adapter.stats == compiled.stats
    problem = Circle(0.3)
    compiled = CompiledStepper(problem, "RK45", 0.0, [1.0, 0.0], 5.0, rtol=1e-6, atol=1e-9)
    _, T, Y = steps(compiled, 5.0)
    adapter = ScipyStepper(python_rhs(circle_rhs, problem), python_correct(circle_correct, problem), None, "RK45",
                           0.0, [1.0, 0.0], 5.0, rtol=1e-6, atol=1e-9)
    _, T2, Y2 = steps(adapter, 5.0)
    np.testing.assert_allclose(T2, T, rtol=STEP_RTOL, atol=0)
    z, z2 = Y[:, 0] + 1j * Y[:, 1], Y2[:, 0] + 1j * Y2[:, 1]
    # corrected onto |y| = 1 the flow is the unit rotation: z2 turned back by T2 - T is z, to the runs' rtol
    np.testing.assert_allclose(z2 * np.exp(-1j * (T2 - T)), z, rtol=0, atol=1e-6)
    stats, stats2 = compiled.stats, adapter.stats
    assert stats2["projections"] == stats["projections"] == stats["steps"] == stats2["steps"]
    assert stats2["rhs_evaluations"] == stats["rhs_evaluations"] - 1


# ------------------------------------------------------------------------------- step-size control
def test_the_predictive_factor_extrapolates_a_geometric_trend_of_the_error_constant():
    """Gustafsson's controller models err_n = phi_n h_n^k. When phi grows by r per step (phi_n = r phi_(n-1)),
    the factor f it returns gives err_(n+1) = phi_n r (h_n f)^k = SAFETY^k exactly, the standard target,
    whereas the standard factor SAFETY err_n^(-1/k) misses it by the factor r; within [MIN_FACTOR, MAX_FACTOR]."""
    k, r, phi, h_last, h = 5, 1.7, 1.0e10, 0.011, 0.008
    err_last, err = phi / r * h_last ** k, phi * h ** k
    factor = predicted_factor(h, err, h_last, err_last, -1.0 / k)
    assert MIN_FACTOR < factor < MAX_FACTOR
    np.testing.assert_allclose(phi * r * (h * factor) ** k, SAFETY ** k, rtol=1e-13)
    assert predicted_factor(h, 1e-30, h, 1.0, -1.0 / k) == MAX_FACTOR
    assert predicted_factor(h, 0.5, 1e3 * h, 1e-2, -1.0 / k) == MIN_FACTOR


@pytest.mark.parametrize("name", ["RK45", "DOP853"])
def test_predictive_control_spares_rejected_steps_at_the_same_accuracy(name):
    """Three revolutions of an orbit of eccentricity 0.9: towards each perihelion the step must shrink
    steadily, and the standard controller, which assumes the last error constant, overshoots again and again
    (56 rejected steps with RK45, 59 with DOP853). The predictive one rejects at most a quarter as many
    (0 and 11), evaluates f at least 5 % less often (9 %, 24 %) and ends as close to the exact state (the
    start, after 3 periods of 2 pi) as the standard one, within 1.5x (1.26x, 0.58x)."""
    problem, y0, t_end = Kepler(1.0), kepler_start(0.9), 6 * np.pi
    runs = {}
    for control in ("standard", "predictive"):
        stepper = CompiledStepper(problem, name, 0.0, y0, t_end, rtol=1e-8, atol=1e-11, step_control=control)
        status, T, Y = steps(stepper, t_end)
        assert status == OK
        runs[control] = stepper.stats, np.max(np.abs(Y[-1] - y0))
    (standard, error_standard), (predictive, error_predictive) = runs["standard"], runs["predictive"]
    assert standard["rejected"] > 40 and predictive["rejected"] <= standard["rejected"] / 4
    assert predictive["rhs_evaluations"] < 0.95 * standard["rhs_evaluations"]
    assert error_predictive < 1.5 * error_standard and error_standard < 1e-3


def test_h_is_a_fixed_step_which_scipys_adaptive_solvers_refuse():
    """h means fixed steps of h on every stepper: the compiled one takes them with any tableau, scipy's adaptive
    solvers have none to take and say so (their first step is first_step)."""
    rhs = python_rhs(linear_rhs, DAMPED_ROTATION)
    with pytest.raises(ValueError, match=r"RK45 is adaptive: it takes no fixed step h \(give its first step as "
                                         r"first_step\)"):
        ScipyStepper(rhs, None, None, "RK45", 0.0, [1.0, 0.0], 1.0, h=0.1)
    _, T, _ = steps(ScipyStepper(rhs, None, None, "RK45", 0.0, [1.0, 0.0], 1.0, first_step=0.1), 1.0, max_steps=1)
    assert list(T) == [0.1]
    _, T, _ = steps(CompiledStepper(DAMPED_ROTATION, "RK45", 0.0, [1.0, 0.0], 1.0, h=0.3), 1.0)
    np.testing.assert_allclose(T, [0.3, 0.6, 0.9, 1.0], rtol=0, atol=1e-15)


@pytest.mark.parametrize("name", ["Euler", "RK4"])
def test_fixed_step_solver_for_scipy_matches_the_compiled_one(name):
    """FixedStep runs the Euler/RK4 tableaux as an OdeSolver: same grid, states, dense output."""
    rhs = python_rhs(linear_rhs, DAMPED_ROTATION)
    adapter = ScipyStepper(rhs, None, None, name, 0.0, [1.0, 0.0], 1.0, h=0.1)
    compiled = CompiledStepper(DAMPED_ROTATION, name, 0.0, [1.0, 0.0], 1.0, h=0.1)
    _, T, Y = steps(adapter, 1.0)
    _, T2, Y2 = steps(compiled, 1.0)
    np.testing.assert_array_equal(T, T2)          # the grid t0 + k h in both
    # the stage sums as BLAS calls or loops: each of the 10 steps' 4 stages may round differently (|y| <= 1)
    np.testing.assert_allclose(Y, Y2, rtol=0, atol=10 * 4 * EPS)
    np.testing.assert_allclose(adapter.dense(0.93), compiled.dense(0.93), rtol=0, atol=10 * 4 * EPS)
    assert adapter.stats["rhs_evaluations"] == compiled.stats["rhs_evaluations"]


# ----------------------------------------------------------------------------------- correction
def test_correction_after_every_step_and_at_outputs():
    """A rotating vector whose right-hand side also grows it by e^(0.3 t): renormalized after
    every step (and at every dense output) it is the pure rotation (cos t, sin t)."""
    problem = Circle(0.3)
    t_eval = np.linspace(0.0, 6.0, 301)[1:]
    stepper = CompiledStepper(problem, "RK45", 0.0, [1.0, 0.0], 6.0, rtol=1e-8, atol=1e-10)
    T, Y = np.empty(300), np.empty((300, 2))
    status, n = stepper.advance(6.0, 10 ** 5, False, t_eval, 0, T, Y)
    assert status == OK and n == 300
    np.testing.assert_allclose(np.hypot(Y[:, 0], Y[:, 1]), 1.0, rtol=1e-15)
    np.testing.assert_allclose(Y, np.column_stack([np.cos(T), np.sin(T)]), atol=1e-7)
    stats = stepper.stats
    assert stats["projections"] == stats["steps"] > 20
    assert stats["rhs_evaluations"] == 2 + 6 * (stats["steps"] + stats["rejected"]) + stats["projections"]
    dense = stepper.dense(0.5 * (stepper.t_old + stepper.t))       # the raw interpolant: not on the circle
    assert abs(np.hypot(*dense) - 1.0) > 1e-9


def test_bdf_and_lsoda_correct_their_outputs_only():
    problem = Circle(0.3)
    for solver in ("BDF", "LSODA"):
        adapter = ScipyStepper(python_rhs(circle_rhs, problem), python_correct(circle_correct, problem), None, solver,
                               0.0, [1.0, 0.0], 2.0, rtol=1e-8, atol=1e-10)
        T, Y = np.empty(5), np.empty((5, 2))
        status, n = adapter.advance(2.0, 10 ** 5, False, [0.5, 1.0, 1.5, 2.0], 0, T, Y)
        assert status == OK and n == 4 and not adapter.correctable
        np.testing.assert_allclose(np.hypot(Y[:n, 0], Y[:n, 1]), 1.0, rtol=1e-15)
        np.testing.assert_allclose(Y[:n], np.column_stack([np.cos(T[:n]), np.sin(T[:n])]), atol=1e-5)
        assert np.hypot(*adapter.solver.y) == pytest.approx(np.exp(0.6), rel=1e-5)   # its own state: uncorrected


# --------------------------------------------------------------------------------------- events
def test_crossing_rule():
    assert crossing(-1.0, 0.0, 0) and crossing(-1.0, 2.0, 1) and not crossing(-1.0, 2.0, -1)
    assert crossing(1.0, -2.0, -1) and crossing(1.0, 0.0, 0) and not crossing(1.0, -2.0, 1)
    assert not crossing(0.0, 1.0, 0) and not crossing(0.0, -1.0, 0) and not crossing(-1.0, -0.5, 0)


@pytest.mark.parametrize("direction, pair", [(0, 2), (1, 2), (-1, 3)])
def test_a_level_reached_and_left_inside_one_step_is_found_by_the_samples(direction, pair):
    """sin t reaches 0.99 at 1.429 and leaves it at 1.713, both inside the step [1, 2]: the
    samples at 1.2, 1.4, 1.6, 1.8 find the rise in pair 2 and the fall in pair 3."""
    problem = Sine(np.array([0.99]))
    stepper = CompiledStepper(problem, "DOP853", 1.0, [np.sin(1.0)], 2.0, h=1.0, n_events=1, directions=[direction])
    status, T, _ = steps(stepper, 2.0)
    assert status == EVENT and list(T) == [2.0] and stepper.crossed[0] == pair
    ta, tb = stepper.bracket(0)
    root = brentq(lambda t: stepper.dense(t)[0] - 0.99, ta, tb, xtol=1e-14)
    assert root == pytest.approx(np.arcsin(0.99) if pair == 2 else np.pi - np.arcsin(0.99), abs=1e-6)
    assert stepper.g_old[0] == stepper.y[0] - 0.99 and stepper.y[0] == pytest.approx(np.sin(2.0), abs=1e-9)
    blind = CompiledStepper(problem, "DOP853", 1.0, [np.sin(1.0)], 2.0, h=1.0, n_events=1, n_samples=0)
    assert steps(blind, 2.0)[0] == OK                              # without interior samples: missed


@pytest.mark.parametrize("kind", ["compiled", "scipy"])
def test_event_directions_restart_and_zeroed_g_old(kind):
    """Events sin t = 0.5 rising (pi/6) and falling (5 pi/6): each found in its own step with the
    outputs of that step recorded; restarted at the rise with y a hair below the level, the
    rising event fires again at once unless its g_old was zeroed."""
    problem = Sine(np.array([0.5, 0.5]))

    def make():
        if kind == "compiled":
            return CompiledStepper(problem, "RK45", 0.0, [0.0], 3.0, rtol=1e-8, atol=1e-10, n_events=2,
                                   directions=[1, -1])
        return ScipyStepper(python_rhs(sine_rhs, problem), None, python_events(sine_events, problem, 2), "RK45", 0.0,
                            [0.0], 3.0, rtol=1e-8, atol=1e-10, directions=[1, -1])

    stepper = make()
    status, T, _ = steps(stepper, 3.0)
    assert status == EVENT and T[-1] == stepper.t and list(stepper.crossed >= 0) == [True, False]
    rise = brentq(lambda t: stepper.dense(t)[0] - 0.5, *stepper.bracket(0), xtol=1e-14)
    assert rise == pytest.approx(np.pi / 6, abs=1e-7)
    status, _, _ = steps(stepper, 3.0)
    assert status == EVENT and list(stepper.crossed >= 0) == [False, True]
    assert brentq(lambda t: stepper.dense(t)[0] - 0.5, *stepper.bracket(1)) == pytest.approx(5 * np.pi / 6, abs=1e-7)
    assert steps(stepper, 3.0)[0] == OK
    for zeroed in (False, True):
        stepper = make()
        steps(stepper, 3.0)
        stepper.restart(rise, [0.5 - 1e-13])
        assert stepper.g_old[0] < 0 and stepper.t == stepper.t_old == rise
        if zeroed:
            stepper.g_old[0] = 0.0
        status, _, _ = steps(stepper, 3.0)
        assert status == EVENT
        assert list(stepper.crossed >= 0) == ([False, True] if zeroed else [True, False])


def test_locate_gives_the_earliest_root_and_its_events_and_nothing_stale_after_a_restart():
    """Stepper.locate after EVENT: the rise of sin t through 0.5 (pi/6), on the dense output to a few ulps of
    scipy's brentq there (each within 2 tolerances of ~4 ulp: locator.root), for the compiled stepper and a
    scipy one; after a restart, no stale crossing; two events at one instant are located together."""
    problem = Sine(np.array([0.5, 0.5]))
    compiled = CompiledStepper(problem, "RK45", 0.0, [0.0], 3.0, rtol=1e-8, atol=1e-10, n_events=2,
                               directions=[1, -1])
    scipy = ScipyStepper(python_rhs(sine_rhs, problem), None, python_events(sine_events, problem, 2), "RK45", 0.0,
                         [0.0], 3.0, rtol=1e-8, atol=1e-10, directions=[1, -1])
    for stepper in (compiled, scipy):
        assert steps(stepper, 3.0)[0] == EVENT
        t, which = stepper.locate()
        root = brentq(lambda t: stepper.dense(t)[0] - 0.5, *stepper.bracket(0), xtol=1e-15, rtol=4 * EPS)
        assert which == [0] and abs(t - root) <= 16 * np.spacing(root) and t == pytest.approx(np.pi / 6, abs=1e-7)
        stepper.restart(t, [0.5])
        assert stepper.locate() is None
    twins = CompiledStepper(problem, "RK45", 0.0, [0.0], 3.0, rtol=1e-8, atol=1e-10, n_events=2, directions=[1, 1])
    assert steps(twins, 3.0)[0] == EVENT and list(twins.crossed >= 0) == [True, True]
    t, which = twins.locate()
    assert which == [0, 1] and t == pytest.approx(np.pi / 6, abs=1e-7)


@pytest.mark.parametrize("settings, message", [
    (dict(n_events=2, directions=[1]), "directions must have 2 entries"),
    (dict(n_events=1, directions=[1, -1]), "directions must have 1 entries"),
    (dict(atol=[1e-8, -1e-8]), "atol must be non-negative"),
    (dict(n_samples=-1), "n_samples must be >= 0"),
    (dict(step_control="PI"), "step_control must be one of standard, predictive")])
def test_bad_stepper_settings_are_refused(settings, message):
    """new_state's checks: one direction per event (a single one is not spread over several), atol >= 0."""
    with pytest.raises(ValueError, match=message):
        new_state(TABLEAUX["RK45"], np.zeros(2), 1e-6, settings.pop("atol", 1e-8), **settings)


# ------------------------------------------------------------------------------ pause and resume
@pytest.mark.parametrize("name", ["RK45", "DOP853"])
def test_paused_runs_resume_bitwise(name):
    """A run paused by a full buffer or by its step budget (alternately 5 outputs / 7 steps and
    11 outputs / 3 steps), or advanced to t_eval points 5 steps at a time, equals the
    uninterrupted run bit for bit."""
    problem, y0 = Kepler(1.0), kepler_start(0.6)
    _, T_ref, Y_ref = steps(CompiledStepper(problem, name, 0.0, y0, 10.0, rtol=1e-8, atol=1e-10), 10.0)
    stepper = CompiledStepper(problem, name, 0.0, y0, 10.0, rtol=1e-8, atol=1e-10)
    parts, status = [], PAUSED
    while status == PAUSED:
        size, max_steps = (5, 7) if len(parts) % 2 else (11, 3)
        status, T, Y = steps(stepper, 10.0, max_steps=max_steps, size=size)
        parts.append((T, Y))
    assert status == OK and len(parts) > 8
    np.testing.assert_array_equal(np.concatenate([p[0] for p in parts]), T_ref)
    np.testing.assert_array_equal(np.concatenate([p[1] for p in parts]), Y_ref)
    t_eval = np.linspace(0.0, 10.0, 41)
    results = []
    for max_steps in (10 ** 6, 5):
        stepper = CompiledStepper(problem, name, 0.0, y0, 10.0, rtol=1e-8, atol=1e-10)
        T, Y = np.empty(41), np.empty((41, 4))
        status, n = PAUSED, 0
        while status == PAUSED:
            status, n = stepper.advance(10.0, max_steps, False, t_eval, n, T, Y)
        assert status == OK and n == 41 and T[0] == 0.0 and np.array_equal(Y[0], y0)
        results.append(Y)
    np.testing.assert_array_equal(results[0], results[1])


# ------------------------------------------------------------------------------------- failures
def test_failures_are_statuses():
    """y' = y^2 from y(0) = 1 blows up at t = 1: the step size collapses (STEP_TOO_SMALL, as
    scipy says), or the right-hand side's own failure code is handed back."""
    stepper = CompiledStepper(Blowup(np.inf), "RK45", 0.0, [1.0], 2.0, rtol=1e-6, atol=1e-9)
    status, T, _ = steps(stepper, 2.0)
    assert status == STEP_TOO_SMALL and 0.99 < stepper.t < 1.01 and "step size" in stepper.message
    adapter = ScipyStepper(python_rhs(blowup_rhs, Blowup(np.inf)), None, None, "RK45", 0.0, [1.0], 2.0, rtol=1e-6,
                           atol=1e-9)
    # the same steps up to rounding (STEP_RTOL), until both fall below scipy's smallest step, 10 ulp of t
    assert steps(adapter, 2.0)[0] == STEP_TOO_SMALL and adapter.t == pytest.approx(stepper.t, rel=STEP_RTOL)
    assert "step size" in adapter.message
    stepper = CompiledStepper(Blowup(10.0), "RK45", 0.0, [1.0], 2.0, rtol=1e-6, atol=1e-9)
    assert steps(stepper, 2.0)[0] == SINGULAR and stepper.t < 0.95


def test_a_division_by_zero_in_a_problem_is_non_finite():
    """Registered functions run with numpy's error model inside the integrator: 1 / 0 gives inf,
    reported as NON_FINITE, not an exception out of a compiled loop."""
    stepper = CompiledStepper(Reciprocal(1.0), "RK45", 0.0, [0.0], 1.0)
    assert stepper.start_status == NON_FINITE and steps(stepper, 1.0)[0] == NON_FINITE


# ------------------------------------------------------------------------------------- registry
def test_registry_and_cache_keys():
    """Numba sees a registered class as a stand-in of mechsim's registry module, named after a
    digest of its functions: its cache index never names a test module, and a stand-in this
    process does not know unpickles as a placeholder instead of failing."""
    problem_type = typeof(Circle(0.3))
    assert problem_type.instance_class.__module__ == registry.__name__
    assert b"ode_problems" not in pickle.dumps(problem_type)
    assert pickle.loads(pickle.dumps(problem_type)) == problem_type
    placeholder = getattr(registry, "Unknown_0123456789abcdef")
    assert placeholder.__module__ == registry.__name__ and pickle.loads(pickle.dumps(placeholder)) is placeholder
    with pytest.raises(AttributeError):
        registry.not_a_stand_in
    with pytest.raises(TypeError):
        register_problem(tuple, circle_rhs)
    from collections import namedtuple
    Unregistered = namedtuple("Unregistered", "k")
    with pytest.raises(TypingError, match="not a registered problem"):
        rk_start(Unregistered(1.0), TABLEAUX["RK45"], new_state("RK45", [1.0], 1e-3, 1e-6), 0.0, 1.0)


# ------------------------------------------------------------------------- events: the rate of an event
@pytest.mark.parametrize("direction", [0, 1, -1])
def test_a_level_reached_and_left_between_two_samples_is_found_at_its_rates_root(direction):
    """sin t is above 0.9999 only within 0.014 of pi/2, between the samples 1.4 and 1.6 of the step [1, 2]: the
    samples miss it, but with its rate (event function 1) the extremum there is found and beyond the level: the
    rise before it, the fall after it, located on the dense output (the first in the event's direction)."""
    from ode_problems import SineRate
    level = 0.9999
    stepper = CompiledStepper(SineRate(level), "DOP853", 1.0, [np.sin(1.0)], 2.0, h=1.0, n_events=1,
                              directions=[direction], rates=[1])
    status, T, _ = steps(stepper, 2.0)
    assert status == EVENT and list(T) == [2.0] and stepper.crossed[0] == 2
    exact = np.pi - np.arcsin(level) if direction < 0 else np.arcsin(level)
    start, end = stepper.bracket(0)                             # before or after the extremum, inside the pair
    assert 1.4 - 1e-15 <= start < exact < end <= 1.6 + 1e-15 and (start > 1.4) == (direction < 0)
    t, which = stepper.locate()
    rate = abs(np.cos(exact))
    assert which == [0] and abs(stepper.dense(t)[0] - level) <= 1e-9 * rate    # on the dense output to 1e-9 s
    # off the exact root by the dense output's error e there over the rate (first order); e's max on a grid of
    # 1e-3, doubled for between its points and the second order (sin'' dt^2 / 2)
    error = np.max(np.abs([stepper.dense(s)[0] - np.sin(s) for s in np.linspace(1.4, 1.6, 201)]))
    assert t == pytest.approx(exact, abs=2 * error / rate)
    blind = CompiledStepper(SineRate(level), "DOP853", 1.0, [np.sin(1.0)], 2.0, h=1.0, n_events=1)
    assert steps(blind, 2.0)[0] == OK                          # without the rate: missed
    with pytest.raises(ValueError, match="rates must have 1 entries"):
        new_state("RK45", [0.0], 1e-6, 1e-8, n_events=1, rates=[0, 1])
