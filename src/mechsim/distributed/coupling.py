"""The co-simulation's coupling, compiled: a subsystem's interface data at its coupling points and the
coupling forces from every subsystem's (distributed/cosim.py explains the methods). The same kernels serve
both transports: the coordinator's loop over sockets (cosim.py) and the subsystems' own compiled loops over
shared memory (shared_memory.py), which then compute the forces each for itself, from the same numbers.

A subsystem's interface data is one *slot* of float64 (``slot_length``), for k coupling points:

    [t, x (k, 3), x' (k, 3), a_free (k, 3), W (3K, 3K)]

x, x' the points' world positions and velocities, a_free their accelerations without coupling forces and
W = J M^-1 J^T their interface compliance (3x3 blocks per pair of points; J the points' world Jacobian), K
the largest k over the subsystems, so that every subsystem's slot has one stride.
"""
from collections import namedtuple

import numpy as np
from numba import njit

from ..dynamics.constraints import evaluate_rows, velocity_product_accelerations
from ..dynamics.multipliers import (RANK_TOL, cholesky_solve, constraint_jacobian_solves, form_lambda, row_dot,
                                    truncated_qr_solve)
from ..dynamics.kernels import aba, carve
from ..dynamics.system import set_time_values
from ..dynamics.api import singular_node_error
from ..errors import StepError
from ..spatial.algebra import INLINE
from ..status import OK, SINGULAR

POINT, DISTANCE = 0, 1                  # coupling kinds (cosim.KINDS, in order)
KIND, END_A, END_B, ROW = range(4)      # columns of CouplingTables.plan
PROJECTION, COMPLIANCE = 0, 1           # methods (cosim.METHODS, in order)
METHOD, SIGMA, STIFFNESS, DAMPING = range(4)   # CouplingTables.settings


def slot_length(K):
    """Floats in a slot of up to K coupling points (module docstring), rounded up to whole 64-byte cache lines:
    subsystems writing their slots side by side then never write to one line (shared_memory.py)."""
    return -(-(1 + 9 * K + 9 * K * K) // 8) * 8


def slot_parts(slot, k, K):
    """(t, x, x', a_free, W) of a slot: views, W (3k, 3k)."""
    x, xd, a = (slot[1 + 3 * K * i:1 + 3 * K * i + 3 * k].reshape(k, 3) for i in range(3))
    return slot[0], x, xd, a, slot[1 + 9 * K:1 + 9 * K + 9 * K * K].reshape(3 * K, 3 * K)[:3 * k, :3 * k]


# ----------------------------------------------------------------------------- a subsystem's interface
def probe_model(model, ends):
    """The model with the ground origin tied to each coupling point ``ends`` (cosim.Endpoint): the rows of a
    point_coincident are x_b - x_a in body_a's axes, here the ground's, so they are the points' world positions
    h, velocities G v and Jacobians G, and J' v through gamma (used only to evaluate those rows, never
    simulated)."""
    m = model.copy()
    for k, end in enumerate(ends):
        m.add_constraint(f"_coupling_point_{k}", "point_coincident", body_a="ground", body_b=end.body, point_b=end.point)
    return m


Probe = namedtuple("Probe", "model data cw qdd")
Probe.__doc__ = "What ``interface`` reads: the probe model's ModelArrays, DataArrays, constraint workspace; qdd scratch."


class Interface:
    """A subsystem's interface data from Python (``interface`` on the probe model of ``model``, the worker
    model whose coupling force inputs are 0 by default, and its coupling points ``ends``), into slots of
    stride K; ``probe`` is what the compiled exchange hands ``interface``."""

    def __init__(self, model, ends, K):
        self.cm, self.K = probe_model(model, ends).compile(), K
        data = self.cm.new_data()
        self.cm.force_values(0.0, out=data.arrays.u)
        self.cm.targets(0.0, out=data.arrays.con_t)
        self.probe = Probe(self.cm.arrays, data.arrays, data.cw, np.zeros(self.cm.nv))

    def __call__(self, t, q, v, slot):
        """``slot`` filled at (t, q, v); StepError at a singular position of the subsystem."""
        p = self.probe
        status = interface(p.model, p.data, p.cw, t, q, v, p.qdd, self.K, slot)
        if status != OK:
            raise StepError(f"{singular_node_error(self.cm, status)} (t = {t:.6g})")
        return slot


@njit(**INLINE)            # inlined into the exchange (shared_memory.exchange_forces)
def interface(model, data, cw, t, q, v, qdd, K, slot):
    """A subsystem's interface data at (t, q, v) into ``slot`` of stride K (module docstring), on its probe
    model (cosim.probe_model: its rows 3 e .. 3 e + 2 are coupling point e's world position, so that the
    constraint kernels give x = h, x' = G v, a_free = G qdd_free - gamma and W = G M^-1 G^T: Wood & Kennedy
    2003, eq. 10). ``qdd``: scratch (nv). Returns OK or a singular node."""
    set_time_values(model, data, t)
    status = aba(model, data, q, v, data.tau, qdd)
    if status != OK:
        return status
    velocity_product_accelerations(model.node_i, carve(data.ws).c, cw.acc0)
    n = model.con_i.shape[0]
    rows = cw.live[:n]
    for r in range(n):
        rows[r] = r
    evaluate_rows(model, data, cw, rows, q, v)
    constraint_jacobian_solves(model.node_i, data.ws, cw, rows, cw.G)
    form_lambda(cw, rows, True)
    slot[0] = t
    for r in range(n):
        a = row_dot(cw, cw.G, r, qdd) - cw.gamma[r]
        slot[1 + r], slot[1 + 3 * K + r], slot[1 + 6 * K + r] = cw.h[r], cw.hd[r], a
        for c in range(n):
            slot[1 + 9 * K + 3 * K * r + c] = cw.Lam[r, c]
    return OK


# ----------------------------------------------------------------------------- the coupling forces
CouplingTables = namedtuple("CouplingTables", "plan length settings end_of end_slot support D C Cd geometric WD P A b "
                                              "x free work d F")
CouplingTables.__doc__ = """The coupling of a co-simulation as the kernels read it (coupling_tables), and their scratch:
plan (couplings, 4): kind, its ends' indices and first row; length: a distance coupling's; settings: METHOD, SIGMA,
STIFFNESS, DAMPING; end_of, end_slot: each end's subsystem and point in that subsystem's slot; support (rows, 7): the
entries of each row's column of D that can be nonzero (count, then their indices in order); x: the multipliers;
F (ends, 3): the world force on each end, the result."""


def coupling_tables(plan, order, method, sigma, stiffness, damping):
    """CouplingTables of the couplings ``plan`` (cosim.Coupling) between the subsystems ``order``, their ends
    numbered subsystem by subsystem."""
    ends = [(c.name, e) for s in order for c in plan for e in c.ends if e.subsystem == s]
    index = {(name, e.sign): i for i, (name, e) in enumerate(ends)}
    rows = np.cumsum([0] + [3 if c.kind == "point_coincident" else 1 for c in plan])
    table = np.array([[POINT if c.kind == "point_coincident" else DISTANCE, index[c.name, 1.0], index[c.name, -1.0],
                       r] for c, r in zip(plan, rows)], dtype=np.int64)
    end_of = np.array([order.index(e.subsystem) for _, e in ends], dtype=np.int64)
    end_slot = np.array([np.count_nonzero(end_of[:i] == end_of[i]) for i in range(len(ends))], dtype=np.int64)
    E, R = len(ends), int(rows[-1])
    support = np.zeros((R, 7), dtype=np.int64)
    for c, r in zip(plan, rows):
        a, b = sorted((index[c.name, 1.0], index[c.name, -1.0]))
        for k in range(3 if c.kind == "point_coincident" else 1):     # a point's row k: component k of both ends
            entries = [3 * a + k, 3 * b + k] if c.kind == "point_coincident" else [*range(3 * a, 3 * a + 3),
                                                                                   *range(3 * b, 3 * b + 3)]
            support[r + k, :len(entries) + 1] = [len(entries), *entries]
    settings = [COMPLIANCE if method == "compliance" else PROJECTION, sigma, stiffness or 0.0, damping or 0.0]
    return CouplingTables(table, np.array([c.length or 0.0 for c in plan]), np.array(settings, dtype=float),
                          end_of, end_slot, support, np.zeros((3 * E, R)), np.zeros(R), np.zeros(R), np.zeros(R),
                          np.zeros((3 * E, R)), np.zeros((R, R)), np.zeros((R, R)), np.zeros(R), np.zeros(R),
                          np.zeros(R, dtype=np.int64), np.zeros((3, R)), np.zeros((2, 3)), np.zeros((E, 3)))


@njit(**INLINE)
def coupling_forces(ct, slots, K):
    """The world forces on the coupling points, ct.F = D lambda, from the subsystems' interface data ``slots``
    (one per subsystem, stride K). With the points stacked, a row r of a coupling with direction n_r pushes its
    end e with -s_e n_r lambda_r (s_e = +1 at body_a, -1 at body_b, C = x_a - x_b): F = D lambda, and the rows'
    accelerations are C'' = -D^T x'' + (a distance row's geometric part). Compliance (Khan, Tang & Krovi 2006,
    eq. 10): lambda = k C + c C'. Projection: projected_multipliers. Returns OK or SINGULAR."""
    D, C, Cd, geometric, d = ct.D, ct.C, ct.Cd, ct.geometric, ct.d
    D[:] = 0.0
    for c in range(ct.plan.shape[0]):
        ia, ib, r = ct.plan[c, END_A], ct.plan[c, END_B], ct.plan[c, ROW]
        for k in range(3):                      # d = x_a - x_b, d'
            for part in range(2):
                d[part, k] = end_value(slots, ct, ia, part, K, k) - end_value(slots, ct, ib, part, K, k)
        if ct.plan[c, KIND] == POINT:
            for k in range(3):
                C[r + k], Cd[r + k], geometric[r + k] = d[0, k], d[1, k], 0.0
                D[3 * ia + k, r + k], D[3 * ib + k, r + k] = -1.0, 1.0
        else:                                   # C = |d| - L; C'' = n.d'' + (|d'|^2 - (n.d')^2) / |d|
            length = np.sqrt(d[0, 0] ** 2 + d[0, 1] ** 2 + d[0, 2] ** 2)
            rate = (d[0, 0] * d[1, 0] + d[0, 1] * d[1, 1] + d[0, 2] * d[1, 2]) / length
            C[r], Cd[r] = length - ct.length[c], rate
            geometric[r] = (d[1, 0] ** 2 + d[1, 1] ** 2 + d[1, 2] ** 2 - rate ** 2) / length
            for k in range(3):
                D[3 * ia + k, r], D[3 * ib + k, r] = -d[0, k] / length, d[0, k] / length
    if ct.settings[METHOD] == COMPLIANCE:
        for r in range(C.shape[0]):
            ct.x[r] = ct.settings[STIFFNESS] * C[r] + ct.settings[DAMPING] * Cd[r]
    elif not projected_multipliers(ct, slots, K):
        return SINGULAR
    for i in range(D.shape[0]):
        s = 0.0
        for r in range(C.shape[0]):
            s += D[i, r] * ct.x[r]
        ct.F[i // 3, i % 3] = s
    return OK


@njit(**INLINE)
def end_value(slots, ct, e, part, K, k):
    """Component k of end e's position (part 0), velocity (1) or free acceleration (2) in its subsystem's slot."""
    return slots[ct.end_of[e], 1 + 3 * K * part + 3 * ct.end_slot[e] + k]


@njit(**INLINE)
def projected_multipliers(ct, slots, K):
    """ct.x = lambda of the projection method (Khan, Tang & Krovi 2006, eqs. 24-27): with x'' = a_free + W D lambda,
    (D^T W D) lambda = C''_free + 2 sigma C' + sigma^2 C (Baumgarte's eq. 11 applied twice: critically damped),
    over the rows a force can move (not z in a plane) by Cholesky, or over every row by the truncated QR where the
    couplings repeat each other (Wood & Kennedy 2003, eqs. 17-20). W is block diagonal: the points of one
    subsystem couple. False if neither solves."""
    D, P, A, b, x, free, support = ct.D, ct.P, ct.A, ct.b, ct.x, ct.free, ct.support
    E, R = ct.F.shape[0], ct.C.shape[0]
    sigma = ct.settings[SIGMA]
    # The products below run over the support of D's columns: the sums over every entry less exact zeros (equal).
    for r in range(R):                          # WD = blockdiag(W_s) D
        for i in range(3 * E):
            e = i // 3
            w_row = 1 + 9 * K + 3 * K * (3 * ct.end_slot[e] + i % 3)
            s = 0.0
            for m in range(1, support[r, 0] + 1):
                j = support[r, m]
                if ct.end_of[j // 3] == ct.end_of[e]:
                    s += slots[ct.end_of[e], w_row + 3 * ct.end_slot[j // 3] + j % 3] * D[j, r]
            ct.WD[i, r] = s
    largest = 0.0
    for r in range(R):                          # P = D^T W D; the right-hand side in b
        for c in range(R):
            s = 0.0
            for m in range(1, support[r, 0] + 1):
                s += D[support[r, m], r] * ct.WD[support[r, m], c]
            P[r, c] = s
        largest = max(largest, abs(P[r, r]))
        s = ct.geometric[r] + 2.0 * sigma * ct.Cd[r] + sigma * sigma * ct.C[r]
        for m in range(1, support[r, 0] + 1):
            i = support[r, m]
            s -= D[i, r] * end_value(slots, ct, i // 3, 2, K, i % 3)
        b[r] = s
    n = 0
    for r in range(R):
        if abs(P[r, r]) > RANK_TOL * largest:
            free[n] = r
            n += 1
    for k in range(n):
        ct.work[2, k] = b[free[k]]
        for l in range(n):
            A[k, l] = P[free[k], free[l]]
    solved = cholesky_solve(A, ct.work[2], n, ct.work[1])
    for r in range(R):
        x[r] = 0.0
    if solved:
        for k in range(n):
            x[free[k]] = ct.work[1, k]
        return True
    for r in range(R):
        for c in range(R):
            A[r, c] = P[r, c]
    truncated_qr_solve(A, b, R, x, ct.work)
    for r in range(R):
        if not np.isfinite(x[r]):
            return False
    return True
