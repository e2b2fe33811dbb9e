"""The Runge–Kutta tableaux (integrators/tableaux.py) and the compiled loop running them on plain
ODEs: consistency, the published coefficients (scipy's copies of them), measured orders of the
methods and of their dense outputs, a Kepler orbit, a stiff equation."""
import numpy as np
import pytest
from scipy.integrate import DOP853, RK23, RK45
from scipy.integrate._ivp import dop853_coefficients

from ode_problems import (DAMPED_ROTATION, Kepler, Linear, Stiff, damped_rotation, kepler_rhs, kepler_start, python_rhs,
                          stiff_exact, stiff_rhs)
from mechsim.integrators import TABLEAUX, CompiledStepper, ScipyStepper, new_state
from mechsim.status import OK

ORDERS = {"Euler": 1, "RK4": 4, "RK23": 3, "RK45": 5, "DOP853": 8}
DENSE_ORDERS = {"Euler": 1, "RK4": 3, "RK23": 3, "RK45": 4, "DOP853": 7}
DECAY = Linear(np.array([[-2.0]]))                 # y' = -2 y: DOP853's errors stay above round-off
LADDERS = {"Euler": [0.02, 0.01, 0.005, 0.0025], "RK4": [0.2, 0.1, 0.05, 0.025], "RK23": [0.2, 0.1, 0.05, 0.025],
           "RK45": [0.4, 0.2, 0.1, 0.05], "DOP853": [1.0, 0.5, 0.25, 0.125]}


def run(problem, method, y0, t_end, t_eval=None, **options):
    """(T, Y, stepper) of a compiled run to t_end: every step, or the t_eval points."""
    stepper = CompiledStepper(problem, method, 0.0, y0, t_end, **options)
    size = 100000 if t_eval is None else len(t_eval)
    T, Y = np.empty(size), np.empty((size, len(y0)))
    status, n = stepper.advance(t_end, 10 ** 7, t_eval is None, t_eval, 0, T, Y)
    assert status == OK
    return T[:n], Y[:n], stepper


# ------------------------------------------------------------------------------------- the data
@pytest.mark.parametrize("name", list(TABLEAUX))
def test_tableau_is_consistent(name):
    tab = TABLEAUX[name]
    n, S = tab.n_stages, tab.A.shape[0]
    assert np.allclose(tab.A.sum(axis=1), tab.c, atol=1e-15) and np.all(np.triu(tab.A) == 0)
    assert tab.b.sum() == pytest.approx(1.0, abs=1e-15) and np.array_equal(tab.A[n, :n], tab.b) and tab.c[n] == 1
    assert tab.e.sum() == pytest.approx(0.0, abs=1e-15) and tab.adaptive == bool(np.any(tab.e))
    # dense output: y(t_old) = y_old, slope f_old at x = 0, and y_new = y_old + h sum b K at x = 1
    assert tab.P.shape[0] == S and np.array_equal(tab.P[:, 0] != 0, np.arange(S) == 0) and tab.P[0, 0] == 1
    end = np.zeros(S)
    end[:n] = tab.b
    np.testing.assert_allclose(tab.P.sum(axis=1), end, atol=1e-13)
    assert all(not a.flags.writeable for a in (tab.A, tab.b, tab.c, tab.e, tab.e3, tab.P))


def test_coefficients_are_the_published_ones_as_in_scipy():
    """Our transcriptions equal scipy's copies bit for bit (e: b - b_hat, scipy's E: b_hat - b)."""
    for name, solver in (("RK23", RK23), ("RK45", RK45)):
        tab, n = TABLEAUX[name], solver.n_stages
        assert np.array_equal(tab.A[:n, :solver.A.shape[1]], solver.A) and np.array_equal(tab.b, solver.B)
        assert np.array_equal(tab.c[:n], solver.C) and np.array_equal(tab.e, -solver.E)
        assert tab.order == solver.order and tab.error_order == solver.error_estimator_order
    np.testing.assert_array_equal(TABLEAUX["RK45"].P, RK45.P)
    np.testing.assert_array_equal(TABLEAUX["RK23"].P, RK23.P)
    tab, d = TABLEAUX["DOP853"], dop853_coefficients
    assert np.array_equal(tab.A, d.A) and np.array_equal(tab.c, d.C) and np.array_equal(tab.b, d.B)
    assert np.array_equal(tab.e, d.E5) and np.array_equal(tab.e3, d.E3)
    assert tab.error_order == DOP853.error_estimator_order and tab.dop853_norm


def test_dop853_dense_output_is_scipys():
    """Our power form of DOP853's dense output (from its D coefficients) evaluates as scipy's
    nested form on the same step (scipy started with the compiled loop's first step)."""
    problem, y0 = Kepler(1.0), kepler_start()
    stepper = CompiledStepper(problem, "DOP853", 0.0, y0, 10.0, rtol=1e-4, atol=1e-7)
    T, Y = np.empty(1), np.empty((1, 4))
    assert stepper.advance(10.0, 1, True, None, 0, T, Y)[0] in (OK, -1000)
    solver = DOP853(python_rhs(kepler_rhs, problem), 0.0, y0, 10.0, rtol=1e-4, atol=1e-7, first_step=stepper.t)
    solver.step()
    assert stepper.t == solver.t
    interpolant = solver.dense_output()
    for t in np.linspace(stepper.t_old, stepper.t, 7):
        np.testing.assert_allclose(stepper.dense(t), interpolant(t), rtol=1e-13, atol=1e-15)
    # both: 3 extra stages for the dense output; the compiled loop also chose the first step (1 more)
    assert stepper.stats["rhs_evaluations"] == solver.nfev + 1


# ------------------------------------------------------------------------------ measured orders
@pytest.mark.parametrize("name", list(TABLEAUX))
def test_measured_orders_of_method_and_dense_output(name):
    """Fixed steps h over [0, 2] on y' = -2 y and on y' = M y (a damped rotation): the error at
    t = 2 falls as h^p, the error of the dense output at 0.3 h and 0.7 h inside every step as h^q
    with q >= the order of the continuous extension (slopes between the two smallest steps)."""
    for problem, y0, exact in ((DECAY, [1.0], lambda t: np.exp(-2 * np.asarray(t))[:, None]),
                               (DAMPED_ROTATION, [1.0, 0.0], damped_rotation)):
        errors, dense_errors = [], []
        for h in LADDERS[name]:
            grid = h * np.arange(int(round(2.0 / h)))
            t_eval = np.sort(np.concatenate([grid + 0.3 * h, grid + 0.7 * h]))
            T, Y, stepper = run(problem, name, y0, 2.0, t_eval, h=h)
            assert stepper.t == 2.0 and stepper.stats["steps"] == len(grid) and len(T) == len(t_eval)
            errors.append(np.abs(stepper.y - exact([2.0])[0]).max())
            dense_errors.append(np.abs(Y - exact(T)).max())
        assert np.log2(errors[-2] / errors[-1]) == pytest.approx(ORDERS[name], abs=0.3)
        assert np.log2(dense_errors[-2] / dense_errors[-1]) >= DENSE_ORDERS[name] - 0.2
        assert min(errors) > 3e-14                                 # the ladder stays above round-off


def test_fixed_steps_walk_the_grid_and_end_on_t_bound():
    """Fixed steps land on t0 + k h (no accumulated drift) and the last one on t_bound; a
    t_bound off the grid shortens one step and the grid resumes after it."""
    T, _, stepper = run(DAMPED_ROTATION, "RK4", [1.0, 0.0], 0.7, h=0.1)
    np.testing.assert_array_equal(T, np.append(0.1 * np.arange(1, 7), 0.7))
    st = CompiledStepper(DAMPED_ROTATION, "Euler", 0.0, [1.0, 0.0], 1.0, h=0.25)
    T, Y = np.empty(10), np.empty((10, 2))
    _, n = st.advance(0.6, 100, True, None, 0, T, Y)
    _, n = st.advance(1.0, 100, True, None, n, T, Y)
    np.testing.assert_array_equal(T[:n], [0.25, 0.5, 0.6, 0.75, 1.0])
    with pytest.raises(ValueError, match="fixed step"):
        new_state("RK4", [1.0], 1e-3, 1e-6)


# ---------------------------------------------------------------------------------------- orbits
@pytest.mark.parametrize("name", ["RK45", "DOP853"])
def test_kepler_orbit_closes_and_conserves(name):
    """Eccentricity 0.5, one period 2 pi at rtol 1e-10: back at perihelion; energy and angular
    momentum (-1/2 and sqrt(3)/2) kept along the way."""
    y0 = kepler_start(0.5)
    t_eval = np.linspace(0.0, 2 * np.pi, 50)[1:]
    T, Y, stepper = run(Kepler(1.0), name, y0, 2 * np.pi, t_eval, rtol=1e-10, atol=1e-12)
    assert np.abs(Y[-1] - y0).max() < 1e-7
    energy = 0.5 * (Y[:, 2] ** 2 + Y[:, 3] ** 2) - 1 / np.hypot(Y[:, 0], Y[:, 1])
    momentum = Y[:, 0] * Y[:, 3] - Y[:, 1] * Y[:, 2]
    assert np.abs(energy + 0.5).max() < 1e-8 and np.abs(momentum - np.sqrt(0.75)).max() < 1e-8
    assert stepper.stats["steps"] < (400 if name == "RK45" else 150)


def test_stiff_equation_explicit_stable_but_costly_radau_cheap():
    """y' = -1000 (y - cos t): explicit steps are held at the stability limit (|h lambda| ~ 3)
    and stay accurate; Radau through the scipy adapter takes a few dozen steps."""
    lam, t_end = 1000.0, 2.0
    T, Y, stepper = run(Stiff(lam), "RK45", [0.0], t_end, rtol=1e-4, atol=1e-7)
    assert stepper.stats["steps"] > 500 and stepper.stats["rejected"] > 0
    assert np.abs(Y[:, 0] - stiff_exact(T, lam)).max() < 1e-3
    radau = ScipyStepper(python_rhs(stiff_rhs, Stiff(lam)), None, None, "Radau", 0.0, [0.0], t_end, rtol=1e-4,
                         atol=1e-7)
    T, Y = np.empty(1000), np.empty((1000, 1))
    status, n = radau.advance(t_end, 10 ** 5, True, None, 0, T, Y)
    assert status == OK and T[n - 1] == t_end and n < 60
    assert np.abs(Y[:n, 0] - stiff_exact(T[:n], lam)).max() < 1e-3
