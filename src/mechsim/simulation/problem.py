"""The mechanics as a problem of the integrators (integrators/problem.py): ``System(model, data)``,
whose right-hand side, drift correction and event signals are the compiled kernels of
dynamics/system.py."""
from collections import namedtuple

from ..dynamics.system import correct_state, signal_values, state_derivative
from ..integrators.problem import register_problem
from ..spatial.algebra import JIT
from numba import njit

System = namedtuple("System", "model data")


@njit(**JIT)
def derivative(system, t, y, dy):
    return state_derivative(system.model, system.data, t, y, dy)


@njit(**JIT)
def correct(system, t, y):
    return correct_state(system.model, system.data, t, y)


@njit(**JIT)
def events(system, t, y, g):
    return signal_values(system.model, system.data, t, y, g)


register_problem(System, derivative, correct, events)
