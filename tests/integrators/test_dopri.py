"""The compiled Dormand–Prince 5(4) integrator (integrators/dopri.py): accuracy against exact
solutions and scipy's RK45, conservation, dense output, drift correction, failures, resumption."""
from pathlib import Path

import numpy as np
import pytest
from scipy.integrate import solve_ivp

import mechsim as ms
from mechsim.dynamics.system import derivative, make_system
from mechsim.integrators.dopri import NON_FINITE, OK, STEP_TOO_SMALL, integrate_compiled

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def system_of(m):
    cm = m.compile()
    return make_system(cm), np.concatenate([cm.q0, cm.v0]), cm


def oscillator(x0=0.3, omega=2.0, mass=1.5):
    """A slider on a spring: x = x0 cos(omega t)."""
    m = ms.Model("oscillator", gravity=(0, 0, 0))
    m.add_body("slider", mass=mass, inertia=(0.1, 0.1, 0.1))
    m.add_joint("x", "prismatic", parent="ground", child="slider", axis=(1, 0, 0), q0=x0)
    m.add_force("spring", "joint_spring_damper", joint="x", stiffness=mass * omega ** 2)
    return system_of(m)


def oscillator_error(times, Y, x0=0.3, omega=2.0):
    exact = np.column_stack([x0 * np.cos(omega * times), -x0 * omega * np.sin(omega * times)])
    return np.abs(Y - exact).max()


def double_pendulum():
    return system_of(ms.load(EXAMPLES / "double_pendulum.yaml"))


def double_pendulum_energy(Y, g=9.81):
    """Two rods (1 kg, 1 m, Izz 0.0834, COM at mid-length) hanging along -y at q = 0."""
    q1, q2, w1, w2 = Y.T
    a, b = q1, q1 + q2
    vx = np.cos(a) * w1 + 0.5 * np.cos(b) * (w1 + w2)          # COM velocity of the lower rod
    vy = np.sin(a) * w1 + 0.5 * np.sin(b) * (w1 + w2)
    kinetic = 0.5 * (0.25 * w1 ** 2 + vx ** 2 + vy ** 2) + 0.5 * 0.0834 * (w1 ** 2 + (w1 + w2) ** 2)
    potential = g * (-0.5 * np.cos(a) - np.cos(a) - 0.5 * np.cos(b))
    return kinetic + potential


# -------------------------------------------------------------------------------------- accuracy
def test_global_error_follows_the_tolerance_and_steps_grow_as_the_fifth_root():
    sys, y0, _ = oscillator()
    errors, steps = [], []
    for rtol in (1e-4, 1e-6, 1e-8, 1e-10):
        counts = {}
        times, Y, status, _ = integrate_compiled(sys, 0.0, y0, 10.0, rtol=rtol, atol=1e-3 * rtol, counts=counts)
        assert status == OK and times[-1] == 10.0
        errors.append(oscillator_error(times, Y))
        steps.append(counts["n_accepted"])
    errors, steps = np.array(errors), np.array(steps)
    assert np.all(errors < 10 * np.array([1e-4, 1e-6, 1e-8, 1e-10]))
    assert np.all(np.diff(np.log10(errors)) < -1.5)              # ~2 decades per 2 decades of rtol
    assert errors[-1] < 1e-9
    # a 5th-order method needs 100^(1/5) = 2.5 times the steps for a 100 times smaller error
    assert np.all((steps[1:] / steps[:-1] > 2.0) & (steps[1:] / steps[:-1] < 3.2)), steps


def test_agrees_with_scipy_rk45_on_the_double_pendulum():
    sys, y0, _ = double_pendulum()
    t_eval = np.linspace(0.0, 10.0, 101)
    counts = {}
    times, Y, status, _ = integrate_compiled(sys, 0.0, y0, 10.0, rtol=1e-6, atol=1e-9, t_eval=t_eval,
                                             counts=counts)

    def rhs(t, y):
        dy = np.empty_like(y)
        derivative(sys, t, y, dy)
        return dy

    reference = solve_ivp(rhs, (0.0, 10.0), y0, method="RK45", rtol=1e-6, atol=1e-9, t_eval=t_eval)
    assert status == OK and np.array_equal(times, t_eval)
    scale = 1e-9 + 1e-6 * np.abs(reference.y).max(axis=1)           # the tolerance scale of each component
    assert np.all(np.abs(Y - reference.y.T) < scale)                  # (measured: 0.1 of it, chaos included)
    assert abs(counts["nfev"] - reference.nfev) <= 0.05 * reference.nfev


def test_double_pendulum_energy_is_conserved_at_tight_tolerance():
    sys, y0, _ = double_pendulum()
    times, Y, status, _ = integrate_compiled(sys, 0.0, y0, 10.0, rtol=1e-10, atol=1e-12)
    energy = double_pendulum_energy(Y)
    assert status == OK and len(times) > 1000
    assert np.abs(energy - energy[0]).max() < 1e-8


def test_max_step_bounds_every_step():
    sys, y0, _ = oscillator()
    times, _, status, _ = integrate_compiled(sys, 0.0, y0, 2.0, rtol=1e-3, max_step=0.01)
    assert status == OK and np.diff(times).max() <= 0.01 * (1 + 1e-12) and len(times) >= 201


# ---------------------------------------------------------------------------------- dense output
def test_dense_output_agrees_with_runs_ending_at_the_output_times():
    sys, y0, _ = double_pendulum()
    tol = dict(rtol=1e-9, atol=1e-11)
    t_eval = np.array([0.0, 0.137, 0.5, 1.234, 2.0, 2.71828, 3.0])
    times, Y, status, _ = integrate_compiled(sys, 0.0, y0, 3.0, t_eval=t_eval, **tol)
    assert status == OK and np.array_equal(times, t_eval) and np.array_equal(Y[0], y0)
    for t, y in zip(t_eval[1:], Y[1:]):
        _, Y_hit, _, _ = integrate_compiled(sys, 0.0, y0, t, **tol)
        assert np.abs(y - Y_hit[-1]).max() < 1e-7
    _, Y_steps, _, _ = integrate_compiled(sys, 0.0, y0, 3.0, **tol)
    assert np.array_equal(Y[-1], Y_steps[-1])                       # outputs do not change the steps


def test_dense_output_is_as_accurate_as_the_steps():
    sys, y0, _ = oscillator()
    t_eval = np.linspace(0.0, 10.0, 1001)
    times, Y, status, _ = integrate_compiled(sys, 0.0, y0, 10.0, rtol=1e-8, atol=1e-11, t_eval=t_eval)
    _, Y_steps, _, _ = integrate_compiled(sys, 0.0, y0, 10.0, rtol=1e-8, atol=1e-11)
    assert status == OK
    assert oscillator_error(times, Y) < 3 * oscillator_error(times[-1:], Y_steps[-1:]) + 1e-9


# ------------------------------------------------------------------------------ drift correction
@pytest.mark.parametrize("dense", [False, True])
def test_quaternions_stay_unit_at_every_output(dense):
    sys, y0, cm = system_of(ms.load(EXAMPLES / "spherical_pendulum_flywheel.yaml"))
    t_eval = np.linspace(0.0, 5.0, 333) if dense else None
    times, Y, status, _ = integrate_compiled(sys, 0.0, y0, 5.0, rtol=1e-5, atol=1e-8, t_eval=t_eval)
    quaternions = Y[:, cm.quat_q[0]:cm.quat_q[0] + 4]
    assert status == OK and len(times) > 50
    assert np.abs(np.linalg.norm(quaternions, axis=1) - 1.0).max() < 1e-12


def test_without_correction_the_quaternion_would_drift():
    """The run above is a real check: the same tolerances without correct() leave the unit sphere."""
    sys, y0, cm = system_of(ms.load(EXAMPLES / "spherical_pendulum_flywheel.yaml"))

    def rhs(t, y):
        dy = np.empty_like(y)
        derivative(sys, t, y, dy)
        return dy

    free = solve_ivp(rhs, (0.0, 5.0), y0, method="RK45", rtol=1e-5, atol=1e-8)
    quaternions = free.y[cm.quat_q[0]:cm.quat_q[0] + 4].T
    assert np.abs(np.linalg.norm(quaternions, axis=1) - 1.0).max() > 1e-9


# -------------------------------------------------------------------------------------- failures
def test_singular_mass_matrix_returns_the_derivative_status():
    m = ms.Model("needle", gravity=(0, 0, -9.81))
    m.add_body("needle", mass=1.0, com=(0, 0, 0.3), inertia=(1.0, 1.0, 0.0))   # no inertia about its axis z
    m.add_joint("spin", "revolute", parent="ground", child="needle", axis=(0, 0, 1))
    sys, y0, _ = system_of(m)
    times, Y, status, message = integrate_compiled(sys, 0.0, y0, 1.0, rtol=1e-6)
    assert status == 0 and "status 0" in message                    # node 0 is singular
    assert np.array_equal(times, [0.0]) and np.array_equal(Y, [y0])


def unstable_rotor(omega=100.0):
    """A rotor on a spring of negative stiffness: q grows like cosh(omega t) and overflows at
    t ~ 709 / omega."""
    m = ms.Model("unstable", gravity=(0, 0, 0))
    m.add_body("rotor", mass=1.0, inertia=(1.0, 1.0, 1.0))
    m.add_joint("spin", "revolute", parent="ground", child="rotor", axis=(0, 0, 1), q0=1.0)
    m.add_force("spring", "joint_spring_damper", joint="spin", stiffness=-omega ** 2)
    return system_of(m)


@pytest.mark.parametrize("dense", [False, True])
def test_state_overflow_returns_the_partial_run(dense):
    sys, y0, _ = unstable_rotor()
    t_eval = np.linspace(0.0, 10.0, 10001) if dense else None
    times, Y, status, message = integrate_compiled(sys, 0.0, y0, 10.0, rtol=1e-6, t_eval=t_eval)
    assert status == NON_FINITE and "non-finite" in message
    assert 6.5 < times[-1] < 7.2 and np.all(np.isfinite(Y)) and np.abs(Y[-1]).max() > 1e250
    if dense:
        assert np.array_equal(times, t_eval[:len(times)])


def test_step_below_the_resolution_of_t_fails():
    sys, y0, _ = oscillator()
    times, _, status, message = integrate_compiled(sys, 1e10, y0, 1e10 + 1.0, max_step=1e-6)
    assert status == STEP_TOO_SMALL and "step size" in message and np.array_equal(times, [1e10])


# ------------------------------------------------------------------------------------- resuming
@pytest.mark.parametrize("dense", [False, True])
def test_small_chunks_resume_bitwise(dense):
    sys, y0, _ = double_pendulum()
    t_eval = np.linspace(0.0, 5.0, 77) if dense else None
    seen = []
    small = integrate_compiled(sys, 0.0, y0, 5.0, rtol=1e-7, atol=1e-9, t_eval=t_eval, progress=seen.append,
                               chunk=7)
    large = integrate_compiled(sys, 0.0, y0, 5.0, rtol=1e-7, atol=1e-9, t_eval=t_eval, chunk=100000)
    assert small[2] == large[2] == OK
    assert np.array_equal(small[0], large[0]) and np.array_equal(small[1], large[1])
    assert len(seen) > 20 and np.all(np.diff(seen) > 0) and seen[-1] == 5.0


# ---------------------------------------------------------------------------------------- DOP853
def scipy_rhs(sys):
    def f(t, y):
        dy = np.empty_like(y)
        derivative(sys, t, y, dy)
        return dy
    return f


@pytest.mark.parametrize("rtol", [1e-6, 1e-10])
def test_dop853_takes_scipys_steps(rtol):
    """The compiled DOP853 follows scipy's DOP853: on the chaotic double pendulum the same number
    of f evaluations and steps, with step sizes equal but for rounding in the error norm; on the
    oscillator the same error against the exact solution."""
    sys, y0, _ = double_pendulum()
    counts = {}
    times, Y, status, _ = integrate_compiled(sys, 0.0, y0, 5.0, "DOP853", rtol, rtol, counts=counts)
    ref = solve_ivp(scipy_rhs(sys), (0.0, 5.0), y0, method="DOP853", rtol=rtol, atol=rtol)
    assert status == OK and counts["nfev"] == ref.nfev and len(times) == len(ref.t)
    np.testing.assert_allclose(times, ref.t, rtol=1e-6)
    sys, y0, _ = oscillator()
    times, Y, status, _ = integrate_compiled(sys, 0.0, y0, 10.0, "DOP853", rtol, rtol)
    ref = solve_ivp(scipy_rhs(sys), (0.0, 10.0), y0, method="DOP853", rtol=rtol, atol=rtol)
    assert oscillator_error(times, Y) == pytest.approx(oscillator_error(ref.t, ref.y.T), rel=0.2)


def test_dop853_dense_output_is_seventh_order_accurate():
    sys, y0, _ = oscillator()
    t_eval = np.linspace(0.0, 10.0, 337)
    times, Y, status, _ = integrate_compiled(sys, 0.0, y0, 10.0, "DOP853", 1e-11, 1e-13, t_eval=t_eval)
    assert status == OK and np.array_equal(times, t_eval)
    assert oscillator_error(times, Y) < 1e-9
