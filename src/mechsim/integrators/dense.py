"""The dense output of one step as data, so that compiled code evaluates any stepper's: an Interpolant (the
kind of continuous extension, the step, its coefficients) and its evaluator ``interpolate``, one case per kind.
The compiled loop's steps are interpolants (explicit.py), and so are scipy's solvers' (scipy_adapter.py
``interpolant_of`` reads their DenseOutput objects): the event locator (locator.py) runs on either.

With x = (t - t_old) / h and C[i, j] the coefficients of component i:

    RK      y_old + h sum_j C_j x^(j+1)                     explicit Runge-Kutta (HNW §II.6): the tableaux,
                                                            scipy's RK23 and RK45 (Q = K^T P)
    RADAU   y_old + sum_j C_j x^(j+1)                       scipy's Radau: its collocation polynomial (HNW §IV.8)
    DOP853  y_old + x (C_0 + (1 - x) (C_1 + x (C_2 + ...))) scipy's DOP853 (HNW §II.6, Dormand-Prince's dense
                                                            output in nested form, F = C^T)
    BDF     C_0 + sum_{j>=1} C_j prod_{i<j} (t - (t_end - i h)) / ((i + 1) h)
                                                            scipy's BDF: the backward differences D = C^T of its
                                                            interpolating polynomial (Shampine & Reichelt 1997)
    LSODA   sum_j C_j ((t - t_end) / h)^j                   the Nordsieck array yh = C (ODEPACK, Hindmarsh 1983)

A step of no length (h = 0: a stepper before its first step) evaluates to y_old.
"""
from collections import namedtuple

from numba import njit

from ..spatial.algebra import INLINE

RK, RADAU, DOP853, BDF, LSODA = range(5)
Interpolant = namedtuple("Interpolant", "kind t_old t h y_old C")
Interpolant.__doc__ = """The dense output of the step [t_old, t] (see the module): ``kind`` one of RK, RADAU, DOP853,
BDF, LSODA; h the step (LSODA: the step its Nordsieck array is scaled by); y_old (n,) the state at t_old (empty
for BDF and LSODA); C (n, p) the coefficients, C-contiguous. Its arrays may be the stepper's own: valid until the
next step."""


@njit(**INLINE)
def interpolate(dense, t, out):
    """out = the Interpolant ``dense`` at t (see the module for each kind)."""
    C, h = dense.C, dense.h
    if h == 0.0:
        for i in range(out.shape[0]):
            out[i] = dense.y_old[i]
        return
    if dense.kind == BDF:
        for i in range(out.shape[0]):
            acc, product = 0.0, 1.0
            for j in range(1, C.shape[1]):
                product *= (t - (dense.t - h * (j - 1))) / (h * j)
                acc += C[i, j] * product
            out[i] = acc + C[i, 0]
    elif dense.kind == LSODA:
        x = (t - dense.t) / h
        for i in range(out.shape[0]):
            acc, power = C[i, 0], 1.0
            for j in range(1, C.shape[1]):
                power *= x
                acc += C[i, j] * power
            out[i] = acc
    elif dense.kind == DOP853:
        x = (t - dense.t_old) / h
        p = C.shape[1]
        for i in range(out.shape[0]):
            acc = 0.0
            for j in range(p):
                acc = (acc + C[i, p - 1 - j]) * (x if j % 2 == 0 else 1.0 - x)
            out[i] = acc + dense.y_old[i]
    else:
        x = (t - dense.t_old) / h
        scale = h if dense.kind == RK else 1.0
        for i in range(out.shape[0]):
            acc, power = 0.0, 1.0
            for j in range(C.shape[1]):
                power *= x
                acc += C[i, j] * power
            out[i] = scale * acc + dense.y_old[i]
