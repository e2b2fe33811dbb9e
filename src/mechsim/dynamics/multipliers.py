"""Lagrange multipliers of the loop constraints (Wood & Kennedy 2003, §3.1–3.2).

M vdot = f + G^T lambda with G vdot = gamma (eqs. 11–13): vdot = vdot_free + X lambda, X = M^-1 G^T,
and Lambda lambda = gamma - G vdot_free with Lambda = G X (eq. 14). Each column of X is one more
ABA solve on the factorization the free-acceleration pass left in the workspace (U, D^-1), over the
tree branches the row loads: O(n) per constraint row at most, no mass matrix; Lambda's entries sum over
each row's nonzero entries of G. With a spanning tree that keeps loops apart both are O(1) per row
(per pair of rows): a chain of loops costs O(n_c) for X, O(n_c^2) for Lambda. Lambda is solved by
Cholesky or, near singular configurations, by the truncated QR with column pivoting of eqs. 17–20.
"""
from collections import namedtuple

import numpy as np
from numba import njit

from ..spatial.algebra import INLINE, JIT, copy_into
from ..status import FRICTION_LOOP, OK, SINGULAR
from .constraints import ACTIVE, HELD, active_rows, evaluate_row, evaluate_rows, held_rows, velocity_product_accelerations
from .kernels import (PASS, aba, aba_tables, add_joint_acceleration, body_forces, carve, dof, forward_kinematics,
                      joint_acceleration, joint_bias_force, transmitted_forces, u_dinv)
from .layout import NODE_A, NODE_B, PARENT, PTYPE, VI

CHOLESKY, QR = 0, 1
# Numerical rank of Lambda: pivots below RANK_TOL times the largest count as zero. Eq. 18 puts this at
# n_c eps, but Lambda's singular values are squares of G's, and near a singular position (the N four-bar
# lying flat) the rounding in f_lambda along the vanishing direction would be amplified by 1/sigma^2 and
# throw the solution off its branch; 1e-9 drops those directions (|sigma| < ~3e-5 |sigma_max| of G),
# which the projection then holds at position level. Keeping them does not pay: Gauss's principle solved without
# squaring (qdd = qdd_free + C (G C)^+ f_lambda, C C^T = M^-1; Udwadia & Kalaba 1992, Proc. R. Soc. Lond. A 439,
# 407–410, by a truncated QR of (G C)^T) gives the 40-loop N four-bar's exact accelerations to ~1e-9 rad of flat,
# but they then change by ~22 eps / delta rad/s^2 for a state eps off the motion at delta rad from flat, and the
# integrators' stages are off it by their drift: RK45 at 1e-8 reversed the crank's rate at the flat position
# (a bounce). Dropping the directions is the regularization that keeps the run on its branch.
RANK_TOL = 1e-9
# When the independent rows' Cholesky fails and the truncated QR of every held row drops a direction whose pivot is
# above NEAR_DEPENDENT times the largest, that direction was not dependent, only nearly so: the solve lost its
# constraint force (a singular position passed, the N four-bar lying flat; ConstraintWorkspace.dropped). Exactly
# dependent rows (a redundant loop) leave pivots of rounding size, ~n eps.
NEAR_DEPENDENT = 1e-12

# The workspace of the constraint solves, and ``slide``: the contacts of the current mode that slide
# (simulation/hybrid), per normal row [first tangent row (the second follows it) or -1, kinetic
# friction coefficient mu, the slip direction (d1, d2) along the tangents to use while the slip speed is
# zero, the slip direction (s1, s2) used at the last evaluation]; ``F`` the rows' force directions.
# ``friction``: the joint frictions whose levels grow with the joint's load (modeling/forces.py
# JointFriction, mu=), per element [v index, node, 1 for a prismatic guide (0: a revolute pin), slip
# direction (+-1 slipping, 0 stuck), constant kinetic level, mu_k x radius]: the slipping ones' tau
# entries are solved together with the accelerations (solve_constrained); ``scratch`` (nv) for them.
# ``penalized``: the rows the penalty formulation turns into spring-dampers, ``penalty`` per row [stiffness,
# damping, the force lambda of the last evaluation, compliance 1/alpha of the augmented Lagrangian], ``tau_p``
# (nv) the generalized forces with theirs; ``iterations`` [n]: n > 0 solves the penalized rows with the held
# ones by the augmented Lagrangian (n iterations at most, multipliers), 0 makes them springs (penalty_forces);
# ``row_set`` (n_rows) holds the rows of one solve, held and penalized together (join_penalized).
# ``dropped`` [n]: the acceleration solves so far that fell back to the truncated QR and dropped a nearly dependent
# direction (NEAR_DEPENDENT; the run's stats report it). ``live`` (n_rows): the rows of a truncated QR solve whose G is
# not all 0 (nonzero_rows).
# Where G and X are nonzero (sparsity.py, shared by every workspace of the model): ``tree_order``, ``branch_span``,
# ``v_branch``, ``branch_cols``, ``branch_col_span``, ``row_cols``, ``row_branches``. Their scratch: ``x_row``
# (n_rows): the row whose solve each column of X holds (-1: none; constraint_jacobian_solves), ``envelope`` (n_rows, 2):
# per row of Lambda its first column and the last row reaching its column (form_lambda, cholesky_solve), ``by_branch``,
# ``branch_end``, ``partners``, ``mark``: form_lambda's rows by branch.
ConstraintWorkspace = namedtuple("ConstraintWorkspace", "acc0 wrench h hd gamma G F X Lam rhs mu lam work slide "
                                                        "friction scratch penalized penalty tau_p iterations row_set "
                                                        "live dropped tree_order branch_span v_branch branch_cols "
                                                        "branch_col_span row_cols row_branches x_row envelope "
                                                        "by_branch branch_end partners mark")
STIFFNESS, DAMPING, FORCE, COMPLIANCE = range(4)
SLIDE_COLS = 6
TANGENT, MU, D1, D2, S1, S2 = range(SLIDE_COLS)
FRICTION_COLS = 6
F_VI, F_NODE, F_PRISMATIC, F_SIGN, F_KINETIC, F_MU = range(FRICTION_COLS)
FRICTION_ITERATIONS = 100
AL_TOLERANCE = 1e-14    # the augmented Lagrangian stops when an iteration changes lambda less than this, relative


def new_constraint_workspace(n_rows, nv, sparsity, n_friction=0, penalized=(), iterations=0):
    """The workspace of a model with ``n_rows`` constraint rows, ``nv`` velocity coordinates and the Sparsity
    ``sparsity`` (sparsity.py; read only, so shared by every workspace of the model: CompiledModel.sparsity)."""
    slide = np.zeros((n_rows, SLIDE_COLS))
    slide[:, TANGENT] = -1.0
    n_nodes = sparsity.branch_span.shape[0]
    return ConstraintWorkspace(np.zeros((n_nodes, 6)), np.zeros((n_rows, 6)), np.zeros(n_rows), np.zeros(n_rows),
                               np.zeros(n_rows), np.zeros((n_rows, nv)), np.zeros((n_rows, nv)), np.zeros((nv, n_rows)),
                               np.zeros((n_rows, n_rows)), np.zeros(n_rows), np.zeros(n_rows), np.zeros(n_rows),
                               np.zeros((n_rows + 3, max(n_rows, nv, 1))), slide, np.zeros((n_friction, FRICTION_COLS)),
                               np.zeros(nv), np.array(penalized, dtype=np.int64), np.zeros((n_rows, 4)), np.zeros(nv),
                               np.array([iterations], dtype=np.int64), np.zeros(n_rows, dtype=np.int64),
                               np.zeros(n_rows, dtype=np.int64), np.zeros(1, dtype=np.int64), *sparsity,
                               np.full(n_rows, -1, dtype=np.int64), np.zeros((n_rows, 2), dtype=np.int64),
                               np.zeros(sparsity.row_branches.size, dtype=np.int64), np.zeros(n_nodes, dtype=np.int64),
                               np.zeros(n_rows, dtype=np.int64), np.zeros(n_rows, dtype=np.int64))


@njit(**PASS)
def aba_solve(node_i, w, cw, tau, branches, x):
    """x = M^-1 tau on the factorization of the last aba call in the workspace views w (RBDA Table 7.1 with
    v = 0, no gravity: the bias terms vanish, so only the u/pA backward and the acceleration forward sweeps remain),
    written on the ``branches`` tau loads only ([count, branch...]: sparsity.py row_branches): branches leaving a
    fixed base do not couple (M is block diagonal over them), so x is 0 on the others, which are left as they are.
    A loop's row of G loads the branches the loop runs through, so with a spanning tree that keeps loops apart (the N
    four-bar's cranks each on the ground) a solve costs the nodes of its loop, not the whole tree's."""
    S, U, Dinv, u, pA, acc = w.S, w.U, w.Dinv, w.u, w.pA, w.acc
    tree_order, branch_span = cw.tree_order, cw.branch_span
    for b in branches[1:1 + branches[0]]:
        start, end = branch_span[b, 0], branch_span[b, 1]
        for o in range(start, end):
            pA[tree_order[o], :] = 0.0
        for o in range(end - 1, start - 1, -1):
            i = tree_order[o]
            parent, vi, nd = node_i[i, PARENT], node_i[i, VI], dof(node_i[i, PTYPE])
            joint_bias_force(S, pA, tau, u, i, vi, nd)
            if parent >= 0:                               # pA_parent += pA + U D^-1 u
                for r in range(6):
                    pa = pA[i, r]
                    for k in range(nd):
                        pa += u_dinv(U, Dinv, i, r, k, nd) * u[i, k]
                    pA[parent, r] += pa
        for o in range(start, end):
            i = tree_order[o]
            parent, vi, nd = node_i[i, PARENT], node_i[i, VI], dof(node_i[i, PTYPE])
            for r in range(6):
                acc[i, r] = acc[parent, r] if parent >= 0 else 0.0
            joint_acceleration(U, Dinv, u, acc, x, i, vi, nd)
            add_joint_acceleration(S, x, acc, i, vi, nd)


@njit(**INLINE)
def cholesky_solve(A, b, n, x, envelope=None):
    """Solve A x = b for symmetric positive definite A (n x n; its lower triangle is read and overwritten by its
    factor L). False if a pivot is not clearly positive: A is singular to working precision. Envelope (profile)
    Cholesky (George & Liu 1981, Computer Solution of Large Sparse Positive Definite Systems, §4.2): row i of A and
    of L is 0 before column envelope[i, 0], which form_lambda writes, and entries there are neither read nor written,
    so a banded A of bandwidth b (a chain of loops on a tree that keeps them apart) costs O(n b^2); envelope[:, 1]
    gets each column's last row reaching it. ``envelope`` None: A is dense."""
    close_envelope(envelope, n)
    largest = 0.0
    for k in range(n):
        largest = max(largest, A[k, k])
    for k in range(n):
        fk = first_column(envelope, k)
        s = A[k, k]
        for j in range(fk, k):
            s -= A[k, j] * A[k, j]
        if not s > RANK_TOL * largest:
            return False
        A[k, k] = np.sqrt(s)
        for i in range(k + 1, last_row(envelope, k, n) + 1):
            fi = first_column(envelope, i)
            if fi > k:
                continue
            s = A[i, k]
            for j in range(max(fi, fk), k):
                s -= A[i, j] * A[k, j]
            A[i, k] = s / A[k, k]
    for i in range(n):                    # L y = b, then L^T x = y
        s = b[i]
        for j in range(first_column(envelope, i), i):
            s -= A[i, j] * x[j]
        x[i] = s / A[i, i]
    for i in range(n - 1, -1, -1):
        s = x[i]
        for j in range(i + 1, last_row(envelope, i, n) + 1):
            if first_column(envelope, j) <= i:
                s -= A[j, i] * x[j]
        x[i] = s / A[i, i]
    return True


@njit(**INLINE)
def close_envelope(envelope, n):
    """envelope[k, 1] = the last row i whose envelope starts at or before column k (at least k)."""
    if envelope is None:
        return
    for k in range(n):
        envelope[k, 1] = k
    for i in range(n):
        envelope[envelope[i, 0], 1] = max(envelope[envelope[i, 0], 1], i)
    for k in range(1, n):
        envelope[k, 1] = max(envelope[k, 1], envelope[k - 1, 1])


@njit(**INLINE)
def first_column(envelope, i):
    """The first column of row i in the envelope (0: dense)."""
    return 0 if envelope is None else envelope[i, 0]


@njit(**INLINE)
def last_row(envelope, k, n):
    """The last row reaching column k in the envelope (n - 1: dense)."""
    return n - 1 if envelope is None else envelope[k, 1]


@njit(**INLINE)
def pivot_column(A, k, n_rows, n_cols, perm, norms):
    """Step k of a QR with column pivoting (LAPACK xGEQP3's order) on A[:n_rows, :n_cols]: the remaining
    column of largest norm (``norms``: the squared norms of the columns' parts below row k) swapped into
    column k, with its entry of ``perm``. Returns its norm, |A[k:, k]|."""
    p = k
    for j in range(k + 1, n_cols):
        if norms[j] > norms[p]:
            p = j
    if p != k:
        for i in range(n_rows):
            A[i, k], A[i, p] = A[i, p], A[i, k]
        perm[k], perm[p] = perm[p], perm[k]
        norms[k], norms[p] = norms[p], norms[k]
    alpha = 0.0
    for i in range(k, n_rows):
        alpha += A[i, k] * A[i, k]
    return np.sqrt(alpha)


@njit(**INLINE)
def reflect_columns(A, k, n_rows, n_cols, norm, norms):
    """The Householder reflection I - 2 u u^T / u^T u that zeroes A[k+1:, k] (norm: |A[k:, k]|): u into
    A[k:, k], applied to the columns after k, whose ``norms`` are updated. Returns (R_kk, u^T u)."""
    alpha = -norm if A[k, k] > 0 else norm
    A[k, k] -= alpha
    unorm2 = 0.0
    for i in range(k, n_rows):
        unorm2 += A[i, k] * A[i, k]
    for j in range(k + 1, n_cols):
        s = 0.0
        for i in range(k, n_rows):
            s += A[i, k] * A[i, j]
        s *= 2.0 / unorm2
        norms[j] = 0.0
        for i in range(k, n_rows):
            A[i, j] -= s * A[i, k]
            if i > k:
                norms[j] += A[i, j] * A[i, j]
    return alpha, unorm2


@njit(**INLINE)
def truncated_qr_solve(A, b, n, x, work):
    """x = E [R11^-1 Q~^T b; 0] (Wood & Kennedy 2003, eqs. 17–20): Householder QR of A (overwritten) with column
    pivoting, rank r = max k with |R_kk| > RANK_TOL |R_11| (eq. 18, tolerance above); the minimum-norm
    solution in the projected subspace. work: (3, >= n) scratch. Returns (the rank, |R_kk| / |R_11| of the first
    column dropped, 0 if none)."""
    perm, norms, qtb = work[0], work[1], work[2]
    for j in range(n):
        perm[j] = j
        qtb[j] = b[j]
        s = 0.0
        for i in range(n):
            s += A[i, j] * A[i, j]
        norms[j] = s
    rank, r11, gap = n, 0.0, 0.0
    for k in range(n):
        norm = pivot_column(A, k, n, n, perm, norms)
        if k == 0:
            r11 = norm
        if not norm > RANK_TOL * r11:
            rank, gap = k, norm / r11 if r11 > 0.0 else 0.0
            break
        alpha, vnorm2 = reflect_columns(A, k, n, n, norm, norms)
        s = 0.0                                           # Q~^T b
        for i in range(k, n):
            s += A[i, k] * qtb[i]
        s *= 2.0 / vnorm2
        for i in range(k, n):
            qtb[i] -= s * A[i, k]
        A[k, k] = alpha                                   # R_kk
    for i in range(n):
        x[i] = 0.0
    for i in range(rank - 1, -1, -1):                     # R11 z = Q~^T b, x = E [z; 0]
        s = qtb[i]
        for j in range(i + 1, rank):
            s -= A[i, j] * qtb[j]
        qtb[i] = s / A[i, i]
    for i in range(rank):
        x[int(perm[i])] = qtb[i]
    return rank, gap


@njit(**INLINE)
def solve_symmetric(A, b, n, x, solver, work, envelope):
    """Lambda x = b by Cholesky on the envelope form_lambda left (solver CHOLESKY; not solved if Lambda is not
    clearly positive definite) or truncated QR (solver QR, on a dense Lambda; not solved if the solution is not
    finite). A is overwritten. Returns (whether solved, the largest dropped pivot relative to the first:
    truncated_qr_solve's gap, 0 for Cholesky)."""
    if solver == CHOLESKY:
        return cholesky_solve(A, b, n, x, envelope), 0.0
    _, gap = truncated_qr_solve(A, b, n, x, work)
    for i in range(n):
        if not np.isfinite(x[i]):
            return False, gap
    return True, gap


@njit(**INLINE)
def constraint_jacobian_solves(node_i, ws, cw, rows, G):
    """cw.X[:, k] = M^-1 G[rows[k]]^T on the last aba factorization (G: cw.G, or the force directions cw.F), exactly
    0 off the branches the row loads: the branches of the row whose solve the column held before (cw.x_row) are
    cleared first, so that X is never cleared whole."""
    w = carve(ws)
    for k in range(rows.shape[0]):
        row, previous = rows[k], cw.x_row[k]
        if previous >= 0 and previous != row:
            for_branch_columns(cw, previous, cw.X, k, 0.0, None)
        aba_solve(node_i, w, cw, G[row], cw.row_branches[row], cw.X[:, k])
        cw.x_row[k] = row


@njit(**INLINE)
def for_branch_columns(cw, row, X, k, weight, out):
    """Over the velocity coordinates j of the branches ``row`` loads: out[j] += weight * X[j, k], or with ``out``
    None X[j, k] = 0."""
    branches = cw.row_branches[row]
    for b in branches[1:1 + branches[0]]:
        for o in range(cw.branch_col_span[b, 0], cw.branch_col_span[b, 1]):
            j = cw.branch_cols[o]
            if out is None:
                X[j, k] = 0.0
            else:
                out[j] += weight * X[j, k]


@njit(**INLINE)
def add_solves(cw, rows, weights, out):
    """out += X weights over the columns of the given rows' solves (constraint_jacobian_solves), each on the
    branches its row loads."""
    for k in range(rows.shape[0]):
        for_branch_columns(cw, rows[k], cw.X, k, weights[k], out)


@njit(**INLINE)
def row_dot(cw, G, row, x):
    """G[row] . x over the row's columns (sparsity.py row_cols; G[row] is 0 elsewhere)."""
    s = 0.0
    for c in range(1, cw.row_cols[row, 0] + 1):
        j = cw.row_cols[row, c]
        s += G[row, j] * x[j]
    return s


@njit(**INLINE)
def form_lambda(cw, rows, dense):
    """Lambda = G X over the given rows (eq. 14; X = M^-1 G^T, or D G^T in a projection), symmetrized, into cw.Lam.
    Two rows have a nonzero entry only if their G load a common branch of the tree (X's column of a row is 0 off the
    branches it loads: constraint_jacobian_solves), and each product runs over the row's columns (row_dot). The
    rows of each branch (rows_by_branch) give those pairs without testing all n^2. Row k's entries are written from
    its first partner's column to the diagonal (0 where no branch is shared), that column kept as its envelope
    (cw.envelope[k, 0]: cholesky_solve); with ``dense`` (the truncated QR reads all n^2 entries) the rest is 0 and
    the upper triangle written too. With a spanning tree that keeps loops apart Lambda is banded (each loop of a
    chain of loops couples to its neighbours) and this costs O(rows)."""
    n, G, X, Lam, mark, partners = rows.shape[0], cw.G, cw.X, cw.Lam, cw.mark, cw.partners
    rows_by_branch(cw, rows)
    if dense:
        for k in range(n):
            Lam[k, :n] = 0.0
    mark[:n] = -1
    for k in range(n):
        count, first = 0, k
        branches = cw.row_branches[rows[k]]
        for b in branches[1:1 + branches[0]]:
            for o in range(cw.branch_end[b - 1] if b > 0 else 0, cw.branch_end[b]):
                l = cw.by_branch[o]
                if l > k:
                    break
                if mark[l] != k:
                    mark[l] = k
                    partners[count] = l
                    count += 1
                    first = min(first, l)
        cw.envelope[k, 0] = first
        Lam[k, first:k + 1] = 0.0
        for p in range(count):
            l = partners[p]
            Lam[k, l] = Lam[l, k] = 0.5 * (row_dot(cw, G, rows[k], X[:, l]) + row_dot(cw, G, rows[l], X[:, k]))


@njit(**INLINE)
def rows_by_branch(cw, rows):
    """cw.by_branch: the places k of the given rows grouped by the branches their G loads, ascending within each;
    branch b's are by_branch[branch_end[b - 1] : branch_end[b]] (from 0 for b = 0). A counting sort: O(rows + nodes)."""
    end = cw.branch_end
    end[:] = 0
    for row in rows:
        branches = cw.row_branches[row]
        for b in branches[1:1 + branches[0]]:
            end[b] += 1
    for b in range(1, end.shape[0]):
        end[b] += end[b - 1]
    for b in range(end.shape[0] - 1, 0, -1):              # each branch's start, then filled up to its end
        end[b] = end[b - 1]
    end[0] = 0
    for k in range(rows.shape[0]):
        branches = cw.row_branches[rows[k]]
        for b in branches[1:1 + branches[0]]:
            cw.by_branch[end[b]] = k
            end[b] += 1


@njit(**JIT)
def form_coupled_lambda(G, X, rows, Lam):
    """Lambda = G X over the given rows, X = M^-1 F^T with force directions F other than G (sliding
    friction): not symmetric."""
    n, nv = rows.shape[0], G.shape[1]
    for k in range(n):
        for l in range(n):
            s = 0.0
            for j in range(nv):
                s += G[rows[k], j] * X[j, l]
            Lam[k, l] = s


@njit(**INLINE)
def any_sliding(slide, rows):
    """Whether a contact among ``rows`` slides (ConstraintWorkspace.slide; None: the model has none that can)."""
    if slide is None:
        return False
    for row in rows:
        if slide[row, TANGENT] >= 0.0:
            return True
    return False


@njit(**JIT)
def sliding_directions(model, data, cw, rows, q, v):
    """For each sliding contact among ``rows`` (cw.slide): its tangent rows evaluated, the slip direction
    s = the slip velocity's (unit, along the tangents; the mode's direction d while the slip is zero or
    against d), and the normal row's force direction F = G_n - mu (s1 G_t1 + s2 G_t2): Coulomb's
    kinetic friction mu lambda_n opposing the slip (Pfeiffer & Glocker 1996, Multibody Dynamics with
    Unilateral Contacts, §4.2). Every other row's F is its G. A separate compiled call, made only while
    some contact slides: inlined, it would grow every constrained evaluation."""
    w = carve(data.ws)
    for row in rows:
        copy_into(cw.G[row], cw.F[row])
        t1 = int(cw.slide[row, TANGENT])
        if t1 < 0:
            continue
        for t in (t1, t1 + 1):
            evaluate_row(model, data.con_t, w, cw, t, q, v)
        s1, s2, d1, d2 = cw.hd[t1], cw.hd[t1 + 1], cw.slide[row, D1], cw.slide[row, D2]
        speed = np.sqrt(s1 * s1 + s2 * s2)
        if speed > 0.0 and s1 * d1 + s2 * d2 > 0.0:
            s1, s2 = s1 / speed, s2 / speed
        else:
            s1, s2 = d1, d2
        cw.slide[row, S1], cw.slide[row, S2] = s1, s2
        mu = cw.slide[row, MU]
        for j in range(cw.F.shape[1]):
            cw.F[row, j] -= mu * (s1 * cw.G[t1, j] + s2 * cw.G[t1 + 1, j])


@njit(**PASS)
def multipliers(model, data, cw, rows, solver, qdd, sliding):
    """Solve Lambda lambda = f_lambda over the given rows (eqs. 12–14) and add X lambda to the free
    accelerations in qdd; cw.lam holds every row's multiplier (0 for rows left out: those whose G is 0, with QR or
    where the active rows are every held row: nonzero_rows). Baumgarte's
    -2 alpha hdot - beta^2 h (data.alpha, data.beta) enter f_lambda. With contacts that slide (``sliding``, the force
    directions cw.F from sliding_directions), Lambda = G M^-1 F^T is not symmetric: truncated QR, and
    each sliding contact's tangent rows get the friction's multipliers -mu s lambda_n. A row with a
    compliance d = 1/alpha (cw.penalty, the penalty formulation's augmented Lagrangian) is held instead by
    lambda = lambda* - alpha (hddot + d c hdot + d k h): d on its diagonal of Lambda, its own stabilization
    in f_lambda, and the iterations of augmented_lagrangian. Returns (solved: False if the solver fails, qdd then
    unchanged; the truncated QR's largest dropped pivot relative to the first, solve_symmetric)."""
    if not sliding and (solver == QR or data.counts[ACTIVE] == data.counts[HELD]):
        rows = cw.live[:nonzero_rows(cw, rows, cw.live)]
    n, alpha, beta = rows.shape[0], data.alpha, data.beta
    soft = False
    for k in range(n):                                    # f_lambda = gamma - G qdd_free (eq. 13)
        row = rows[k]
        d = cw.penalty[row, COMPLIANCE]
        if d > 0.0:
            soft = True
            s = cw.gamma[row] - d * (cw.penalty[row, DAMPING] * cw.hd[row] + cw.penalty[row, STIFFNESS] * cw.h[row])
        else:
            s = cw.gamma[row] - 2.0 * alpha * cw.hd[row] - beta * beta * cw.h[row]
        cw.rhs[k] = s - row_dot(cw, cw.G, row, qdd)
    constraint_jacobian_solves(model.node_i, data.ws, cw, rows, cw.F if sliding else cw.G)
    if sliding:
        form_coupled_lambda(cw.G, cw.X, rows, cw.Lam)
        solver = QR
    else:
        form_lambda(cw, rows, solver == QR)
    if soft:
        for k in range(n):
            cw.Lam[k, k] += cw.penalty[rows[k], COMPLIANCE]
        copy_square(cw.Lam, cw.work[3:], n)               # kept for the iterations
    solved, gap = solve_symmetric(cw.Lam, cw.rhs, n, cw.mu, solver, cw.work, cw.envelope)
    if not solved:
        return False, gap
    cw.lam[:] = 0.0
    for k in range(n):
        cw.lam[rows[k]] = cw.mu[k]
    if soft and not augmented_lagrangian(cw, rows, solver):
        return False, gap
    for k in range(n):
        cw.mu[k] = cw.lam[rows[k]]
    add_solves(cw, rows, cw.mu, qdd)                      # qdd = qdd_free + X lambda
    if sliding:
        for row in rows:
            t1 = int(cw.slide[row, TANGENT])
            if t1 >= 0:
                cw.lam[t1] = -cw.slide[row, MU] * cw.slide[row, S1] * cw.lam[row]
                cw.lam[t1 + 1] = -cw.slide[row, MU] * cw.slide[row, S2] * cw.lam[row]
    return True, gap


@njit(**INLINE)
def nonzero_rows(cw, rows, out):
    """out[:count] = the rows whose G (cw.G) is not all 0; returns count. Their Lambda rows and columns are 0
    (multiplier 0): the truncated QR would leave them out at the cost of their n^2 entries at every pivot, and they
    make Cholesky fail where no redundancy analysis kept them out of the active rows (the Data of
    ms.forward_dynamics: every row), sending every evaluation to the O(n^3) QR. A planar loop's three out-of-plane
    rows, 120 of the N four-bar's 200."""
    count = 0
    for row in rows:
        for c in range(1, cw.row_cols[row, 0] + 1):
            if cw.G[row, cw.row_cols[row, c]] != 0.0:
                out[count] = row
                count += 1
                break
    return count


@njit(**INLINE)
def augmented_lagrangian(cw, rows, solver):
    """The augmented Lagrangian's iterations (Bayo, García de Jalón & Serna 1988, A modified Lagrangian
    formulation for the dynamic analysis of constrained mechanical systems, CMAME 71, 183–195; in relative
    coordinates Blajer 2002, Augmented Lagrangian formulation: geometrical interpretation and application
    to systems with singularities and redundancy, Multibody Syst. Dyn. 8, 141–159): with alpha = 1/d
    on the compliant rows, lambda*_{j+1} = lambda_j and (Lambda + D) lambda_{j+1} = f_lambda + D lambda_j,
    the same as (M + G^T alpha G) qdd_{j+1} = M qdd_j - G^T alpha (c/alpha hdot + k/alpha h - gamma) by
    the matrix inversion lemma. Each step solves (Lambda + D) delta_{j+1} = D delta_j for the change,
    cw.iterations[0] steps at most, until it is below AL_TOLERANCE of lambda; they converge to
    Lambda lambda = f_lambda, as fast as alpha is large against the rows' effective masses. cw.mu holds
    lambda_1 on entry, cw.work[3:] Lambda + D; False if a solve fails."""
    n = rows.shape[0]
    for _ in range(cw.iterations[0]):
        for k in range(n):
            cw.rhs[k] = cw.penalty[rows[k], COMPLIANCE] * cw.mu[k]
        copy_square(cw.work[3:], cw.Lam, n)
        if not solve_symmetric(cw.Lam, cw.rhs, n, cw.mu, solver, cw.work, cw.envelope)[0]:
            return False
        size, change = 0.0, 0.0
        for k in range(n):
            cw.lam[rows[k]] += cw.mu[k]
            size, change = max(size, abs(cw.lam[rows[k]])), max(change, abs(cw.mu[k]))
        if change <= AL_TOLERANCE * size:
            break
    return True


@njit(**INLINE)
def n_augmented(cw, penalized):
    """How many rows the augmented Lagrangian holds (none outside the penalty formulation: ``penalized`` None)."""
    if penalized is None:
        return 0
    return penalized.shape[0] if cw.iterations[0] > 0 else 0


@njit(**INLINE)
def copy_square(A, B, n):
    """B[:n, :n] = A[:n, :n]."""
    for i in range(n):
        for j in range(n):
            B[i, j] = A[i, j]


@njit(**INLINE)
def join_penalized(rows, cw):
    """cw.row_set[:n] = ``rows`` followed by the penalized rows, which the augmented Lagrangian solves with
    the held ones; returns n."""
    n = rows.shape[0]
    for k in range(n):
        cw.row_set[k] = rows[k]
    for k in range(cw.penalized.shape[0]):
        cw.row_set[n + k] = cw.penalized[k]
    return n + cw.penalized.shape[0]


@njit(**INLINE)
def constrained_dynamics(model, data, cw, q, v, tau, qdd):
    """qdd of the tree with the loop constraints and drivers enforced by multipliers (eqs. 11–13), the
    force values data.u and constraint targets data.con_t, the settings of data (solver, Baumgarte), and the
    load frictions of cw. Returns OK, a singular node or SINGULAR."""
    return solve_constrained(model, data, cw, cw.friction, cw.penalized, cw.slide, q, v, tau, qdd)


@njit(**JIT)
def solve_constrained(model, data, cw, friction, penalized, slide, q, v, tau, qdd):
    """constrained_dynamics (constrained_accelerations). ``friction``, ``penalized`` and ``slide`` are the
    workspace's cw.friction, cw.penalized and cw.slide, each None where the run has none (data.py
    optional_tables), which then compiles none of their code. A joint friction slipping under a level that grows
    with the joint's load acts through tau, and the load depends on it: the two are solved by fixed-point
    iteration from the friction of the last evaluation (one or two solves where it changes slowly). It fails to
    converge (FRICTION_LOOP) only where friction self-locks the joint: mu times the pin radius not small against
    the lever arms."""
    if friction is None:                         # numba keeps one of the two call sites: inlined once
        return constrained_accelerations(model, data, cw, penalized, slide, q, v, tau, qdd)
    for _ in range(FRICTION_ITERATIONS):
        status = constrained_accelerations(model, data, cw, penalized, slide, q, v, tau, qdd)
        if status != OK or not any_slipping(friction) or not load_friction(model, data, cw, q, v, qdd, tau):
            return status
    return FRICTION_LOOP


@njit(**INLINE)
def any_slipping(friction):
    for k in range(friction.shape[0]):
        if friction[k, F_SIGN] != 0.0:
            return True
    return False


@njit(**JIT)
def load_friction(model, data, cw, q, v, qdd, tau):
    """tau[vi] = -d (F_k + mu_k r |F_perp|) of each slipping load friction (cw.friction), F_perp the
    joint's load at qdd (transverse_load). Returns whether one changed by more than 1e-13 relative. A
    call of its own (JIT), made only while such a friction slips."""
    joint_loads(model, data, cw, q, v, qdd)
    w = carve(data.ws)
    changed = False
    for k in range(cw.friction.shape[0]):
        sign = cw.friction[k, F_SIGN]
        if sign == 0.0:
            continue
        vi = int(cw.friction[k, F_VI])
        level = cw.friction[k, F_KINETIC] + cw.friction[k, F_MU] * transverse_load(
            w.S, w.pA, int(cw.friction[k, F_NODE]), cw.friction[k, F_PRISMATIC] > 0.0)
        changed = changed or abs(tau[vi] + sign * level) > 1e-13 * max(1.0, level)
        tau[vi] = -sign * level
    return changed


@njit(**JIT)
def joint_loads(model, data, cw, q, v, qdd):
    """joint_wrenches into the workspace's pA with the multipliers of the last solve (cw.lam), as a call of its
    own (for the event signals)."""
    joint_wrenches(model, data, cw.lam, cw.wrench, q, v, qdd, cw.scratch)


@njit(**JIT)
def friction_loads(model, data, cw, q, v, qdd, out):
    """|F_perp| (transverse_load) of each load friction (cw.friction) at (q, v, qdd), with the multipliers
    of the last solve in cw.lam."""
    joint_loads(model, data, cw, q, v, qdd)
    w = carve(data.ws)
    for k in range(out.shape[0]):
        out[k] = transverse_load(w.S, w.pA, int(cw.friction[k, F_NODE]), cw.friction[k, F_PRISMATIC] > 0.0)


@njit(**INLINE)
def transverse_load(S, f, node, prismatic):
    """|F_perp|: the force a 1-DOF joint transmits (f[node], a wrench [torque; force]) across its axis, the
    angular part of S for a revolute pin and the linear part for a prismatic guide (both unit)."""
    k = 3 if prismatic else 0
    fx, fy, fz = f[node, 3], f[node, 4], f[node, 5]
    along = fx * S[node, k, 0] + fy * S[node, k + 1, 0] + fz * S[node, k + 2, 0]
    return np.sqrt(max(fx * fx + fy * fy + fz * fz - along * along, 0.0))


@njit(**PASS)
def constrained_accelerations(model, data, cw, penalized, slide, q, v, tau, qdd):
    """The accelerations and multipliers at the given tau: the penalized rows' spring-damper forces
    (penalty_forces) added to tau, or with the augmented Lagrangian solved with the held rows; the held rows
    enforced by multipliers (rigid_accelerations). ``penalized`` None: not the penalty formulation."""
    if penalized is None:
        return rigid_accelerations(model, data, cw, penalized, slide, q, v, tau, qdd)
    springs = penalized.shape[0] > 0 and cw.iterations[0] == 0
    forces = tau
    if springs:
        penalty_forces(model, data, cw, q, v, tau)
        forces = cw.tau_p
    status = rigid_accelerations(model, data, cw, penalized, slide, q, v, forces, qdd)
    if springs:
        for row in penalized:
            cw.lam[row] = cw.penalty[row, FORCE]
    return status


@njit(**JIT)
def penalty_forces(model, data, cw, q, v, tau):
    """cw.tau_p = tau + G^T lambda over the penalized rows, lambda = -(k h + c hdot): each constraint
    replaced by a spring-damper on its violation (Khan, Tang & Krovi 2006, eq. 10, with a damper;
    García de Jalón & Bayo 1994, Kinematic and Dynamic Simulation of Multibody Systems, §5.1.4).
    The forces are kept in cw.penalty[:, FORCE]; a call of its own, made only by the penalty formulation."""
    w = carve(data.ws)
    forward_kinematics(model, q, v, w)
    velocity_product_accelerations(model.node_i, w.c, cw.acc0)
    evaluate_rows(model, data, cw, cw.penalized, q, v)
    copy_into(tau, cw.tau_p)
    for row in cw.penalized:
        lam = -(cw.penalty[row, STIFFNESS] * cw.h[row] + cw.penalty[row, DAMPING] * cw.hd[row])
        cw.penalty[row, FORCE] = lam
        for j in range(cw.tau_p.shape[0]):
            cw.tau_p[j] += cw.G[row, j] * lam


@njit(**INLINE)
def rigid_accelerations(model, data, cw, penalized, slide, q, v, tau, qdd):
    """The accelerations and multipliers of the held rows (held_rows) at the given tau. Cholesky works on the
    active rows (active_rows: the independent set of the mode's redundancy analysis); where that set loses rank
    although the whole set does not (a redundancy that moves with the configuration), or where the mechanism is singular, or
    with solver QR, every row goes to the truncated QR of eqs. 17–20, which drops whatever is dependent
    there. The augmented Lagrangian's rows join either set (join_penalized). No row held (a tree whose joint
    stops are all open): the tree's accelerations, every multiplier 0. A unit of its own that LLVM inlines (INLINE),
    not inlined in numba's IR (PASS): numba copies an IR-inlined body, with all it inlines, once more at every
    level of nesting, which cost a closed loop's first run 9 s of compiling."""
    status = aba_tables(model, data.u, data.ws, q, v, tau, qdd)
    if status != OK or data.counts[HELD] + n_augmented(cw, penalized) == 0:
        cw.lam[:] = 0.0
        return status
    velocity_product_accelerations(model.node_i, carve(data.ws).c, cw.acc0)
    for attempt in range(data.solver, QR + 1):           # one call site each below: inlined once
        rows = active_rows(data) if attempt == CHOLESKY else held_rows(data)
        if n_augmented(cw, penalized):
            rows = cw.row_set[:join_penalized(rows, cw)]
        evaluate_rows(model, data, cw, rows, q, v)
        sliding = any_sliding(slide, rows)
        if sliding:
            sliding_directions(model, data, cw, rows, q, v)
        solved, gap = multipliers(model, data, cw, rows, attempt, qdd, sliding)
        if solved:
            if attempt != data.solver and gap > NEAR_DEPENDENT:  # the independent rows lost rank, not by a redundancy
                cw.dropped[0] += 1
            return OK
    return SINGULAR


@njit(**PASS)
def joint_wrenches(model, data, lam, wrench, q, v, qdd, tau_scratch):
    """The wrench every joint transmits from its parent to its child (reference point, world axes) into
    the workspace's pA, once qdd and the multipliers lam of the rows (unit wrenches ``wrench``) are known: the
    Newton-Euler body forces less the constraint wrenches +-lambda w on the rows' nodes, summed from the tips
    (RBDA Table 5.1). The accelerations w.acc include the constraint forces."""
    body_forces(model, data, q, v, qdd, tau_scratch)
    con_i, pA = model.con_i, carve(data.ws).pA
    for row in range(con_i.shape[0]):
        na, nb = con_i[row, NODE_A], con_i[row, NODE_B]
        for r in range(6):
            if nb >= 0:
                pA[nb, r] -= lam[row] * wrench[row, r]
            if na >= 0:
                pA[na, r] += lam[row] * wrench[row, r]
    transmitted_forces(model.node_i, pA)


# The samples of a Result (constrained_trajectory): force values U (N, n_slots), generalized forces TAU (N, nv),
# positions Q (N, nq), velocities V (N, nv) and constraint targets CON_T (N, n_rows, 3).
Samples = namedtuple("Samples", "U TAU Q V CON_T")
# What constrained_trajectory writes per sample k: QDD (N, nv); every node's pose R (N, n + 1, 3, 3), p (N, n + 1,
# 3), spatial velocity vel and acceleration acc (N, n + 1, 6: a_0 = -g, with the constraint forces), the wrenches
# the joints transmit JOINT_F (N, n + 1, 6), all as the kernels have them: referred to the sample's reference
# point, with the ground's row last (kernels.py reference_point); the rows' multipliers LAM (N, n_rows), unit
# wrenches WRENCH (N, n_rows, 6) and residuals H (N, n_rows).
Trajectory = namedtuple("Trajectory", "QDD R p vel acc LAM WRENCH H JOINT_F")


@njit(**JIT)
def constrained_trajectory(model, data, cw, friction, penalized, slide, samples, out):
    """Constrained forward dynamics over the Samples k into the Trajectory ``out``. ``cw`` is the data's
    constraint workspace, or None for an open tree: ABA alone is compiled (dynamics/system.py); ``friction``,
    ``penalized`` and ``slide`` its tables or None (data.py optional_tables), as a run's integrator has them, so
    that the two share one solve_constrained. Returns OK or the failing status."""
    w = carve(data.ws)
    for k in range(samples.Q.shape[0]):
        q, v, qdd = samples.Q[k], samples.V[k], out.QDD[k]
        copy_into(samples.U[k], data.u)
        copy_into(samples.CON_T[k], data.con_t)
        if cw is None:
            status = aba(model, data, q, v, samples.TAU[k], qdd)
        else:
            status = solve_constrained(model, data, cw, friction, penalized, slide, q, v, samples.TAU[k], qdd)
        if status != OK:
            return status
        if cw is not None:
            evaluate_rows(model, data, cw, held_rows(data), q, v)      # every residual and wrench
            copy_into(cw.lam, out.LAM[k])
            copy_into(cw.wrench, out.WRENCH[k])
            copy_into(cw.h, out.H[k])
        joint_wrenches(model, data, out.LAM[k], out.WRENCH[k], q, v, qdd, data.dz)
        copy_into(w.R, out.R[k])
        copy_into(w.p, out.p[k])
        copy_into(w.vel, out.vel[k])
        copy_into(w.acc, out.acc[k])
        copy_into(w.pA, out.JOINT_F[k])
    return OK
