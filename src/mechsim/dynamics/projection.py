"""Drift control after an accepted step (Wood & Kennedy 2003, §3.3–3.5), compiled.

Both schemes move the state by  dz = -X (G X)^-1 c(z)  with X = D G^T for a metric D. Like the
multiplier solve (multipliers.py rigid_accelerations), G X is solved first by Cholesky over the
independent rows the redundancy analysis keeps (``active``), and by the truncated QR of §3.2
(eqs. 17–20) over every held row where that fails (the independent set loses rank, or leaves a held
row unsatisfied: a redundancy that moves with the configuration, a singular position), so that the
rows redundant at the configuration, whichever they are, drop out. On the N four-bar's 200 held rows,
80 of them independent, an iteration costs ~8x less. Both use the kinetic-energy
metric D = M^-1 (Wood & Kennedy 2003 §3.5, eqs. 34–35), whose G M^-1 G^T the multiplier solve forms
too: a correction is the smallest in kinetic-energy norm, the same for an angle after 0 or 30 turns
and consistent across metres and radians:
- coordinate projection (§3.4, eqs. 22–25, in the weighted norm the section recommends, with the
  weights of §3.5): repeated (sequential Gauss–Newton, M^-1 refactorized at every iterate) until the
  residual of every held row is below 1e-3 atol or stops shrinking (rounding), then once for the
  velocities. Not the integrator's error weights diag(atol + rtol |q|) (§3.4 footnote 4): they grow
  with a turning joint's angle and push every correction into it (a four-bar's crank 0.5 rad off after
  34 turns, RK4 at h = 1e-3, against 3e-4 in this metric);
- stabilization (§3.5, eqs. 33–34): no iterations: applied twice, positions and velocities together
  (the deterministic real-time scheme).
Position corrections are velocity-space increments mapped onto q (quaternions by the exponential map).
"""
import numpy as np
from numba import njit

from ..modeling.primitives import PRIM_S
from ..spatial.algebra import JIT, PASS
from .constraints import active_rows, evaluate_rows, held_rows, velocity_product_accelerations
from ..status import NOT_CONVERGED, OK, SINGULAR
from .kernels import aba, carve, dof, forward_kinematics, normalize_quaternions
from .layout import PTYPE, QI, VI
from .multipliers import (CHOLESKY, QR, add_solves, constraint_jacobian_solves, form_lambda, join_penalized, n_augmented,
                          nonzero_rows, solve_symmetric)

PROJECTION, STABILIZATION = 0, 1
MAX_ITERATIONS = 12


@njit(**JIT)
def integrate_coordinates(node_i, q, dv):
    """q <- q (+) dv: R, P, H, T coordinates add; a quaternion turns by the body-frame rotation vector dv."""
    for i in range(node_i.shape[0]):
        ptype, qi, vi = node_i[i, PTYPE], node_i[i, QI], node_i[i, VI]
        if ptype != PRIM_S:
            for k in range(dof(ptype)):
                q[qi + k] += dv[vi + k]
        else:                                     # spherical: q <- q (x) exp(dv / 2)
            x, y, z = dv[vi], dv[vi + 1], dv[vi + 2]
            angle = np.sqrt(x * x + y * y + z * z)
            c = np.cos(0.5 * angle)
            s = 0.5 if angle < 1e-12 else np.sin(0.5 * angle) / angle
            b0, b1, b2, b3 = c, s * x, s * y, s * z
            a0, a1, a2, a3 = q[qi], q[qi + 1], q[qi + 2], q[qi + 3]
            q[qi] = a0 * b0 - a1 * b1 - a2 * b2 - a3 * b3
            q[qi + 1] = a0 * b1 + a1 * b0 + a2 * b3 - a3 * b2
            q[qi + 2] = a0 * b2 - a1 * b3 + a2 * b0 + a3 * b1
            q[qi + 3] = a0 * b3 + a1 * b2 - a2 * b1 + a3 * b0


@njit(**JIT)
def constraint_state(model, data, cw, q, v, rows):
    """Evaluate the listed constraint rows at (q, v) into cw (h, hd, gamma, G, wrench)."""
    w = carve(data.ws)
    forward_kinematics(model, q, v, w)
    velocity_product_accelerations(model.node_i, w.c, cw.acc0)
    evaluate_rows(model, data, cw, rows, q, v)


@njit(**JIT)
def correction(node_i, ws, cw, rows, solver, residual, dz):
    """dz = -X (G X)^-1 residual[rows], X = M^-1 G^T on the last aba factorization, G X solved by
    ``solver`` (CHOLESKY or QR, multipliers.py solve_symmetric; QR leaves out the rows whose G is 0); False if
    it cannot be solved."""
    if solver == QR:
        rows = cw.live[:nonzero_rows(cw, rows, cw.live)]
    na = rows.shape[0]
    constraint_jacobian_solves(node_i, ws, cw, rows, cw.G)
    form_lambda(cw, rows, solver == QR)
    for k in range(na):
        cw.rhs[k] = -residual[rows[k]]
    if not solve_symmetric(cw.Lam, cw.rhs, na, cw.mu, solver, cw.work, cw.envelope)[0]:
        return False
    dz[:] = 0.0
    add_solves(cw, rows, cw.mu, dz)
    return True


@njit(**PASS)
def fallback_correction(model, data, cw, held, solver, residual):
    """correction into data.dz over the active rows (active_rows) by ``solver``, else over every ``held`` row by
    truncated QR. Returns (whether solved, the solver that did). Inlined in numba's IR where project calls it (a loop
    around one call), with the solver a variable: a constant argument would compile correction once for each value
    (numba specializes on literals)."""
    for attempt in range(solver, QR + 1):
        if correction(model.node_i, data.ws, cw, active_rows(data) if attempt == CHOLESKY else held, attempt, residual,
                      data.dz):
            return True, attempt
    return False, QR


@njit(**JIT)
def max_abs(x, rows):
    m = 0.0
    for k in range(rows.shape[0]):
        m = max(m, abs(x[rows[k]]))
    return m


@njit(**PASS)
def factorize(model, data, cw, held, q, v):
    """M(q) factorized by an ABA pass with the run's force values and generalized forces (the metric M^-1 of the
    corrections; data.dz scratch) and the ``held`` rows evaluated at (q, v). Returns OK or a singular node. The ABA
    is the open tree's compiled kernel (kernels.aba), called: a first closed loop loads it from the cache its first
    open chain filled, and compiles no copy of it into the projection."""
    status = aba(model, data, q, v, data.tau, data.dz)
    if status == OK:
        constraint_state(model, data, cw, q, v, held)
    return status


@njit(**JIT)
def project(model, data, cw, penalized, q, v):
    """Bring (q, v) with unit quaternions back onto g = 0, G v = f' in place by data.drift (PROJECTION or
    STABILIZATION) over the held constraint rows (held_rows), solved over their independent active ones where
    data.solver is CHOLESKY and that works (fallback_correction), with the run's force values, generalized forces
    and targets (the metric M^-1 comes from an ABA pass); data.atol sets the projection's residual.
    Returns OK, NOT_CONVERGED, SINGULAR or a singular node. The rows the penalty formulation's augmented
    Lagrangian holds are projected with them, by truncated QR: its mass-orthogonal projections (Bayo &
    Ledesma 1996, Augmented Lagrangian and mass-orthogonal projection methods for constrained multibody
    dynamics, Nonlinear Dyn. 9, 113–130), which carry a driven loop through its singular positions, where
    the acceleration-level stabilization alone lets it open. Some row is held or augmented: with none (a
    hybrid mode without contact) multiplier_correct (dynamics/system.py) does not call it. ``penalized``: cw.penalized,
    or None outside the penalty formulation (data.py optional_tables)."""
    node_i, quat_q, dz, atol, solver = model.node_i, model.quat_q, data.dz, data.atol, data.solver
    held = held_rows(data)
    if n_augmented(cw, penalized):
        held, solver = cw.row_set[:join_penalized(held, cw)], QR
    if data.drift == STABILIZATION:
        for _ in range(2):                                # eq. 33 with the F of eq. 34, twice
            status = factorize(model, data, cw, held, q, v)
            if status != OK:
                return status
            solved, _ = fallback_correction(model, data, cw, held, solver, cw.h)
            if not solved:
                return SINGULAR
            integrate_coordinates(node_i, q, dz)
            solved, _ = fallback_correction(model, data, cw, held, solver, cw.hd)
            if not solved:
                return SINGULAR
            for j in range(v.shape[0]):
                v[j] += dz[j]
            normalize_quaternions(quat_q, q)
        return OK
    previous = np.inf
    for iteration in range(MAX_ITERATIONS + 1):           # sequential projection (eqs. 23–25) in the metric M^-1
        status = factorize(model, data, cw, held, q, v)
        if status != OK:
            return status
        residual = max_abs(cw.h, held)
        stalled = not residual < previous
        if stalled and solver == CHOLESKY and max_abs(cw.h, active_rows(data)) < residual:
            solver, stalled = QR, False                   # the worst row is outside the active set: every row
        if residual <= 1e-3 * atol or stalled or iteration == MAX_ITERATIONS:
            break                                         # far below the error tolerance, rounding, or no more
        previous = residual
        solved, solver = fallback_correction(model, data, cw, held, solver, cw.h)
        if not solved:
            return SINGULAR
        integrate_coordinates(node_i, q, dz)
        normalize_quaternions(quat_q, q)
    if not max_abs(cw.h, held) < max(1e3 * atol, 1e-9):
        return NOT_CONVERGED
    solved, _ = fallback_correction(model, data, cw, held, solver, cw.hd)   # velocities: one linear projection
    if not solved:                                                          # at the new q
        return SINGULAR
    for j in range(v.shape[0]):
        v[j] += dz[j]
    return OK
