"""The compiled system an integration loop advances: y = [q; v], dy/dt = derivative(sys, t, y),
and correct(sys, t, y), the drift correction applied after every accepted step and at outputs.

``sys`` is a namedtuple of flat arrays made once per run by ``make_system``; a compiled integrator
(integrators/dopri.py) passes it through without looking inside. Its arrays u (force values) and
con_t (constraint targets) may be refilled between calls for time-varying inputs.
"""
from collections import namedtuple

import numpy as np
from numba import njit

from ..spatial.algebra import JIT
from .kernels import OK, kinematic_map, normalize_quaternions
from .multipliers import CHOLESKY, QR, constrained_dynamics
from .projection import PROJECTION, STABILIZATION, project

DRIFT_CODES = {"projection": PROJECTION, "stabilization": STABILIZATION, "baumgarte": 2, "none": 3}
SOLVER_CODES = {"cholesky": CHOLESKY, "qr": QR}

System = namedtuple("System", "node_i node_f force_i force_f gravity u tau quat_q ws nq con_i con_f con_t every_row active cw "
                              "solver drift alpha beta rtol atol dz")


def make_system(cm, u=None, tau=None, drift="projection", constraint_solver="cholesky", baumgarte=(10.0, 10.0),
                rtol=1e-6, atol=1e-8):
    """The System of a compiled model with force values u (default: the constant ones), drift control
    and multiplier solver by name, Baumgarte's (alpha, beta) and the projection weights rtol, atol."""
    rows = cm.rows
    code = DRIFT_CODES[drift]
    alpha, beta = (float(baumgarte[0]), float(baumgarte[1])) if code == 2 else (0.0, 0.0)
    return System(cm.node_i, cm.node_f, cm.force_i, cm.force_f, np.ascontiguousarray(cm.gravity),
                  cm.u_const.copy() if u is None else np.asarray(u, dtype=float),
                  cm.zero_tau if tau is None else np.asarray(tau, dtype=float),
                  cm.quat_q, cm.workspace, cm.nq, rows.con_i, rows.con_f, rows.con_t, cm.every_row, cm.active,
                  cm.constraint_workspace, SOLVER_CODES[constraint_solver], code, alpha, beta,
                  float(rtol), float(atol), np.zeros(cm.nv))


@njit(**JIT)
def derivative(sys, t, y, dy):
    """dy/dt = [H(q) v; vdot] at (t, y), vdot with the constraints enforced; returns the kernel status
    (OK = -1, a singular node, or multipliers.SINGULAR)."""
    nq = sys.nq
    q, v = y[:nq], y[nq:]
    kinematic_map(sys.node_i, q, v, dy[:nq])
    return constrained_dynamics(sys.node_i, sys.node_f, sys.force_i, sys.force_f, sys.gravity, sys.u, sys.tau, q, v,
                                sys.ws, sys.con_i, sys.con_f, sys.con_t, sys.every_row, sys.active, sys.cw, sys.solver,
                                sys.alpha, sys.beta, dy[nq:])


@njit(**JIT)
def correct(sys, t, y):
    """Bring y back onto its manifold in place: unit quaternions, and the constraints when the drift
    control is projection or stabilization. Returns the status."""
    normalize_quaternions(sys.quat_q, y)
    if sys.drift > STABILIZATION or sys.con_i.shape[0] == 0:
        return OK
    return project(sys.node_i, sys.node_f, sys.force_i, sys.force_f, sys.gravity, sys.u, sys.tau, sys.quat_q,
                   y[:sys.nq], y[sys.nq:], sys.ws, sys.con_i, sys.con_f, sys.con_t, sys.every_row, sys.cw, sys.drift,
                   sys.rtol, sys.atol, sys.dz)
