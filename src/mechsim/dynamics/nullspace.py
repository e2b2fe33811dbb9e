"""The null-space formulation (``formulation="nullspace"``): the equations of motion in state-space
form in independent velocities by the QTZ decomposition (Del Citto, Pennestrì & Vita, "Coordinates
reduction and numerical integration of constrained multibody systems", §3–3.4.4), compiled.

A *chart* is the decomposition of the held rows' Jacobian at one configuration q_c (eqs. 3–9):
Householder QR of G^T with column pivoting, G^T P = [Q1 Q2] [T 0; 0 0] Z. Its rank r picks the
independent rows Psi'' (the first r pivots, eqs. 15–20: the dependent rows are dropped); the
columns of Q1 span their row space, the n - r orthonormal columns of Q2 the feasible motions.
The chart is kept while the configuration moves (Kim & Vanderploeg's directional continuity,
eqs. 31–32): at q, with A = Psi''(q) Q1 and X = A^-1 Psi''(q) Q2,

    Q1^ = Q1 A^-1,   Q2^ = Q2 - Q1 X,   Psi'' Q1^ = I,   Psi'' Q2^ = 0,   Q2^T Q2^ = I   (eqs. 31–35)

and the independent velocities are w = Q2^T v, so that v = Q2^ w + Q1^ b'' (eq. 33, b'' the rows'
velocity targets) satisfies the constraints by construction. The accelerations are (eqs. 64, 67)

    qdd = Q1^ gamma'' + Q2^ pdd,   (Q2^T M Q2^) pdd = Q2^T (f - M Q1^ gamma''),

with M from the composite-rigid-body algorithm and f = tau - the bias forces from RNEA, and the
independent rows' multipliers lambda = Q1^T (M qdd - f) (eq. 47; M qdd = f + G^T lambda here).
The run integrates y = [q; v]: the right-hand side uses v only through w (its dependent part is
rebuilt at every evaluation), and after each step the dependent positions are found by Newton's
method along Q1^ (Psi''(q - Q1^ h) = 0 to first order; Q2^T q, the independent positions, stay),
and v is replaced by its consistent part. With drift="baumgarte" the positions are instead held by
Khan, Tang & Krovi 2006's method B (eqs. 11–13): qdot = v - sigma Q1^ h, so that hdot = -sigma h.

X measures how far the feasible motions have turned from the chart's (|X| = tan of the largest
angle, 0 at q_c). The chart is made anew at the current q, and the change logged, when |X| passes
TURN_LIMIT, when A loses rank (the independent rows become dependent), or when a row left out as
dependent is no longer in the span of the independent ones (a chart made at a singular position,
such as the N four-bar lying flat, which the mechanism has left).
"""
from collections import namedtuple

import numpy as np
from numba import njit

from ..spatial.algebra import INLINE, JIT
from ..status import NOT_CONVERGED, OK, SINGULAR
from .constraints import held_rows
from .kernels import crba, kinematic_map, normalize_quaternions, rnea
from .multipliers import cholesky_solve, pivot_column, reflect_columns
from .projection import MAX_ITERATIONS, PROJECTION, STABILIZATION, constraint_state, integrate_coordinates

TURN_LIMIT = 10.0        # |X| (tan of the turn of the feasible motions since the chart, ~84 deg): a new chart
RANK_TOL = 1e-8          # pivots of G^T below this times the largest: dependent rows (eq. 4's numerically null R22)
RANK_GROWTH = 1e-6       # a dependent row's part outside the independent rows' span, relative: a new chart
LOG_CAPACITY = 1000      # chart changes whose time is kept (all are counted)
RANK, VALID, CHANGES, N_ROWS = range(4)
GREW = -1.0              # logged instead of |X| when a new chart was made for rows no longer dependent

NullspaceWorkspace = namedtuple("NullspaceWorkspace", "meta rows Q A piv X M Q2h MQ Mh work vec log")
NullspaceWorkspace.__doc__ = """The chart and scratch of the null-space formulation (new_nullspace_workspace).

meta int64 [rank r, chart valid, charts made after the first, rows m of the chart]; rows (n_rows)
int64: the independent rows first, then the dependent ones; Q (nv, nv) = [Q1 Q2]; A (n_rows, n_rows)
the LU factors of Psi'' Q1 with pivots piv; X (n_rows, nv): A^-1 Psi'' Q2 (r x f); M, Q2h, MQ, Mh
(nv, nv): the mass matrix, Q2^, M Q2^ and Q2^T M Q2^; work (nv, n_rows): G^T under decomposition;
vec (6, max(nv, n_rows)) vectors; log (LOG_CAPACITY, 2): [t, |X| or GREW] of each new chart after the first."""


def new_nullspace_workspace(n_rows, nv):
    n = max(nv, n_rows, 1)
    return NullspaceWorkspace(np.zeros(4, dtype=np.int64), np.zeros(n_rows, dtype=np.int64), np.zeros((nv, nv)),
                              np.zeros((n_rows, n_rows)), np.zeros(n_rows, dtype=np.int64), np.zeros((n_rows, nv)),
                              np.zeros((nv, nv)), np.zeros((nv, nv)), np.zeros((nv, nv)), np.zeros((nv, nv)),
                              np.zeros((nv, max(n_rows, 1))), np.zeros((6, n)), np.zeros((LOG_CAPACITY, 2)))


# ------------------------------------------------------------------------------- the QTZ decomposition
@njit(**JIT)
def decompose(G, rows, ns):
    """A new chart from the rows ``rows`` of G: Householder QR of G^T with column pivoting (eqs. 3–6,
    LAPACK's xGEQP3 order: the largest remaining column first), Q accumulated explicitly; rank r =
    the pivots above RANK_TOL |R_11|. ns.rows gets the rows in pivot order (the independent ones
    first)."""
    nv, m = G.shape[1], rows.shape[0]
    W, norms, Q = ns.work, ns.vec[0], ns.Q
    for k in range(m):
        ns.rows[k] = rows[k]
        s = 0.0
        for i in range(nv):
            W[i, k] = G[rows[k], i]
            s += W[i, k] * W[i, k]
        norms[k] = s
    for i in range(nv):
        for j in range(nv):
            Q[i, j] = 1.0 if i == j else 0.0
    rank, r11 = 0, 0.0
    for k in range(min(m, nv)):
        norm = pivot_column(W, k, nv, m, ns.rows, norms)
        if k == 0:
            r11 = norm
        if not norm > RANK_TOL * r11:
            break
        rank = k + 1
        alpha, unorm2 = reflect_columns(W, k, nv, m, norm, norms)
        for i in range(nv):                               # Q <- Q (I - 2 u u^T / u^T u)
            s = 0.0
            for l in range(k, nv):
                s += Q[i, l] * W[l, k]
            s *= 2.0 / unorm2
            for l in range(k, nv):
                Q[i, l] -= s * W[l, k]
        W[k, k] = alpha
    ns.meta[RANK], ns.meta[VALID], ns.meta[N_ROWS] = rank, 1, m


@njit(**JIT)
def lu_factor(A, n, piv):
    """LU factorization of A[:n, :n] in place with partial pivoting. Returns min |U_kk| / max |U_kk|
    (0: singular)."""
    smallest, largest = np.inf, 0.0
    for k in range(n):
        p = k
        for i in range(k + 1, n):
            if abs(A[i, k]) > abs(A[p, k]):
                p = i
        piv[k] = p
        if p != k:
            for j in range(n):
                A[k, j], A[p, j] = A[p, j], A[k, j]
        pivot = A[k, k]
        smallest, largest = min(smallest, abs(pivot)), max(largest, abs(pivot))
        if pivot == 0.0:
            return 0.0
        for i in range(k + 1, n):
            A[i, k] /= pivot
            for j in range(k + 1, n):
                A[i, j] -= A[i, k] * A[k, j]
    return smallest / largest if largest > 0.0 else 1.0


@njit(**INLINE)
def lu_solve(A, n, piv, x):
    """x <- A^-1 x on lu_factor's factors."""
    for k in range(n):
        p = piv[k]
        x[k], x[p] = x[p], x[k]
    for i in range(n):
        for j in range(i):
            x[i] -= A[i, j] * x[j]
    for i in range(n - 1, -1, -1):
        for j in range(i + 1, n):
            x[i] -= A[i, j] * x[j]
        x[i] /= A[i, i]


@njit(**INLINE)
def lu_solve_transposed(A, n, piv, x):
    """x <- A^-T x on lu_factor's factors (P A = L U: A^T y = x is U^T L^T P y = x)."""
    for i in range(n):
        for j in range(i):
            x[i] -= A[j, i] * x[j]
        x[i] /= A[i, i]
    for i in range(n - 1, -1, -1):
        for j in range(i + 1, n):
            x[i] -= A[j, i] * x[j]
    for k in range(n - 1, -1, -1):
        p = piv[k]
        x[k], x[p] = x[p], x[k]


@njit(**JIT)
def factor_chart(G, ns):
    """A = Psi''(q) Q1 factored and X = A^-1 Psi''(q) Q2 from the chart's rows of G at q (eqs. 31–32).
    Returns |X|_max, the tangent of the turn of the feasible motions since the chart, or inf when A
    is singular."""
    r, nv = ns.meta[RANK], G.shape[1]
    for i in range(r):
        row = ns.rows[i]
        for j in range(nv):
            s = 0.0
            for k in range(nv):
                s += G[row, k] * ns.Q[k, j]
            if j < r:
                ns.A[i, j] = s
            else:
                ns.X[i, j - r] = s
    if lu_factor(ns.A, r, ns.piv) < 1e-12:
        return np.inf
    turn, column = 0.0, ns.vec[0]
    for j in range(nv - r):
        for i in range(r):
            column[i] = ns.X[i, j]
        lu_solve(ns.A, r, ns.piv, column)
        for i in range(r):
            ns.X[i, j] = column[i]
            turn = max(turn, abs(column[i]))
    return turn


@njit(**JIT)
def outside_span(G, ns):
    """The largest part of a dependent row of the chart outside the independent rows' span at the current
    q, relative to the row: |G_d Q2^| / |G_d| (Q2^ spans the null space of Psi''(q)). Needs factor_chart."""
    r, nv = ns.meta[RANK], G.shape[1]
    largest = 0.0
    for k in range(r, ns.meta[N_ROWS]):
        row = ns.rows[k]
        norm = 0.0
        for i in range(nv):
            norm += G[row, i] * G[row, i]
        for c in range(nv - r):                           # G_d (Q2 - Q1 X) e_c
            s = 0.0
            for i in range(nv):
                qhat = ns.Q[i, r + c]
                for j in range(r):
                    qhat -= ns.Q[i, j] * ns.X[j, c]
                s += G[row, i] * qhat
            largest = max(largest, abs(s) / np.sqrt(max(norm, 1e-300)))
    return largest


@njit(**JIT)
def current_chart(model, data, cw, ns, q, v, t, after_step):
    """Every held row (held_rows) evaluated at (q, v) and a chart fit for q factored: the current one, or a new
    one when there is none, A has lost rank, |X| > TURN_LIMIT or a dependent row has left the
    independent rows' span (checked ``after_step`` only). A new chart replacing one is logged with t,
    a stage's too: it stays in use after the step. Returns whether A could be factored."""
    held = held_rows(data)
    constraint_state(model, data, cw, q, v, held)
    turn = factor_chart(cw.G, ns) if ns.meta[VALID] else np.inf
    if turn <= TURN_LIMIT and after_step and outside_span(cw.G, ns) > RANK_GROWTH:
        turn = GREW
    elif turn <= TURN_LIMIT:
        return True
    if ns.meta[VALID]:
        k = ns.meta[CHANGES]
        if k < LOG_CAPACITY:
            ns.log[k, 0], ns.log[k, 1] = t, turn
        ns.meta[CHANGES] = k + 1
    decompose(cw.G, held, ns)
    return factor_chart(cw.G, ns) < np.inf


# ------------------------------------------------------------------------------ velocities and dynamics
@njit(**JIT)
def consistent_velocity(ns, cw, con_t, v, sigma, out):
    """out = Q2^ w + Q1^ (b'' - sigma h'') with w = Q2^T v (eq. 33; sigma > 0: method B's eq. 13), b'' the
    chart rows' velocity targets f'. Needs factor_chart at the same q."""
    r, nv = ns.meta[RANK], v.shape[0]
    Q, e = ns.Q, ns.vec[1]
    for i in range(nv):                                   # out = Q2 Q2^T v
        out[i] = 0.0
    for j in range(r, nv):
        s = 0.0
        for k in range(nv):
            s += Q[k, j] * v[k]
        for i in range(nv):
            out[i] += Q[i, j] * s
    for i in range(r):                                    # e = b'' - sigma h'' - Psi'' out
        row = ns.rows[i]
        s = con_t[row, 1] - sigma * cw.h[row]
        for k in range(nv):
            s -= cw.G[row, k] * out[k]
        e[i] = s
    lu_solve(ns.A, r, ns.piv, e)                          # out += Q1 A^-1 e
    for i in range(nv):
        s = 0.0
        for j in range(r):
            s += Q[i, j] * e[j]
        out[i] += s


@njit(**JIT)
def reduced_accelerations(model, data, cw, ns, q, v, qdd):
    """qdd = Q1^ gamma'' + Q2^ pdd with (Q2^T M Q2^) pdd = Q2^T (f - M Q1^ gamma'') (eqs. 64, 67), at a
    consistent v with the generalized forces data.tau, and the independent rows' multipliers
    lambda = Q1^T (M qdd - f) into cw.lam (eq. 47). Needs factor_chart and gamma at (q, v). Returns OK or
    SINGULAR (Q2^T M Q2^ not positive definite)."""
    r, nv = ns.meta[RANK], v.shape[0]
    f_dof = nv - r
    Q, M, Q2h, MQ, Mh = ns.Q, ns.M, ns.Q2h, ns.MQ, ns.Mh
    f, a1, rhs, p = ns.vec[2], ns.vec[3], ns.vec[4], ns.vec[5]
    rnea(model, data, q, v, qdd, f)    # qdd = 0 on entry
    for i in range(nv):
        f[i] = data.tau[i] - f[i]
    crba(model, data, q, M)
    e = rhs
    for i in range(r):
        e[i] = cw.gamma[ns.rows[i]]
    lu_solve(ns.A, r, ns.piv, e)
    for i in range(nv):                                   # a1 = Q1 A^-1 gamma'', Q2^ = Q2 - Q1 X
        s = 0.0
        for j in range(r):
            s += Q[i, j] * e[j]
        a1[i] = s
        for c in range(f_dof):
            s = Q[i, r + c]
            for j in range(r):
                s -= Q[i, j] * ns.X[j, c]
            Q2h[i, c] = s
    for i in range(nv):                                   # f - M a1, M Q2^
        s = f[i]
        for k in range(nv):
            s -= M[i, k] * a1[k]
        qdd[i] = s
        for c in range(f_dof):
            s = 0.0
            for k in range(nv):
                s += M[i, k] * Q2h[k, c]
            MQ[i, c] = s
    for a in range(f_dof):                                # Q2^T M Q2^ and Q2^T (f - M a1)
        s = 0.0
        for k in range(nv):
            s += Q2h[k, a] * qdd[k]
        rhs[a] = s
        for b in range(a + 1):
            s = 0.0
            for k in range(nv):
                s += Q2h[k, a] * MQ[k, b]
            Mh[a, b] = Mh[b, a] = s
    if not cholesky_solve(Mh, rhs, f_dof, p):
        return SINGULAR
    for i in range(nv):
        s = a1[i]
        for c in range(f_dof):
            s += Q2h[i, c] * p[c]
        qdd[i] = s
    lam = ns.vec[1]
    for j in range(r):                                    # Q1^T (M qdd - f), then A^-T
        s = 0.0
        for i in range(nv):
            mq = -f[i]
            for k in range(nv):
                mq += M[i, k] * qdd[k]
            s += Q[i, j] * mq
        lam[j] = s
    lu_solve_transposed(ns.A, r, ns.piv, lam)
    cw.lam[:] = 0.0
    for j in range(r):
        cw.lam[ns.rows[j]] = lam[j]
    return OK


@njit(**JIT)
def nullspace_derivative(model, data, cw, ns, t, y, dy):
    """dy/dt = [H(q) (v^ - sigma Q1^ h''); qdd] at (t, y) with v^ the consistent part of v (eq. 33),
    qdd from reduced_accelerations (eqs. 64, 67), sigma = data.alpha. Returns OK, SINGULAR or a singular node."""
    nq, con_t, sigma = model.nq, data.con_t, data.alpha
    q, v = y[:nq], y[nq:]
    vhat, qdd = cw.scratch, dy[nq:]
    if not current_chart(model, data, cw, ns, q, v, t, False):
        return SINGULAR
    consistent_velocity(ns, cw, con_t, v, 0.0, vhat)
    constraint_state(model, data, cw, q, vhat, ns.rows[:ns.meta[RANK]])           # gamma
    for i in range(qdd.shape[0]):
        qdd[i] = 0.0
    status = reduced_accelerations(model, data, cw, ns, q, vhat, qdd)
    if status != OK:
        return status
    if sigma > 0.0:                                       # method B: the positions' velocity
        consistent_velocity(ns, cw, con_t, v, sigma, vhat)
    kinematic_map(model.node_i, q, vhat, dy[:nq])
    return OK


@njit(**JIT)
def nullspace_correct(model, data, cw, ns, t, q, v):
    """After a step: the dependent positions by Newton's method along Q1^ (data.drift PROJECTION: until
    |h''| <= 1e-3 atol or no longer shrinking; STABILIZATION: one iteration; otherwise none), then v
    <- its consistent part. Returns OK, NOT_CONVERGED or SINGULAR."""
    if not current_chart(model, data, cw, ns, q, v, t, True):
        return SINGULAR
    held, drift, atol = held_rows(data), data.drift, data.atol
    r, dq, s = ns.meta[RANK], ns.vec[2], ns.vec[3]
    iterations = MAX_ITERATIONS if drift == PROJECTION else 1 if drift == STABILIZATION else 0
    previous = np.inf
    for iteration in range(iterations + 1):
        residual = 0.0
        for row in held:
            residual = max(residual, abs(cw.h[row]))
        if residual <= 1e-3 * atol or not residual < previous or iteration == iterations:
            break
        previous = residual
        for i in range(r):
            s[i] = cw.h[ns.rows[i]]
        lu_solve(ns.A, r, ns.piv, s)
        for i in range(v.shape[0]):                       # dq = -Q1^ h''
            acc = 0.0
            for j in range(r):
                acc -= ns.Q[i, j] * s[j]
            dq[i] = acc
        integrate_coordinates(model.node_i, q, dq)
        normalize_quaternions(model.quat_q, q)
        constraint_state(model, data, cw, q, v, held)
        if factor_chart(cw.G, ns) == np.inf:
            return SINGULAR
    if iterations and not residual < max(1e3 * atol, 1e-9):
        return NOT_CONVERGED
    consistent_velocity(ns, cw, data.con_t, v, 0.0, cw.scratch)
    for i in range(v.shape[0]):
        v[i] = cw.scratch[i]
    return OK
