"""The mechanics as a problem of the integrators (integrators/problem.py): ``system(model, data)``, a System
tuple of one of three classes, by the run's formulation (TreeSystem, MultiplierSystem, NullspaceSystem), each
registered with its right-hand side and drift correction (dynamics/system.py), and all with the compiled event
signals and a compiled event action, a contact's bounce (dynamics/impacts.py). A class each, rather than one
whose kernels test which fields are None, because numba drops the code of a None only for an argument of a
kernel compiled on its own, and each such kernel is a further level of code generation (dynamics/system.py).
System holds the kernels' groups (dynamics/data.py): the ModelArrays, the DataArrays and the run's workspaces,
each None where the run has none."""
from collections import namedtuple

import numpy as np
from numba import njit

from ..dynamics.constraints import HELD
from ..dynamics.data import NULLSPACE
from ..dynamics.impacts import ON, contact_impulse, rearm
from ..dynamics.kernels import normalize_quaternions
from ..dynamics.system import (multiplier_correct, multiplier_derivative, reduced_correct, reduced_derivative,
                               signal_tables, tree_derivative, watches_multipliers)
from ..integrators.problem import correct as correct_problem, register_problem, rhs
from ..spatial.algebra import INLINE, JIT
from ..status import OK, UNHANDLED

# friction, penalized, slide: the workspace's tables only some runs use, or None (system below)
System = namedtuple("System", "model data cw ns friction penalized slide signal_i signal_f impacts")


class TreeSystem(System):
    """An open tree (cw and ns None): ABA alone."""
    __slots__ = ()


class MultiplierSystem(System):
    """Constraints held by multipliers (the Lagrange and penalty formulations; ns None)."""
    __slots__ = ()


class NullspaceSystem(System):
    """The null-space formulation with loops to reduce."""
    __slots__ = ()


# The problem's functions are inlined in numba's IR where they call each other (events and bounce call derivative
# and correct): a function compiled on its own compiles again everything it calls, the whole dynamics here.
INLINED_IR = dict(JIT, inline="always")


def system(model, data, tree=False):
    """The System of ModelArrays ``model`` and Data ``data`` (their arrays, shared): a TreeSystem for an open
    ``tree`` (CompiledModel.is_tree), a NullspaceSystem where the formulation is null-space (and there are loops
    to reduce), else a MultiplierSystem. Its signals signal_i and signal_f are None without compiled events, its
    friction, penalized and slide where the run has no use for them (Data.optional_tables): the kernels drop the
    code a None stands for (events below, multipliers.py solve_constrained)."""
    silent = data.signal_i.shape[0] == 0 and data.impacts is None
    kind = TreeSystem if tree else NullspaceSystem if data.formulation == NULLSPACE else MultiplierSystem
    return kind(model, data.arrays, None if tree else data.cw, data.ns if kind is NullspaceSystem else None,
                *data.optional_tables(model, tree), None if silent else data.signal_i,
                None if silent else data.signal_f, data.impacts)


@njit(**INLINED_IR)
def tree_rhs(s, t, y, dy):
    return tree_derivative(s.model, s.data, t, y, dy)


@njit(**INLINED_IR)
def tree_correct(s, t, y):
    normalize_quaternions(s.model.quat_q, y)
    return OK


@njit(**INLINED_IR)
def multiplier_rhs(s, t, y, dy):
    return multiplier_derivative(s.model, s.data, s.cw, s.friction, s.penalized, s.slide, t, y, dy)


@njit(**INLINED_IR)
def multiplier_projection(s, t, y):
    return multiplier_correct(s.model, s.data, s.cw, s.penalized, t, y)


@njit(**INLINED_IR)
def reduced_rhs(s, t, y, dy):
    return reduced_derivative(s.model, s.data, s.cw, s.ns, s.friction, s.penalized, s.slide, t, y, dy)


@njit(**INLINED_IR)
def reduced_projection(s, t, y):
    return reduced_correct(s.model, s.data, s.cw, s.ns, s.penalized, t, y)


@njit(**INLINED_IR)
def derivative(s, t, y, dy):
    """dy/dt of the mechanism, any System (its class's right-hand side); from Python too."""
    return rhs(s, t, y, dy)


@njit(**INLINED_IR)
def correct(s, t, y):
    """The drift correction after a step and at outputs, any System (its class's); from Python too."""
    return correct_problem(s, t, y)


@njit(**INLINED_IR)
def events(s, t, y, g):
    """The signals the compiled events watch, less their values (dynamics/system.py: signal_tables)."""
    return signals(s, s.signal_i, t, y, g)


@njit(**INLINE)
def signals(s, signal_i, t, y, g):
    """events, compiled to nothing for a run without compiled events (signal_i None: numba drops the branch
    on its type), which would otherwise compile the signal kernels and a further copy of the dynamics."""
    if signal_i is None:
        return OK
    if watches_multipliers(signal_i):
        status = derivative(s, t, y, s.data.ydot)
        if status != OK:
            return status
    return signal_tables(s.model, s.data, s.cw, signal_i, s.signal_f, y, g)


@njit(**INLINED_IR)
def jump(s, t, y, k, dy):
    """Compiled event k's action at (t, y) where it runs compiled: a contact's bounce."""
    return bounce(s, s.impacts, t, y, k, dy)


@njit(**JIT)
def bounce(s, impacts, t, y, k, dy):
    """The bounce of the contact point whose hit is compiled event k, with no row held (dynamics/impacts.py):
    y becomes the state after it, dy its derivative. Returns (OK, the bounce's apex) or (UNHANDLED, inf): the
    driver decides. Compiles to nothing without rigid contacts (impacts None)."""
    if impacts is None:
        return UNHANDLED, np.inf
    if s.data.counts[HELD] or impacts.table[k, ON] == 0.0 or impacts.count[0] == impacts.log.shape[0]:
        return UNHANDLED, np.inf
    r = s.signal_i[k, 1]
    status = derivative(s, t, y, s.data.ydot)           # the factorization of M the impulse is solved on
    if status != OK:
        return UNHANDLED, np.inf
    status, approach, impulse = contact_impulse(s.model, s.data, s.cw, impacts, k, r, y)
    if status == OK:
        status = correct(s, t, y)
    if status == OK:
        status = derivative(s, t, y, dy)
    if status != OK:
        return UNHANDLED, np.inf
    return OK, rearm(s.model, s.data, s.cw, s.signal_f, impacts, (k, r, approach, impulse), t, y, dy)


register_problem(TreeSystem, tree_rhs, tree_correct, events, jump)
register_problem(MultiplierSystem, multiplier_rhs, multiplier_projection, events, jump)
register_problem(NullspaceSystem, reduced_rhs, reduced_projection, events, jump)
