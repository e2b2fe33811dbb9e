"""The mode of one complementarity solve (simulation/hybrid/__init__.py), where the mode iteration cycles: Gauss'
principle, the accelerations qdd = qdd_free + M^-1 G^T lambda nearest qdd_free in M's metric, with the rows that
always hold and the sticking contacts' tangent rows as equalities, each touching contact point's normal and each
touching stop pushing only, and each friction at rest within its static level. In the multipliers this is the
box-constrained LCP  a = A lambda + b, l <= lambda <= u, a = 0 inside the box, a >= 0 at l, a <= 0 at u
(A = G M^-1 G^T, b = G qdd_free - gamma, a the rows' accelerations; Cottle, Pang & Stone, The Linear
Complementarity Problem, 1992, §1.2: a convex QP), solved as the bounded least squares
min |L^-1 G^T lambda + L^T (qdd_free - x)|  (M = L L^T, G x = gamma) by scipy's BVLS. The contact points at rest on
their surface add their tangent rows with Coulomb's cone |lambda_t| <= mu_s lambda_n (Pfeiffer & Glocker 1996,
§7; a second-order cone, so the convex QP is solved by scipy's SLSQP from the BVLS solution); sliding points keep
their kinetic friction. Closed: the points and stops whose multiplier pushes; stuck: the frictions strictly inside
their level, the others slipping against the bound they reach; a point at rest sticks strictly inside its cone and
slides on it, against its friction force."""
from collections import namedtuple

import numpy as np

from ...dynamics.api import constraint_accelerations
from ...dynamics.impacts import RESTING_GAP, TOUCH_SPEED
from ...dynamics.kernels import rnea
from .impulses import mass_matrix
from .frictions import static_levels
from .stops import TOUCH

# What takes part in the solve: contact points touching their surface and, of those, at rest; stop sides touching
# and not moving; frictions at rest (stuck, or slipping from rest)
Candidates = namedtuple("Candidates", "touching at_rest stops resting")


def complementarity(plant, switches, t, y):
    """Set the mode of ``switches`` (simulation/hybrid/__init__.py Modes: elements, mode, contacts) from the
    multipliers of one solve at (t, y) (module docstring)."""
    elements, mode = switches.elements, switches.mode
    nq = elements.nq
    taking_part = candidates(plant, switches, t, y)
    static = static_levels(plant, elements, y, plant.dynamics(t, y)[0][nq:])
    rows, bounds = box(plant.cm, mode, taking_part, static)
    lam = multipliers(plant, mode, (t, y), (rows, bounds), taking_part)
    scale = 1e-9 * max(1.0, np.abs(lam).max())
    pushing = {r for r, value in zip(rows, lam) if value > scale or value < -scale}
    set_mode(mode, taking_part, (rows, lam, pushing), static, y)


def candidates(plant, switches, t, y):
    """The Candidates at (t, y)."""
    elements, closed = switches.elements, switches.mode.closed
    q, v = y[:elements.nq], y[elements.nq:]
    rates = switches.contacts.rates(plant, t, y)
    touching = [c for c in elements.contacts if c.row in closed or
                abs(rates[c.key][0][c.row]) <= RESTING_GAP and abs(rates[c.key][1][c.row]) <= TOUCH_SPEED]
    at_rest = [c for c in touching if np.hypot(*rates[c.key][1][c.tangents]) <= TOUCH_SPEED]
    stops = [s for s in elements.sides if s.row in closed or
             abs(q[s.qi] - s.value) <= TOUCH * max(1.0, abs(s.value)) and abs(v[s.vi]) <= TOUCH_SPEED]
    resting = [lk for lk in elements.locks if lk.row in closed or v[lk.vi] == 0.0]
    return Candidates(touching, at_rest, stops, resting)


def box(cm, mode, taking_part, static):
    """(rows, their (lower, upper) bounds) of the solve."""
    bounds = {int(r): (-np.inf, np.inf) for r in cm.every_row}
    bounds.update({r: (-np.inf, np.inf) for c in taking_part.touching if c.t1 in mode.closed for r in c.tangents})
    bounds.update({r: (-np.inf, np.inf) for c in taking_part.at_rest for r in c.tangents})
    bounds.update({c.row: (0.0, np.inf) for c in taking_part.touching})
    bounds.update({s.row: (0.0, np.inf) if s.sign > 0 else (-np.inf, 0.0) for s in taking_part.stops})
    bounds.update({lk.row: (-static[lk.name], static[lk.name]) for lk in taking_part.resting})
    rows = sorted(bounds)
    return rows, np.array([bounds[r] for r in rows]).T


def multipliers(plant, mode, instant, box_rows, taking_part):
    """The multipliers of the rows within their bounds (``box_rows``: box) at the ``instant`` (t, y) of ``mode``
    (module docstring)."""
    (t, y), (rows, bounds) = instant, box_rows
    cm, data, nq = plant.cm, plant.data, plant.cm.nq
    q, v = y[:nq], y[nq:]
    G, gamma = constraint_accelerations(cm, q, v, t, rows=rows, targets=mode.targets())
    G, gamma = G[rows], gamma[rows]
    M = mass_matrix(plant, q)
    bias = np.empty(cm.nv)
    rnea(cm.arrays, data.arrays, np.ascontiguousarray(q), np.ascontiguousarray(v), np.zeros(cm.nv), bias)
    tau = data.arrays.tau.copy()
    tau[[lk.vi for lk in taking_part.resting]] = 0.0     # their friction is the solve's, not a slipping mode's
    free = np.linalg.solve(M, tau - bias)
    L = np.linalg.cholesky(M)
    x = np.linalg.lstsq(G, gamma, rcond=None)[0]
    lower, upper = bounds
    from scipy.optimize import lsq_linear     # imported here, not at start-up (~0.4 s): a cycling mode iteration only
    A, b = np.linalg.solve(L, G.T), -L.T @ (free - x)
    lam = lsq_linear(A, b, bounds=(lower, upper), method="bvls", tol=1e-14).x
    cones = [([rows.index(r) for r in c.rows], c.contact.static) for c in taking_part.at_rest]
    return within_cones(A, b, lam, bounds, cones) if cones else lam


def within_cones(A, b, start, bounds, cones):
    """min |A lambda - b|^2 within the ``bounds`` (lower, upper) and the friction cones ``cones`` [([normal, t1, t2]
    indices, mu_s)]: mu_s^2 lambda_n^2 - |lambda_t|^2 >= 0 (with lambda_n >= 0 from the bounds), by scipy's SLSQP
    from ``start``, pulled into the cones first."""
    start = start.copy()
    for (n, t1, t2), mu in cones:
        size = np.hypot(start[t1], start[t2])
        if size > mu * start[n]:
            start[[t1, t2]] *= mu * start[n] / size
    from scipy.optimize import minimize               # imported here, not at start-up: cones in a cycle only
    H, g = A.T @ A, A.T @ b

    def cone(i, mu):
        n, t1, t2 = i
        value = lambda lam: mu ** 2 * lam[n] ** 2 - lam[t1] ** 2 - lam[t2] ** 2
        gradient = lambda lam: np.bincount(i, [2 * mu ** 2 * lam[n], -2 * lam[t1], -2 * lam[t2]], len(lam))
        return {"type": "ineq", "fun": value, "jac": gradient}

    found = minimize(lambda lam: 0.5 * lam @ H @ lam - g @ lam, start, jac=lambda lam: H @ lam - g,
                     bounds=list(zip(*bounds)), constraints=[cone(i, mu) for i, mu in cones],
                     method="SLSQP", options={"ftol": 1e-15, "maxiter": 500})
    return found.x


def set_mode(mode, taking_part, solved, static, y):
    """The mode from the solve (``solved``: its rows, their multipliers and the rows that push) at y."""
    rows, lam, pushing = solved
    for c in taking_part.touching:
        mode.closed.discard(c.row)
        if c.row in pushing:
            mode.closed.add(c.row)
        else:
            mode.closed.difference_update(c.tangents)
            mode.sliding.pop(c.key, None)
    for c in taking_part.at_rest:
        if c.row in pushing:
            normal, friction = lam[rows.index(c.row)], lam[[rows.index(r) for r in c.tangents]]
            if np.hypot(*friction) < c.contact.static * normal * (1 - 1e-6):
                mode.stick(c)
            else:                                      # on its cone: it slides against its friction
                mode.closed.difference_update(c.tangents)
                mode.sliding[c.key] = tuple(-friction / max(np.hypot(*friction), 1e-300))
    for s in taking_part.stops:
        mode.closed.discard(s.row)
        if s.row in pushing:
            mode.closed.add(s.row)
    for lk, value in ((lk, lam[rows.index(lk.row)]) for lk in taking_part.resting):
        if abs(value) < static[lk.name] * (1 - 1e-9):
            mode.lock(lk, mode.stuck_at.get(lk.row, y[lk.qi]))
        else:
            mode.closed.discard(lk.row)
            mode.slip[lk.name] = -np.sign(value)
