"""Rigid contacts as switched elements (SPEC §3 ``add_contact`` with model="rigid"; simulation/hybrid/__init__.py): a
contact point's normal row (gap = 0) and its two tangent rows hold while it is closed and sticking; a point hitting
its surface (Newton's law with a sticking or sliding impulse, impulses.py) passes the impact on through the points
resting at its instant (Newton's cradle); closed points separate, slide and stick. A switched kind's module
(elements.py SWITCHED_KINDS): ``rows``, ``events``, ``start``, ``change`` and ``logged``. The switches take the run's
Plant (simulation/plant.py) and the instant: the event action's handle ``sim`` (t, y, set_state, stop_at, log), or
(t, y) and a ``log(kind, name, detail)``."""
import numpy as np

from ...dynamics.api import constraint_values
from ...dynamics.impacts import RESTING_GAP, TOUCH_GAP, TOUCH_SPEED
from ...dynamics.system import CONE, GAP, MULTIPLIER, SLIP
from ...errors import SimulationError
from .switched import ModeEvent, Switched

TOUCH_ACCELERATION = 1e-6            # an open point at rest presses into the surface faster than this (m/s^2)


class ContactRows(Switched):
    """The rows of one point of a contact (dynamics/closure.py: a box has eight): its gap row, its slip
    rows t1 and t1 + 1; ``key`` names the point (the contact's name, with a box corner's index)."""

    def __init__(self, cm, contact, labels):
        self.contact, self.name, self.labels = contact, contact.name, labels
        self.key = contact.name + labels[0][len("normal"):]
        self.row = cm.rows.owner.index(("contact", contact.name, labels[0]))
        self.t1 = self.row + 1
        self.tangents = [self.t1, self.t1 + 1]
        self.rows = [self.row] + self.tangents

    def labelled_rows(self):
        return list(zip(self.rows, self.labels))

    def impact_row(self, role, free):
        """Its row of Impacts.table (dynamics/impacts.py) for its event of ``role``: its hit resolved compiled
        while ``free`` (every switched row open, nothing slipping, the Lagrange formulation), else none."""
        if free and role == "hit":
            return [self.contact.restitution, self.contact.min_bounce_speed, self.contact.static, 1.0]
        return [0.0] * 4


ELEMENTS = "contacts"


def rows(cm):
    """The points of the rigid contacts of compiled model cm."""
    return [ContactRows(cm, c, labels) for c in cm.model.contacts.values() if c.model == "rigid"
            for labels in c.labels()]


def events(modes, elements):
    """Each point's hit, separate and stick, and each contact's slide."""
    return [e for c in elements.contacts for e in point_events(modes, c)] + \
        [slide_event(modes, points) for points in elements.groups.values()]


def point_events(modes, c):
    """A contact point's hit (open), separate (closed: its normal force falls through zero; the mode iteration
    decides) and stick (sliding: its slip falls through zero)."""
    mode, contacts = modes.mode, modes.contacts
    # hit: the gap falls a few ulps below where it opened (a projected gap may be off 0 by the
    # projection's tolerance: a threshold at 0 could start on the wrong side and miss the return)
    hit = lambda: None if c.row in mode.closed else ([GAP, c.row, 0, 0], [mode.touch.get(c.key, TOUCH_GAP),
                                                                          0.0, 0.0, 0.0])
    separate = lambda: ([MULTIPLIER, c.row, 0, 0], [0.0, 1.0, 0.0, 0.0]) if c.row in mode.closed else None
    stick = lambda: ([SLIP, c.t1, 0, 0], [0.0, *mode.sliding[c.key], 0.0]) \
        if c.key in mode.sliding and c.contact.static > 0.0 else None          # frictionless: slides for good
    return [ModeEvent(c, "hit", -1, hit, lambda sim: contacts.touch(modes.plant, sim, c)),
            ModeEvent(c, "separate", -1, separate, lambda sim: mode.due.add(c.row)),
            ModeEvent(c, "stick", -1, stick, lambda sim: contacts.stick(c, "slip stops", sim.log))]


def slide_event(modes, points):
    """A contact's friction reaching its static cone, summed over its sticking points (a box resting
    flat holds by a resultant whose share per corner is not determined)."""
    mode, first = modes.mode, points[0]
    cone = lambda: ([CONE, first.row, len(points), 0], [0.0, first.contact.static, 0.0, 0.0]) \
        if any(c.t1 in mode.closed for c in points) else None
    return ModeEvent(first, "slide", -1, cone,
                     lambda sim: modes.contacts.slide(modes.plant, sim.t, sim.y, points, sim.log))


def start(modes, sim):
    """Points touching and approaching strike, those at rest close if they would press (the mode iteration);
    SimulationError for a point that starts inside its surface. Returns whether some point is near its surface."""
    plant, nq = modes.plant, modes.elements.nq
    touching, near = [], False
    for c in modes.elements.contacts:
        gap, hd, _ = contact_rows(plant, sim.t, sim.y[:nq], sim.y[nq:], c)
        if gap[c.row] < -1e-9:
            raise SimulationError(f"contact '{c.name}': body '{c.contact.body}' starts {-gap[c.row]:.6g} inside "
                                  f"the surface of '{c.contact.surface}'; start it on or above the surface")
        near = near or gap[c.row] <= RESTING_GAP
        if gap[c.row] <= RESTING_GAP and hd[c.row] < -TOUCH_SPEED:
            touching.append(c)
    for c in touching:
        modes.contacts.touch(plant, sim, c)
    return near


def change(modes, t, y, dynamics, log):
    """The mode iteration's tests (iteration.py): a closed point must push (under some split of the load among the
    contact's points), an open one touching at rest must not press in, a sticking contact must hold within its
    static cone."""
    lam, elements, mode, contacts, plant = dynamics[0], modes.elements, modes.mode, modes.contacts, modes.plant
    # at the located root of its separate event a normal force is ~0 on either side: it counts as pulling
    pulling = [c for c in elements.contacts if c.row in mode.closed and (lam[c.row] <= 0.0 or c.row in mode.due)]
    if pulling and not contacts.can_all_push(plant, t, y, lam):
        c = min(pulling, key=lambda c: lam[c.row])
        contacts.separate(plant, t, y, c, "its normal force would pull", log)
        return True
    pressing = [c for c in elements.contacts if c.row not in mode.closed and contacts.pressing(plant, t, y, c)]
    for c in pressing:
        contacts.touch_at_rest(plant, t, y, c, log)
    if pressing:
        return True
    for points in elements.groups.values():
        normal, friction = resultant(lam, points)
        if any(c.t1 in mode.closed for c in points) and np.hypot(*friction) > points[0].contact.static * normal:
            contacts.slide(plant, t, y, points, log)
            return True
    return False


def logged(modes, before, why, log):
    """A record of each point closed, opened, stuck or set sliding since the mode ``before`` (its key), ``why``."""
    closed_before, mode = before[0], modes.mode
    for c in modes.elements.contacts:
        if (c.row in closed_before) != (c.row in mode.closed):
            log("contact" if c.row in mode.closed else "separate", c.name,
                f"{'closes' if c.row in mode.closed else 'opens'} {why}")
        elif c.row in mode.closed and (c.t1 in closed_before) != (c.t1 in mode.closed):
            log("stick" if c.t1 in mode.closed else "slide", c.name,
                f"{'sticks' if c.t1 in mode.closed else 'slides'} {why}")


def write(cm, elements, mode, data):
    """Each sliding point's kinetic friction (its slip direction, kinetic coefficient) into a run's Data
    (ConstraintWorkspace.slide, dynamics/multipliers.py); none for the others."""
    for c in elements.contacts:
        d = mode.sliding.get(c.key)
        data.cw.slide[c.row] = (-1.0, 0.0, 0.0, 0.0, 0.0, 0.0) if d is None else \
            (c.t1, c.contact.kinetic, d[0], d[1], d[0], d[1])


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
        """Stop the stepper at the apex of a point's bounce (stops.py watch_apex): the gap's rate falls at
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
