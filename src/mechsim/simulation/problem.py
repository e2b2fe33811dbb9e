"""The mechanics as a problem of the integrators (integrators/problem.py): ``System(model, data)``,
whose right-hand side, drift correction and event signals are the compiled kernels of
dynamics/system.py."""
from collections import namedtuple

from numba import njit

from ..dynamics.system import correct_state, signal_values, state_derivative
from ..integrators.problem import register_problem
from ..spatial.algebra import INLINE

System = namedtuple("System", "model data")


@njit(**INLINE)
def derivative(system, t, y, dy):
    """dy/dt of the mechanism (dynamics/system.py)."""
    return state_derivative(system.model, system.data, t, y, dy)


@njit(**INLINE)
def correct(system, t, y):
    """The drift correction after a step and at outputs."""
    return correct_state(system.model, system.data, t, y)


@njit(**INLINE)
def events(system, t, y, g):
    """The signals the compiled events watch, less their values."""
    return signal_values(system.model, system.data, t, y, g)


register_problem(System, derivative, correct, events)
