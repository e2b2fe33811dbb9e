"""The switches of rigid contacts (SPEC §3 ``add_contact``; simulation/hybrid/__init__.py): a point hitting its
surface (Newton's law with a sticking or sliding impulse, simulation/hybrid/impulses.py), passing an impact on
through the points resting at its instant (Newton's cradle), separating, sliding and sticking; and the tests the
mode iteration makes of them. Each takes the run's Plant (simulation/plant.py) and the instant: the event action's
handle ``sim`` (t, y, set_state, stop_at, log), or (t, y) and a ``log(kind, name, detail)``."""
import numpy as np

from ...dynamics.api import constraint_values
from ...dynamics.impacts import RESTING_GAP, TOUCH_GAP, TOUCH_SPEED
from ...errors import SimulationError

TOUCH_ACCELERATION = 1e-6            # an open point at rest presses into the surface faster than this (m/s^2)


def contact_rows(plant, t, q, v, c):
    """(gap, slip and approach rates, Jacobian rows) of a contact point's rows at (q, v)."""
    return constraint_values(plant.cm, q, v, t, rows=c.rows)


def resultant(lam, points):
    """(normal force, friction force along (t1, t2)) of a contact: the sums over its points."""
    return sum(lam[c.row] for c in points), sum(lam[c.tangents] for c in points)


class ContactSwitches:
    """The switches of the contact points of ``elements`` (elements.py) in ``mode`` (mode.py), impacts by ``laws``
    (impulses.py)."""

    def __init__(self, elements, mode, laws):
        self.elements, self.mode, self.laws = elements, mode, laws
        self.contacts, self.nq = elements.contacts, elements.nq

    def touch(self, plant, sim, c):
        """Contact point c reaches the surface: with every open point touching and approaching at this
        instant (a box landing flat), one impact (``strike``), passed on through the contacts resting
        at this instant (``propagate``). A point already separating (an impact at this instant threw it
        off) only waits for its next touch; one at rest (round-off brought it a few ulps in) closes if the
        flow would press it in (the mode iteration), else waits too."""
        closed = self.mode.closed
        if c.row in closed:                             # closed with another point's impact at this instant
            return
        t, y = sim.t, sim.y
        before = self.rates(plant, t, y)
        if before[c.key][1][c.row] >= -TOUCH_SPEED:      # leaving, or at rest: closes if it would press
            return self.arm(plant, t, y, c)
        points = [c] + [p for p in self.contacts if p is not c and p.row not in closed and
                        abs(before[p.key][0][p.row]) <= RESTING_GAP and before[p.key][1][p.row] < -TOUCH_SPEED]
        resting = self.resting(before) - {r for p in points for r in p.rows}
        self.strike(plant, sim, points, before, resting)
        self.propagate(plant, sim, resting)

    def rates(self, plant, t, y):
        """{point key: (gaps, rates)} of every contact point at (t, y)."""
        return {p.key: contact_rows(plant, t, y[:self.nq], y[self.nq:], p)[:2] for p in self.contacts}

    def resting(self, rates):
        """The rows of the contact points closed or touching (gap within RESTING_GAP) before an impact (``rates``:
        ``rates``): free during it (``propagate``)."""
        return {r for p in self.contacts if p.row in self.mode.closed or abs(rates[p.key][0][p.row]) <= RESTING_GAP
                for r in p.rows}

    def strike(self, plant, sim, points, before, released):
        """One impact of contact points (``contact_impact``, the rows ``released`` free): each stays closed
        when its rebound is slower than min_bounce_speed, sticking or sliding as the impulse leaves it,
        else it bounces and the stepper stops at the bounce's apex."""
        t = sim.t
        q, v = sim.y[:self.nq].copy(), sim.y[self.nq:].copy()
        approach = {p.key: -before[p.key][1][p.row] for p in points}
        closes = {p.key: p.contact.restitution * approach[p.key] < p.contact.min_bounce_speed for p in points}
        sticks, impulse = {}, {}
        if max(approach.values()) > 0:
            e = [0.0 if closes[p.key] else p.contact.restitution for p in points]
            v, sticks, impulse = self.laws.contact_impact(plant, t, q, v, points, e, released)
            sim.set_state(v=v)
        after = self.rates(plant, t, sim.y)
        for p in points:
            hd = after[p.key][1]
            if closes[p.key]:
                self.mode.close(p, hd[p.tangents], sticks.get(p.key))
            else:
                self.arm(plant, t, sim.y, p)
                self.watch_gap_apex(plant, sim, p, hd[p.row])
            hit = approach[p.key] > 0
            what = (f"impact at {approach[p.key]:.6g}, impulse {impulse[p.key]:.6g}; " if hit else "") + \
                ("closes, " + ("sticking" if p.t1 in self.mode.closed else "sliding") if closes[p.key] else
                 f"rebounds at {hd[p.row]:.6g} (restitution {p.contact.restitution:g})")
            sim.log("impact" if hit else "contact", p.name, what)

    def propagate(self, plant, sim, resting):
        """Pass an impact on through the contacts that rested before it, closed or touching (``resting``:
        their rows; Han & Gilmore 1993, Multi-body impact motion with friction, J. Mech. Des. 115: impacts
        resolved in sequence): a resting point the impact left approaching its surface strikes in turn,
        with the points struck before it at this instant holding when they closed; repeated until none
        approaches (Newton's cradle passes the ball's speed along the row). A closed resting point the
        impacts threw off separates; one they set slipping slides."""
        t, mode = sim.t, self.mode
        for _ in range(10 * len(self.contacts) + 1):
            before = self.rates(plant, t, sim.y)
            striking = [p for p in self.contacts if p.row in resting and before[p.key][1][p.row] < -TOUCH_SPEED]
            if not striking:
                break
            for p in striking:
                resting.difference_update(p.rows)
                mode.open(p)
            self.strike(plant, sim, striking, before, resting)
        else:
            raise SimulationError(f"an impact at t = {t:.9g} is still passed on between the contacts after "
                                  f"{10 * len(self.contacts)} rounds")
        after = self.rates(plant, t, sim.y)
        for p in self.contacts:
            if p.row not in resting or p.row not in mode.closed:
                continue
            hd = after[p.key][1]
            slip = np.hypot(*hd[p.tangents])
            if hd[p.row] > TOUCH_SPEED:
                self.separate(plant, t, sim.y, p, f"thrown off by an impact at {hd[p.row]:.6g}", sim.log)
            elif p.t1 in mode.closed and slip > TOUCH_SPEED:
                mode.closed.difference_update(p.tangents)
                mode.sliding[p.key] = tuple(hd[p.tangents] / slip)
                sim.log("slide", p.name, "set slipping by an impact")

    def watch_gap_apex(self, plant, sim, c, rebound):
        """Stop the stepper at the apex of a point's bounce (JointSwitches.watch_apex): the gap's rate falls at
        a = d/dt(G_n v), taken along the flow."""
        nq, y = self.nq, sim.y
        ydot = plant.dynamics(sim.t, y)[0]
        dt = 1e-6 * max(1.0, abs(sim.t))
        ahead = y + dt * ydot
        later = contact_rows(plant, sim.t + dt, ahead[:nq], ahead[nq:], c)[1][c.row]
        a_away = (later - rebound) / dt
        if a_away < 0.0:
            sim.stop_at(sim.t + rebound / -a_away)

    def arm(self, plant, t, y, c):
        """Set the gap at which an open contact point hits: a few ulps below its gap now."""
        gap = contact_rows(plant, t, y[:self.nq], y[self.nq:], c)[0][c.row]
        self.mode.touch[c.key] = min(gap, 0.0) + TOUCH_GAP

    def can_all_push(self, plant, t, y, lam):
        """Whether some multipliers of the held rows give the same motion with every closed contact point
        pushing: lam + N alpha with N spanning the null space of the rows' force directions (their
        share of the load is not determined: a box's four corners, 4 rows of rank 3), found by a
        feasibility LP. The solver's own lam may have a corner pull where another split has none."""
        cm, nq = plant.cm, self.nq
        held = sorted({int(r) for r in cm.every_row} | self.mode.closed)     # the redundant rows too
        _, _, G = constraint_values(cm, y[:nq], y[nq:], t, rows=held, targets=self.mode.targets())
        force = G[held]
        for k, row in enumerate(held):                     # a sliding contact's friction: G_n - mu s G_t
            t1, mu, *_, s1, s2 = plant.data.cw.slide[row]
            if t1 >= 0:
                t1 = int(t1)
                _, _, Gt = constraint_values(cm, y[:nq], y[nq:], t, rows=[t1, t1 + 1])
                force[k] -= mu * (s1 * Gt[t1] + s2 * Gt[t1 + 1])
        from scipy.linalg import null_space       # imported here, not at start-up (~0.4 s): runs with contacts only
        from scipy.optimize import linprog
        N = null_space(force.T, rcond=1e-9)
        normals = [k for k, row in enumerate(held) if row in {c.row for c in self.contacts}]
        margin = 1e-9 * max(1.0, np.abs(lam).max())
        if N.shape[1] == 0:
            return all(lam[held[k]] > margin for k in normals)
        fit = linprog(np.zeros(N.shape[1]), A_ub=-N[normals], b_ub=lam[[held[k] for k in normals]] - margin,
                      bounds=[(None, None)] * N.shape[1], method="highs")
        return fit.status == 0

    def pressing(self, plant, t, y, c):
        """Whether open contact point c touches (gap and its rate ~0) and the flow would push it into the
        surface (its gap's acceleration, along the flow by a difference, below -TOUCH_ACCELERATION)."""
        gap, rate, _ = contact_rows(plant, t, y[:self.nq], y[self.nq:], c)
        if abs(gap[c.row]) > RESTING_GAP or abs(rate[c.row]) > TOUCH_SPEED:
            return False
        dt = 1e-7 * max(1.0, abs(t))
        ahead = y + dt * plant.dynamics(t, y)[0]
        later = contact_rows(plant, t + dt, ahead[:self.nq], ahead[self.nq:], c)[1][c.row]
        return (later - rate[c.row]) / dt < -TOUCH_ACCELERATION

    def touch_at_rest(self, plant, t, y, c, log):
        """Close open point c, at rest on the surface: sliding along its slip, or sticking."""
        self.mode.close(c, contact_rows(plant, t, y[:self.nq], y[self.nq:], c)[1][c.tangents])
        log("contact", c.name, "touches at rest and would press into the surface: closes")

    def separate(self, plant, t, y, c, why, log):
        """Point c leaves its surface at (t, y), armed to hit where it leaves."""
        self.mode.open(c)
        self.arm(plant, t, y, c)
        log("separate", c.name, why)

    def slide(self, plant, t, y, points, log):
        """A sticking contact's friction reached the static cone at (t, y): its sticking points slide the way the
        load pushes, against the friction force that held them."""
        normal, friction = resultant(plant.dynamics(t, y)[1], points)
        size = np.hypot(*friction)
        d = -friction / size if size > 0 else np.array([1.0, 0.0])
        for c in points:
            if c.t1 in self.mode.closed:
                self.mode.closed.difference_update(c.tangents)
                self.mode.sliding[c.key] = tuple(d)
        log("slide", points[0].name, f"friction {size:.6g} reaches static {points[0].contact.static:g} "
                                     f"x normal force {normal:.6g}; slides along ({d[0]:.3g}, {d[1]:.3g})")

    def stick(self, c, why, log):
        """Point c's slip stops: it sticks."""
        self.mode.stick(c)
        log("stick", c.name, why)

    def added(self, plant, t, y, before):
        """Contacts an action added (their names not in ``before``) at (t, y): each point must start on or off its
        surface, and hits when its gap falls below where it starts."""
        for c in self.contacts:
            if c.name not in before:
                gap = contact_rows(plant, t, y[:self.nq], y[self.nq:], c)[0][c.row]
                if gap < -1e-9:
                    raise SimulationError(f"contact '{c.name}' added at t = {t:.9g}: body '{c.contact.body}' is "
                                          f"{-gap:.6g} inside the surface of '{c.contact.surface}'")
                self.arm(plant, t, y, c)
