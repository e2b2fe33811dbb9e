"""A contact point's bounce, compiled: the impact the integrator's loop resolves without leaving it
(integrators/explicit.py ``jumped``; simulation/problem.py ``bounce`` calls these kernels).

It is the case of simulation/hybrid/contacts.py's ``touch`` that is most frequent and simplest: one contact
point strikes while no row holds (no loop, driver, closed stop, lock or contact: every contact open)
and no other point touches, and it rebounds. Newton's impact law on its rows (Glocker & Pfeiffer
1995; Brogliato, *Nonsmooth Mechanics*, 2016, §4.2), in the multipliers' form of Wood & Kennedy 2003,
eq. 14, with velocities for accelerations: the post-impact velocities v+ = v- + X P, X = M^-1 G^T (one
ABA solve per row on the factorization of the last evaluation), Lambda P = b - G v-, Lambda = G X, with
G v+ = b: the normal row's rate hd_n = G_n v - f'_n to -e hd_n, and when the contact has friction the
tangent rows' to 0, the surface's velocity f'_t (a sticking impulse, kept when it lies in the static cone
|P_t| <= mu_s P_n). Any
other case — a point closing (a rebound below min_bounce_speed), resting or touching points, a sliding
impulse, a Lambda not clearly positive definite — is UNHANDLED: the driver's mode logic decides it.

``Impacts`` (Data.impacts, None without rigid contacts): table (n_signals, 4) per compiled event
signal [restitution, min_bounce_speed, static friction, ON (1: a contact's hit this kernel resolves)];
points (n_points,) the normal rows of every contact point; rows (3,) int scratch; log (LOG_CAPACITY, 6)
one row per bounce [t, signal index, approach speed, normal impulse, rebound speed, the hit signal's new
threshold]; count (1,) the log's rows in use (the driver reads and empties it after every chunk).
"""
from collections import namedtuple

import numpy as np
from numba import njit

from ..spatial.algebra import JIT
from ..status import OK, UNHANDLED
from .multipliers import add_solves, cholesky_solve, constraint_jacobian_solves, form_lambda, row_dot
from .projection import constraint_state

Impacts = namedtuple("Impacts", "table points rows log count")
RESTITUTION, MIN_BOUNCE, STATIC, ON = range(4)
LOG_T, LOG_SIGNAL, LOG_APPROACH, LOG_IMPULSE, LOG_REBOUND, LOG_THRESHOLD = range(6)
LOG_CAPACITY = 64
TOUCH_SPEED = 1e-12                  # a contact point approaching or leaving slower than this (m/s) rests
TOUCH_GAP = -4 * np.spacing(1.0)     # an open contact hits when its gap falls this far below where it opened
RESTING_GAP = 1e-9                   # a contact point this near its surface touches it


def new_impacts(table, points):
    """An Impacts of the table (n_signals, 4) and the contact points' normal rows."""
    return Impacts(np.ascontiguousarray(table, dtype=float).reshape(-1, 4),
                   np.ascontiguousarray(points, dtype=np.int64), np.zeros(3, dtype=np.int64),
                   np.zeros((LOG_CAPACITY, 6)), np.zeros(1, dtype=np.int64))


@njit(**JIT)
def contact_impulse(model, data, cw, impacts, k, r, y):
    """Newton's impact of the contact point with normal row r, whose hit is compiled signal k, on the
    factorization of an evaluation at y (module docstring): v+ into y. Returns (status, approach speed,
    normal impulse); UNHANDLED leaves the case to the driver."""
    table, q, v = impacts.table[k], y[:model.nq], y[model.nq:]
    constraint_state(model, data, cw, q, v, impacts.points)
    for row in impacts.points:
        if row != r and abs(cw.h[row]) <= RESTING_GAP:
            return UNHANDLED, 0.0, 0.0
    approach = -cw.hd[r]
    e = table[RESTITUTION]
    if approach <= TOUCH_SPEED or e * approach < table[MIN_BOUNCE]:
        return UNHANDLED, approach, 0.0
    n = 3 if table[STATIC] > 0.0 else 1
    rows = impacts.rows[:n]
    for j in range(n):
        rows[j] = r + j
    constraint_state(model, data, cw, q, v, rows[1:])
    cw.rhs[0] = -(1.0 + e) * cw.hd[r]                   # b - G v-: the normal rate to -e times its value
    for j in range(1, n):                               # the slip to the surface's velocity
        cw.rhs[j] = -cw.hd[r + j]
    constraint_jacobian_solves(model.node_i, data.ws, cw, rows, cw.G)
    form_lambda(cw, rows, False)
    if not cholesky_solve(cw.Lam, cw.rhs, n, cw.mu, cw.envelope):
        return UNHANDLED, approach, 0.0
    if n == 3 and np.sqrt(cw.mu[1] ** 2 + cw.mu[2] ** 2) > table[STATIC] * cw.mu[0] * (1.0 + 1e-12):
        return UNHANDLED, approach, 0.0
    add_solves(cw, rows, cw.mu, v)
    return OK, approach, cw.mu[0]


@njit(**JIT)
def rearm(model, data, cw, signal_f, impacts, bounce, t, y, ydot):
    """After a bounce = (k, r, approach speed, normal impulse) of point r, whose hit is compiled signal k, at t (y
    the state after, ydot its derivative): its hit signal's threshold a few ulps below its gap now
    (simulation/hybrid/contacts.py ``arm``), the bounce logged, and the time steps must end at: the bounce's apex
    t + w / a, w the rebound speed, a = G vdot - gamma the gap rate's deceleration (hd' = G vdot + Gdot v - f''),
    so that no step passes over a whole small bounce."""
    k, r, approach, impulse = bounce
    nq = model.nq
    constraint_state(model, data, cw, y[:nq], y[nq:], impacts.rows[:1])
    threshold = min(cw.h[r], 0.0) + TOUCH_GAP
    signal_f[k, 0] = threshold
    rebound, a = cw.hd[r], row_dot(cw, cw.G, r, ydot[nq:]) - cw.gamma[r]
    log = impacts.log[impacts.count[0]]
    log[LOG_T], log[LOG_SIGNAL], log[LOG_APPROACH], log[LOG_IMPULSE] = t, k, approach, impulse
    log[LOG_REBOUND], log[LOG_THRESHOLD] = rebound, threshold
    impacts.count[0] += 1
    return t + rebound / -a if a < 0.0 else np.inf
