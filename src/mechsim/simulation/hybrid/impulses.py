"""Impact laws (simulation/hybrid/__init__.py): the post-impact velocities of Newton's law over the rows that hold,
in the impulse form of M vdot = f + G^T lambda (Wood & Kennedy 2003, eqs. 11–14; Glocker & Pfeiffer 1995;
Brogliato, *Nonsmooth Mechanics*, 2016, §4.2), and the contact points' with friction (Coulomb's or Smith's
direction). Each takes the run's Plant (simulation/plant.py) and the Mode, and returns velocities and impulses."""
import numpy as np

from ...dynamics.api import constraint_values
from ...dynamics.kernels import crba
from ...errors import SimulationError


def mass_matrix(plant, q):
    """M(q) by the composite-rigid-body algorithm on the run's Data."""
    cm = plant.cm
    M = np.empty((cm.nv, cm.nv))
    crba(cm.arrays, plant.data.arrays, np.ascontiguousarray(q), M)
    return M


class ImpactLaws:
    """The impact laws of a Mode's held rows."""

    def __init__(self, mode):
        self.mode = mode

    def impact(self, plant, t, q, v, new_rows, new_b, released=(), forces=None):
        """Post-impact velocities v+ and impulses P: M (v+ - v-) = W^T P with the held rows (the rows that always
        hold and the closed switched rows: G v+ = f') and the rows ``new_rows`` (G v+ = ``new_b``), W = G except the
        force directions ``forces`` {row: direction} (sliding impacts' friction); the KKT system by least squares
        (redundant rows give a consistent singular system). The rows ``released`` (contacts resting before the
        impact: ContactSwitches.propagate) do not hold. P: the impulses of the new rows."""
        cm = plant.cm
        held = sorted({int(r) for r in cm.every_row} | self.mode.closed)
        rows = [r for r in held if r not in new_rows and r not in released] + list(new_rows)
        _, hd, G = constraint_values(cm, q, v, t, rows=rows, targets=self.mode.targets())
        A = G[rows]
        W = A.copy()
        for k, row in enumerate(rows):
            if forces and row in forces:
                W[k] = forces[row]
        b = A @ v - hd[rows]                            # f' of each row
        b[len(rows) - len(new_rows):] = new_b
        M = mass_matrix(plant, q)
        n = len(rows)
        K = np.block([[M, -W.T], [A, np.zeros((n, n))]])
        x = np.linalg.lstsq(K, np.concatenate([M @ v, b]), rcond=None)[0]
        return x[:cm.nv], x[cm.nv + n - len(new_rows):]

    def contact_impact(self, plant, t, q, v, points, restitutions, released=()):
        """Post-impact velocities of contact points closing together at (q, v), with the rows that hold:
        Newton's law v_n+ = -e v_n- at each, and sticking impulses (no slip after, relative to the surface
        material) when each lies within its static friction cone |P_t| <= mu_s P_n; else sliding
        impulses P_t = -mu_k P_n s. The direction s is the point's slip before the impact, s = s-/|s-|
        (``impact_law="newton"``; Pfeiffer & Glocker 1996 §7; Brogliato 2016 §4.3), or Smith's mean of
        the slips before and after, s = (s- + s+) / (|s-| + |s+|) (``impact_law="smith"``: Smith 1991,
        eq. 15, as Gillespie et al. 2005 §6 use it), which never reverses the slip against the friction
        and never gives energy. Should an impact still give energy (Kane's paradox of Newton's law with
        friction), it is taken as plastic (e = 0), which never does. The rows ``released`` do not hold
        (``impact``). Returns (v+, {key: sticks}, {key: P_n})."""
        rows = [p.rows for p in points]
        _, hd, G = constraint_values(plant.cm, q, v, t, rows=np.ravel(rows))
        target = G @ v - hd                                     # f': the surface's velocity on the slip rows
        b = [x for p, e in zip(points, restitutions) for x in (target[p.row] - e * hd[p.row], *target[p.tangents])]
        v_plus, P = self.impact(plant, t, q, v, np.ravel(rows).tolist(), b, released)
        P = P.reshape(len(points), 3)
        if all(np.hypot(*P_p[1:]) <= p.contact.static * P_p[0] * (1 + 1e-12) for p, P_p in zip(points, P)):
            return v_plus, {p.key: True for p in points}, {p.key: P_p[0] for p, P_p in zip(points, P)}
        before = np.array([hd[p.tangents] for p in points])
        coulomb = np.array([s / np.hypot(*s) if np.hypot(*s) > 0 else -P_p[1:] / max(np.hypot(*P_p[1:]), 1e-300)
                            for s, P_p in zip(before, P)])
        forces = lambda s: {p.row: G[p.row] - p.contact.kinetic * (s_p @ G[p.tangents]) for p, s_p in zip(points, s)}
        M = mass_matrix(plant, q)
        for scale in (1.0, 0.0):
            b = [target[p.row] - scale * e * hd[p.row] for p, e in zip(points, restitutions)]
            solve = lambda s: self.impact(plant, t, q, v, [p.row for p in points], b, released, forces(s))
            s = coulomb
            if any(p.contact.impact_law == "smith" for p in points):
                s = smith_directions(solve, points, G, target, before, coulomb)
            v_plus, P = solve(s)
            if v_plus @ M @ v_plus <= v @ M @ v * (1 + 1e-12):
                break
        return v_plus, {}, {p.key: P_p for p, P_p in zip(points, P)}


def smith_directions(solve, points, G, target, before, coulomb):
    """The friction directions of Smith's law (Smith 1991, eq. 15) at the sliding points, the others keeping
    Coulomb's: s = (s- + s+) / (|s-| + |s+|), with the slips s+ after the impact that the directions give
    (``solve(s)`` -> (v+, P)). Coulomb's directions where they reverse no slip (then s+ and s- point alike), else
    that fixed point by scipy's bounded least squares (|s| <= 1 per component, where a root lies)."""
    smith = np.array([p.contact.impact_law == "smith" for p in points])

    def residual(x):
        s = coulomb.copy()
        s[smith] = x.reshape(-1, 2)
        v_plus = solve(s)[0]
        after = np.array([G[p.tangents] @ v_plus - target[p.tangents] for p in points])
        size = np.hypot(*before.T) + np.hypot(*after.T)
        mean = (before + after) / np.maximum(size, 1e-300)[:, None]
        return (s - mean)[smith].ravel()

    if np.abs(residual(coulomb[smith].ravel())).max(initial=0.0) <= 1e-12:
        return coulomb                                 # no slip reversed: Smith's law is Coulomb's
    from scipy.optimize import least_squares          # imported here, not at start-up: Smith's law only
    found = least_squares(residual, 0.5 * coulomb[smith].ravel(), bounds=(-1.0, 1.0), xtol=1e-15,
                          ftol=1e-15, gtol=1e-15)
    if np.abs(found.fun).max(initial=0.0) > 1e-10:
        raise SimulationError(f"Smith's impact law has no solution at contact(s) "
                              f"{', '.join(p.key for p in points)}: {found.message}")
    s = coulomb.copy()
    s[smith] = found.x.reshape(-1, 2)
    return s
