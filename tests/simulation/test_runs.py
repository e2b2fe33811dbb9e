"""Runs of the driver on mechanisms (simulation/driver.py): accuracy against exact solutions and
scipy, conservation, dense output, drift correction, failures with partial results, chunked
resumption, backends and statistics, expressions kept compiled, threads."""
import threading
from pathlib import Path

import numpy as np
import pytest
from scipy.integrate import solve_ivp

import mechsim as ms
from mechsim.simulation.problem import derivative, system
from mechsim.simulation import driver

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def oscillator(x0=0.3, omega=2.0, mass=1.5):
    """A slider on a spring: x = x0 cos(omega t)."""
    m = ms.Model("oscillator", gravity=(0, 0, 0))
    m.add_body("slider", mass=mass, inertia=(0.1, 0.1, 0.1))
    m.add_joint("x", "prismatic", parent="ground", child="slider", axis=(1, 0, 0), q0=x0)
    m.add_force("spring", "joint_spring_damper", joint="x", stiffness=mass * omega ** 2)
    return m


def oscillator_error(res, x0=0.3, omega=2.0):
    exact = np.column_stack([x0 * np.cos(omega * res.t), -x0 * omega * np.sin(omega * res.t)])
    return np.abs(np.column_stack([res.q, res.v]) - exact).max()


def double_pendulum():
    m = ms.load(EXAMPLES / "double_pendulum.yaml")
    m.simulation = {}                        # not the file's output grid: every step
    return m


def double_pendulum_energy(res, g=9.81):
    """Two rods (1 kg, 1 m, Izz 0.0834, COM at mid-length) hanging along -y at q = 0."""
    (q1, q2), (w1, w2) = res.q.T, res.v.T
    a, b = q1, q1 + q2
    vx = np.cos(a) * w1 + 0.5 * np.cos(b) * (w1 + w2)          # COM velocity of the lower rod
    vy = np.sin(a) * w1 + 0.5 * np.sin(b) * (w1 + w2)
    kinetic = 0.5 * (0.25 * w1 ** 2 + vx ** 2 + vy ** 2) + 0.5 * 0.0834 * (w1 ** 2 + (w1 + w2) ** 2)
    potential = g * (-0.5 * np.cos(a) - np.cos(a) - 0.5 * np.cos(b))
    return kinetic + potential


def scipy_rhs(m):
    """dy/dt of a model as a Python function, for scipy's solvers (the same compiled kernel)."""
    cm = m.compile()
    problem = system(cm.arrays, cm.new_data(), cm.is_tree)

    def f(t, y):
        dy = np.empty_like(y)
        derivative(problem, t, y, dy)
        return dy
    return f


def y0_of(m):
    state = m.assemble()
    return np.concatenate([state.q, state.v])


# -------------------------------------------------------------------------------------- accuracy
def test_global_error_follows_the_tolerance_and_steps_grow_as_the_fifth_root():
    errors, steps = [], []
    for rtol in (1e-4, 1e-6, 1e-8, 1e-10):
        res = oscillator().simulate(t_end=10.0, rtol=rtol, atol=1e-3 * rtol)
        assert res.success and res.t[-1] == 10.0 and res.stats["backend"] == "compiled"
        errors.append(oscillator_error(res))
        steps.append(res.stats["steps"])
    errors, steps = np.array(errors), np.array(steps)
    assert np.all(errors < 10 * np.array([1e-4, 1e-6, 1e-8, 1e-10]))
    assert np.all(np.diff(np.log10(errors)) < -1.5)              # ~2 decades per 2 decades of rtol
    # a 5th-order method needs 100^(1/5) = 2.5 times the steps for a 100 times smaller error
    assert np.all((steps[1:] / steps[:-1] > 2.0) & (steps[1:] / steps[:-1] < 3.2)), steps


@pytest.mark.parametrize("solver", ["RK23", "RK45", "DOP853"])
def test_compiled_runs_take_scipys_steps_on_the_double_pendulum(solver):
    """step_control="standard" (the default, asked for here by name): scipy's step-size rule, so scipy's
    steps (the predictive control spares rejected steps: tests/integrators/test_steppers.py)."""
    m = double_pendulum()
    res = m.simulate(t_end=5.0, solver=solver, rtol=1e-8, atol=1e-8, step_control="standard")
    ref = solve_ivp(scipy_rhs(m), (0.0, 5.0), y0_of(m), method=solver, rtol=1e-8, atol=1e-8)
    assert res.stats["rhs_evaluations"] == ref.nfev and len(res.t) == len(ref.t)
    np.testing.assert_allclose(res.t, ref.t, rtol=1e-7)     # up to rounding (integrators/explicit.py: combine)
    np.testing.assert_allclose(np.column_stack([res.q, res.v]), ref.y.T, atol=1e-7)


@pytest.mark.parametrize("backend", ["compiled", "python"])
@pytest.mark.parametrize("solver", ["RK45", "DOP853"])
def test_h_is_an_adaptive_solvers_first_step_on_both_backends(solver, backend):
    """h is the step of Euler and RK4 and an adaptive solver's first step (solve_ivp's first_step), on either
    backend: the steps are then scipy's from that first step. (The compiled backend took it as a fixed step
    without error control: 20 000 steps here.)"""
    m = double_pendulum()
    res = m.simulate(t_end=2.0, solver=solver, h=1e-4, rtol=1e-8, atol=1e-8, backend=backend)
    ref = solve_ivp(scipy_rhs(m), (0.0, 2.0), y0_of(m), method=solver, rtol=1e-8, atol=1e-8, first_step=1e-4)
    assert res.stats["backend"] == backend and res.t[1] == pytest.approx(1e-4, rel=1e-12)
    # scipy's steps, not 20 000 fixed ones: from a first step this small the error estimates are near rounding,
    # so the step sizes agree to ~1e-6 only (152 steps with RK45, 59 with DOP853, on a Zen 3), and the states
    # where both runs end, to their global error (rtol 1e-8)
    assert abs(len(res.t) - len(ref.t)) <= 2 and len(res.t) < 1000
    np.testing.assert_allclose(np.append(res.q[-1], res.v[-1]), ref.y[:, -1], atol=1e-6)


def test_a_first_step_beyond_the_span_is_the_span():
    """An adaptive solver's first step h longer than the run is cut to the run's span on both backends (scipy
    refuses such a first_step)."""
    m = double_pendulum()
    runs = [m.simulate(t_end=0.01, solver="RK45", h=1.0, backend=b) for b in ("compiled", "python")]
    for run in runs:
        assert run.t[-1] == 0.01 and run.stats["steps"] >= 1
    np.testing.assert_allclose(runs[0].q[-1], runs[1].q[-1], atol=1e-9)


def test_backends_agree():
    m = double_pendulum()
    t_eval = np.linspace(0, 3, 31)
    runs = [m.simulate(t_end=3.0, t_eval=t_eval, rtol=1e-9, atol=1e-9, backend=b) for b in ("compiled", "python")]
    assert [r.stats["backend"] for r in runs] == ["compiled", "python"]
    np.testing.assert_allclose(runs[0].q, runs[1].q, atol=1e-7)
    for key in ("steps", "rejected", "rhs_evaluations", "projections", "events", "wall_time"):
        assert key in runs[0].stats


def test_double_pendulum_energy_is_conserved_at_tight_tolerance():
    res = double_pendulum().simulate(t_end=10.0, rtol=1e-10, atol=1e-12)
    energy = double_pendulum_energy(res)
    assert len(res.t) > 1000 and np.abs(energy - energy[0]).max() < 1e-8


@pytest.mark.parametrize("solver", ["Euler", "RK4"])
def test_fixed_step_runs_converge_at_their_order(solver):
    errors = [oscillator_error(oscillator().simulate(t_end=2.0, solver=solver, h=h)) for h in (1e-2, 5e-3)]
    assert np.log2(errors[0] / errors[1]) == pytest.approx({"Euler": 1, "RK4": 4}[solver], abs=0.3)


def test_max_step_bounds_every_step():
    res = oscillator().simulate(t_end=2.0, rtol=1e-3, max_step=0.01)
    assert np.diff(res.t).max() <= 0.01 * (1 + 1e-12) and len(res.t) >= 201


# ---------------------------------------------------------------------------------- dense output
def test_dense_output_agrees_with_runs_ending_at_the_output_times():
    m = double_pendulum()
    tol = dict(rtol=1e-9, atol=1e-11)
    t_eval = np.array([0.0, 0.137, 0.5, 1.234, 2.0, 2.71828, 3.0])
    res = m.simulate(t_end=3.0, t_eval=t_eval, **tol)
    assert np.array_equal(res.t, t_eval)
    for k, t in enumerate(t_eval[1:], 1):
        hit = m.simulate(t_end=t, **tol)
        assert np.abs(res.q[k] - hit.q[-1]).max() < 1e-7
    steps = m.simulate(t_end=3.0, **tol)
    assert np.array_equal(res.q[-1], steps.q[-1])                   # outputs do not change the steps


@pytest.mark.parametrize("solver", ["RK45", "DOP853"])
def test_dense_output_is_as_accurate_as_the_steps(solver):
    t_eval = np.linspace(0.0, 10.0, 1001)
    dense = oscillator().simulate(t_end=10.0, t_eval=t_eval, solver=solver, rtol=1e-8, atol=1e-11)
    steps = oscillator().simulate(t_end=10.0, solver=solver, rtol=1e-8, atol=1e-11)
    assert oscillator_error(dense) < 3 * oscillator_error(steps) + 1e-9


# ------------------------------------------------------------------------------ drift correction
@pytest.mark.parametrize("dense", [False, True])
def test_quaternions_stay_unit_at_every_output(dense):
    m = ms.load(EXAMPLES / "spherical_pendulum_flywheel.yaml")
    m.simulation = {}
    res = m.simulate(t_end=5.0, rtol=1e-5, atol=1e-8, t_eval=np.linspace(0.0, 5.0, 333) if dense else None)
    qi = m.compile().quat_q[0]
    assert len(res.t) > 50 and np.abs(np.linalg.norm(res.q[:, qi:qi + 4], axis=1) - 1.0).max() < 1e-12


def test_without_correction_the_quaternion_would_drift():
    """The run above is a real check: the same tolerances without the correction leave the unit sphere."""
    m = ms.load(EXAMPLES / "spherical_pendulum_flywheel.yaml")
    free = solve_ivp(scipy_rhs(m), (0.0, 5.0), y0_of(m), method="RK45", rtol=1e-5, atol=1e-8)
    qi = m.compile().quat_q[0]
    assert np.abs(np.linalg.norm(free.y[qi:qi + 4].T, axis=1) - 1.0).max() > 1e-9


# -------------------------------------------------------------------------------------- failures
def test_singular_mass_matrix_fails_with_the_partial_run():
    m = ms.Model("needle", gravity=(0, 0, -9.81))
    m.add_body("needle", mass=1.0, com=(0, 0, 0.3), inertia=(1.0, 1.0, 0.0))   # no inertia about its axis z
    m.add_joint("spin", "revolute", parent="ground", child="needle", axis=(0, 0, 1))
    with pytest.raises(ms.SimulationError, match="singular mass matrix at joint 'spin'") as info:
        m.simulate(t_end=1.0)
    assert len(info.value.partial.t) >= 1


@pytest.mark.parametrize("dense", [False, True])
def test_state_overflow_keeps_the_finite_part_of_the_run(dense):
    m = ms.Model("unstable", gravity=(0, 0, 0))      # q grows like cosh(100 t) and overflows at t ~ 7.09
    m.add_body("rotor", mass=1.0, inertia=(1.0, 1.0, 1.0))
    m.add_joint("spin", "revolute", parent="ground", child="rotor", axis=(0, 0, 1), q0=1.0)
    m.add_force("spring", "joint_spring_damper", joint="spin", stiffness=-100.0 ** 2)
    t_eval = np.linspace(0.0, 10.0, 10001) if dense else None
    with pytest.raises(ms.SimulationError, match="non-finite") as info:
        m.simulate(t_end=10.0, rtol=1e-6, t_eval=t_eval)
    partial = info.value.partial
    assert 6.5 < partial.t[-1] < 7.2 and np.all(np.isfinite(partial.q)) and np.abs(partial.q[-1]).max() > 1e250
    if dense:
        assert np.array_equal(partial.t, t_eval[:len(partial.t)])


def test_step_below_the_resolution_of_t_fails():
    m = oscillator()
    start = ms.State(m.compile(), [0.3], [0.0], t=1e10)
    with pytest.raises(ms.SimulationError, match="step size"):
        m.simulate(t_end=1e10 + 1.0, max_step=1e-6, initial=start)


# ------------------------------------------------------------------------------------- resuming
@pytest.mark.parametrize("dense", [False, True])
def test_small_chunks_resume_bitwise(dense, monkeypatch):
    m = double_pendulum()
    t_eval = np.linspace(0.0, 5.0, 77) if dense else None
    large = m.simulate(t_end=5.0, rtol=1e-7, atol=1e-9, t_eval=t_eval)
    monkeypatch.setattr(driver, "CHUNK", 7)
    small = m.simulate(t_end=5.0, rtol=1e-7, atol=1e-9, t_eval=t_eval)
    assert np.array_equal(small.t, large.t) and np.array_equal(small.q, large.q)


# ---------------------------------------------------------------------------- compiled run paths
def constant_force_pendulum(value):
    m = double_pendulum()
    m.add_force("push", "joint_force", joint=m.compile().joint_order[0], value=value)
    return m


def test_an_expression_force_runs_compiled_and_as_the_constant():
    constant = constant_force_pendulum(0.5).simulate(t_end=5.0, solver="RK45", rtol=1e-8, atol=1e-8)
    expression = constant_force_pendulum("0.5 + 0*t").simulate(t_end=5.0, solver="RK45", rtol=1e-8, atol=1e-8)
    assert expression.stats["backend"] == "compiled"
    assert np.array_equal(expression.t, constant.t) and np.array_equal(expression.q, constant.q)
    assert expression.stats["rhs_evaluations"] == constant.stats["rhs_evaluations"]


def test_a_driver_given_as_an_expression_runs_compiled_with_exact_derivatives():
    m = ms.load(EXAMPLES / "four_bar.yaml")
    m.add_driver("j1", position="1.5708 + 0.5*sin(3*t)")
    res = m.simulate(t_end=2.0, rtol=1e-9, atol=1e-9)
    assert res.stats["backend"] == "compiled"
    np.testing.assert_allclose(res["j1.q"], 1.5708 + 0.5 * np.sin(3 * res.t), atol=1e-9)
    np.testing.assert_allclose(res["j1.v"], 1.5 * np.cos(3 * res.t), atol=1e-8)


def test_python_callables_run_on_the_python_backend_and_compiled_is_refused():
    m = constant_force_pendulum(lambda t: 0.5)
    res = m.simulate(t_end=1.0)
    assert res.stats["backend"] == "python"
    with pytest.raises(ms.MechsimError, match="backend='compiled' is not possible.*force 'push'"):
        m.simulate(t_end=1.0, backend="compiled")


def test_sampled_controller_runs_compiled():
    m = oscillator()
    m.add_input("u")
    m.add_force("motor", "joint_force", joint="x", value="u")
    res = m.simulate(t_end=2.0, controller=lambda t, y: {"u": -3.0 * y["x.v"]}, sample_time=0.01)
    assert res.stats["backend"] == "compiled" and abs(res["x.q"][-1]) < 0.3 * 0.5


def test_two_threads_on_one_compiled_model_give_the_sequential_results():
    m = ms.load(EXAMPLES / "four_bar.yaml")
    m.compile()
    settings = [dict(t_end=3.0, rtol=1e-8, atol=1e-8), dict(t_end=3.0, rtol=1e-6, atol=1e-6, solver="DOP853")]
    sequential = [m.simulate(**s) for s in settings]
    threaded = [None, None]

    def run(k):
        threaded[k] = m.simulate(**settings[k])
    threads = [threading.Thread(target=run, args=(k,)) for k in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    for a, b in zip(sequential, threaded):
        assert np.array_equal(a.t, b.t) and np.array_equal(a.q, b.q) and np.array_equal(a.v, b.v)


def test_a_users_own_ode_solver_class_is_accepted():
    from scipy.integrate import RK45

    class MyRK45(RK45):
        """A user's solver: scipy's RK45 under another name."""
    m = double_pendulum()
    mine = m.simulate(t_end=2.0, solver=MyRK45, rtol=1e-8, atol=1e-8)
    compiled = m.simulate(t_end=2.0, solver="RK45", rtol=1e-8, atol=1e-8)
    assert mine.stats["backend"] == "python" and mine.stats["solver"] == "MyRK45"
    np.testing.assert_allclose(mine.q[-1], compiled.q[-1], atol=1e-7)
    with pytest.raises(ms.MechsimError, match="solver="):
        m.simulate(t_end=1.0, solver=dict)


def test_predictive_step_control_spares_the_four_bars_rejected_steps():
    """The four-bar of Khan, Tang & Krovi (2006) over 10 s (34 crank turns), DOP853 at 1e-9: with scipy's rule
    each speed-up of the crank towards its fast passage costs a run of rejected steps (626 of 2245 attempts);
    step_control="predictive" reaches the stepper and spares two thirds of them and > 10 % of the evaluations,
    at the same accuracy against the independent reference (Lagrange's equation in the crank angle)."""
    from mechsim.bench import loops, models
    model = models.four_bar(loops.FOUR_BAR, loops.four_bar_initial())
    runs = {control: model.simulate(t_end=10.0, solver="DOP853", rtol=1e-9, atol=1e-9, step_control=control)
            for control in ("standard", "predictive")}
    standard, predictive = runs["standard"].stats, runs["predictive"].stats
    assert standard["rejected"] > 500 and predictive["rejected"] < standard["rejected"] / 2
    assert predictive["rhs_evaluations"] < 0.9 * standard["rhs_evaluations"]
    crank = loops.four_bar_reference_at(10.0)
    for res in runs.values():
        assert abs(res["j1.q"][-1] - crank) < 1e-6
