"""The compiled system an integration loop advances: y = [q; v], dy/dt = derivative(sys, t, y),
and correct(sys, t, y), the drift correction applied after every accepted step and at outputs.

``sys`` is a namedtuple of flat arrays made once per run by ``make_system``; a compiled integrator
(integrators/dopri.py) passes it through without looking inside.
"""
from collections import namedtuple

import numpy as np
from numba import njit

from ..spatial.algebra import JIT
from .kernels import normalize_quaternions, state_derivative

System = namedtuple("System", "node_i node_f force_i force_f gravity u tau quat_q ws nq")


def make_system(cm, u=None, tau=None):
    """The System of a compiled model with constant force values u (default: the constant ones)."""
    return System(cm.node_i, cm.node_f, cm.force_i, cm.force_f, np.ascontiguousarray(cm.gravity),
                  cm.u_const.copy() if u is None else np.asarray(u, dtype=float),
                  cm.zero_tau if tau is None else np.asarray(tau, dtype=float),
                  cm.quat_q, cm.workspace, cm.nq)


@njit(**JIT)
def derivative(sys, t, y, dy):
    """dy/dt at (t, y); returns the kernel status (OK = -1, else the singular node)."""
    return state_derivative(sys.node_i, sys.node_f, sys.force_i, sys.force_f, sys.gravity, sys.u, sys.tau, y,
                            sys.nq, sys.ws, dy)


@njit(**JIT)
def correct(sys, t, y):
    """Bring y back onto its manifold in place: unit quaternions. Returns the status."""
    normalize_quaternions(sys.quat_q, y)
    return -1
