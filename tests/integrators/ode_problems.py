"""Plain ODEs for the integrator tests, registered as problems (integrators/problem.py), with
their closed forms and Python versions of their functions for scipy."""
from collections import namedtuple

import numpy as np
from numba import njit

from mechsim.integrators.problem import register_problem
from mechsim.status import OK, SINGULAR

Linear = namedtuple("Linear", "M")                # y' = M y
Kepler = namedtuple("Kepler", "mu")               # the two-body problem in the plane, y = (x, y, vx, vy)
Stiff = namedtuple("Stiff", "lam")                # y' = -lam (y - cos t)
Circle = namedtuple("Circle", "growth")           # rotation plus radial growth, corrected onto |y| = 1
Sine = namedtuple("Sine", "levels")               # y' = cos t; events g_i = y - levels_i
SineRate = namedtuple("SineRate", "level")        # y' = cos t; event functions y - level and its rate, cos t
Oscillator = namedtuple("Oscillator", "level")    # x'' = -x, y = (x, x'); event functions x, x - level, their rate x'
Blowup = namedtuple("Blowup", "limit")            # y' = y^2 (y = 1 / (1 - t)); SINGULAR once y > limit
Reciprocal = namedtuple("Reciprocal", "c")        # y' = c / y: a division by zero at y = 0


@njit
def linear_rhs(p, t, y, dy):
    for i in range(y.shape[0]):
        acc = 0.0
        for j in range(y.shape[0]):
            acc += p.M[i, j] * y[j]
        dy[i] = acc
    return OK


@njit
def kepler_rhs(p, t, y, dy):
    r3 = (y[0] * y[0] + y[1] * y[1]) ** 1.5
    dy[0], dy[1] = y[2], y[3]
    dy[2], dy[3] = -p.mu * y[0] / r3, -p.mu * y[1] / r3
    return OK


@njit
def stiff_rhs(p, t, y, dy):
    dy[0] = -p.lam * (y[0] - np.cos(t))
    return OK


@njit
def circle_rhs(p, t, y, dy):
    dy[0] = -y[1] + p.growth * y[0]
    dy[1] = y[0] + p.growth * y[1]
    return OK


@njit
def circle_correct(p, t, y):
    r = np.sqrt(y[0] * y[0] + y[1] * y[1])
    y[0] /= r
    y[1] /= r
    return OK


@njit
def sine_rhs(p, t, y, dy):
    dy[0] = np.cos(t)
    return OK


@njit
def sine_events(p, t, y, g):
    for i in range(g.shape[0]):
        g[i] = y[0] - p.levels[i]
    return OK


@njit
def sine_rate_events(p, t, y, g):
    g[0] = y[0] - p.level
    g[1] = np.cos(t)
    return OK


@njit
def oscillator_rhs(p, t, y, dy):
    dy[0], dy[1] = y[1], -y[0]
    return OK


@njit
def oscillator_events(p, t, y, g):
    g[0], g[1], g[2] = y[0], y[0] - p.level, y[1]
    return OK


@njit
def blowup_rhs(p, t, y, dy):
    if y[0] > p.limit:
        return SINGULAR
    dy[0] = y[0] * y[0]
    return OK


@njit              # numba's default error model would raise ZeroDivisionError here
def reciprocal_rhs(p, t, y, dy):
    dy[0] = p.c / y[0]
    return OK


register_problem(Linear, linear_rhs)
register_problem(Kepler, kepler_rhs)
register_problem(Stiff, stiff_rhs)
register_problem(Circle, circle_rhs, correct=circle_correct)
register_problem(Sine, sine_rhs, events=sine_events)
register_problem(SineRate, sine_rhs, events=sine_rate_events)
register_problem(Oscillator, oscillator_rhs, events=oscillator_events)
register_problem(Blowup, blowup_rhs)
register_problem(Reciprocal, reciprocal_rhs)

DAMPED_ROTATION = Linear(np.array([[-0.5, 2.0], [-2.0, -0.5]]))   # y = e^(-t/2) R(-2t) y0


def damped_rotation(t, y0=(1.0, 0.0)):
    """The exact solution of DAMPED_ROTATION at the times t (N,) -> (N, 2)."""
    t = np.asarray(t, dtype=float)[:, None]
    c, s = np.cos(2 * t), np.sin(2 * t)
    return np.exp(-t / 2) * np.hstack([c * y0[0] + s * y0[1], -s * y0[0] + c * y0[1]])


def kepler_start(e=0.5):
    """At perihelion of the orbit of eccentricity e with a = mu = 1 (period 2 pi)."""
    return np.array([1 - e, 0.0, 0.0, np.sqrt((1 + e) / (1 - e))])


def stiff_exact(t, lam):
    """y(t) of Stiff(lam) with y(0) = 0."""
    t = np.asarray(t, dtype=float)
    k = lam * lam / (lam * lam + 1)
    return k * (np.cos(t) + np.sin(t) / lam) - k * np.exp(-lam * t)


def python_rhs(function, problem):
    """rhs(t, y) -> dy for scipy from a compiled right-hand side (the same arithmetic)."""
    def rhs(t, y):
        dy = np.empty_like(y)
        assert function(problem, t, y, dy) == OK
        return dy
    return rhs


def python_correct(function, problem):
    def correct(t, y):
        assert function(problem, t, y) == OK
    return correct


def python_events(function, problem, n_events):
    def events(t, y):
        g = np.empty(n_events)
        assert function(problem, t, y, g) == OK
        return g
    return events
