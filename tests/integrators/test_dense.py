"""Dense output as data (integrators/dense.py): scipy's solvers' DenseOutput objects read as Interpolants
(scipy_adapter.interpolant_of) evaluate as scipy's own at random points of their steps, to rounding."""
import numpy as np
import pytest
from scipy.integrate import BDF, DOP853, LSODA, RK23, RK45, Radau

from ode_problems import Kepler, kepler_rhs, kepler_start, python_rhs
from mechsim.integrators import ScipyStepper, interpolate
from mechsim.integrators.dense import RK
from mechsim.integrators.scipy_adapter import FixedStep, interpolant_of

EPS = np.finfo(float).eps


def rounding_bound(dense, t, y):
    """How far two evaluations of one interpolant at t may differ when they sum its p terms in different orders
    (scipy's BLAS dot products against loops) and form its powers differently (LSODA's x**j against products):
    each term's weight w_j (powers, products of p factors) and the term itself are within (j + 1) eps, the sum
    of p terms within (p - 1) eps of its absolute terms, the scale h and the base y_old add eps each: each
    evaluation is within (2p + 1) eps S + eps |y| of the exact one, S = |scale| sum_j |C_j| max_j |w_j|, and
    max |w_j| <= max(1, (t - t_old) / |h|)^p (|x| and the BDF factors; above 1 only when LSODA's or BDF's h,
    the next step's, is shorter than the last)."""
    p = dense.C.shape[1]
    scale = abs(dense.h) if dense.kind == RK else 1.0
    weight = max(1.0, (dense.t - dense.t_old) / abs(dense.h)) ** p
    S = scale * np.abs(dense.C).sum(axis=1) * weight
    return 2 * ((2 * p + 1) * EPS * S + EPS * np.abs(y))


@pytest.mark.parametrize("solver", [RK23, RK45, DOP853, Radau, BDF, LSODA, FixedStep])
def test_interpolants_evaluate_as_scipys_dense_output(solver):
    """Kepler's orbit (e = 0.5, four components), 40 steps of each solver (FixedStep: RK4, h = 0.05), each
    dense output evaluated at 5 random points of its step by ``interpolate`` and by scipy's __call__."""
    rng = np.random.default_rng(7)
    options = dict(h=0.05) if solver is FixedStep else dict(rtol=1e-8, atol=1e-10)
    ode = solver(python_rhs(kepler_rhs, Kepler(1.0)), 0.0, kepler_start(), 100.0, **options)
    out = np.empty(4)
    for _ in range(40):
        assert ode.step() is None
        scipys = ode.dense_output()
        dense = interpolant_of(scipys)
        for t in rng.uniform(ode.t_old, ode.t, 5):
            interpolate(dense, t, out)
            expected = scipys(t)
            assert np.all(np.abs(out - expected) <= rounding_bound(dense, t, expected))


def test_a_stepper_before_its_first_step_interpolates_its_state():
    stepper = ScipyStepper(python_rhs(kepler_rhs, Kepler(1.0)), None, None, "BDF", 0.0, kepler_start(), 1.0)
    assert stepper.interpolant().kind == RK and np.array_equal(stepper.dense(0.0), kepler_start())
