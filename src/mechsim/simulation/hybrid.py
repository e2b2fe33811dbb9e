"""Modes of a run (SPEC §3 ``joint_limit``, ``joint_friction``, ``add_contact``): rigid stops, joint
stiction and contacts as constraint rows held in some modes only, switched by events and settled by a
mode iteration.

A mode is the set of switched rows that hold (dynamics/closure.py: a stop side's row q - value = 0,
a friction's lock row q - q_stuck = 0) and the slip direction of each slipping friction. The run
driver watches, compiled, the events of the current mode:

- a stop side, open: *hit* when q crosses the stop towards it. Newton's impact law (Glocker &
  Pfeiffer 1995; Brogliato, *Nonsmooth Mechanics*, 2016, §4.2) over every row that holds: the
  post-impact velocities v+ solve  M (v+ - v-) = A^T p,  A v+ = b,  b = f' for the rows that always
  hold, 0 for the other held switched rows and -e (A v-) for the hitting row — the impulse form of
  M vdot = f + G^T lambda (Wood & Kennedy 2003, eqs. 11–14). Kinetic energy never grows for
  e <= 1 and is kept for e = 1. A rebound slower than the stop's min_bounce_speed closes it.
- a stop side, closed: *release* when its force (the row's multiplier, positive pushing) falls
  through zero.
- a friction, slipping in direction d (kinetic friction -d F_k as a generalized force): *stick*
  when its velocity reaches zero.
- a friction, stuck: *unlock* when its holding force |lambda| reaches the static level F_s.

- a contact (modeling/contacts.py), open: *hit* when its gap crosses zero: Newton's law on its normal
  row with a sticking impulse (slip after = 0) if that lies in the static friction cone, else a
  sliding one (``contact_impact``); it closes below min_bounce_speed, else bounces.
- a contact, closed: *separate* when its normal force falls through zero; sticking or rolling (its
  two tangent rows held): *slide* when |lambda_t| reaches mu_s lambda_n; sliding (kinetic friction
  -mu_k lambda_n s through the force directions of dynamics/multipliers.py): *stick* when the slip
  along its direction falls through zero. Records "impact", "contact", "separate", "slide", "stick".

At every switch the mode iteration of Wood & Kennedy 2003 §6 finds a consistent mode before the
integration restarts, since one switch may cause others (a joint locking overloads another): with
the rows of the trial mode and the redundancy analysis redone (§3.6), a closed stop that would
pull opens; a stuck friction whose holding force exceeds F_s slips in the direction of the load
(the most overloaded first); a friction slipping from rest whose acceleration opposes its slip
direction sticks. A mode seen twice is a cycle: one complementarity solve (``complementarity``, the
box-constrained LCP of Gauss' principle) decides the mode there, and a cycle through sliding contacts
is a Painlevé paradox (SimulationError). Switches are EventRecords: "limit" for stops, "lock"/"unlock"
for friction.

An impact is passed on through the contacts resting at its instant (``_propagate``): they are free
during it and strike in turn if it leaves them approaching (Newton's cradle).
"""
import numpy as np

from ..assembly.redundancy import analyse
from ..dynamics.api import constraint_accelerations, constraint_values
from ..dynamics.impacts import RESTING_GAP, TOUCH_GAP, TOUCH_SPEED, new_impacts
from ..dynamics.kernels import crba, rnea
from ..dynamics.multipliers import F_PRISMATIC, F_SIGN, friction_loads
from ..dynamics.system import CONE, COORDINATE, FRICTION_LOAD, GAP, MULTIPLIER, SILENT, SLIP
from ..errors import SimulationError
from ..modeling.events import Event

TOUCH = 1e-12          # |q - value| within this (relative to max(1, |value|)) touches a stop
TOUCH_ACCELERATION = 1e-6            # an open point at rest presses into the surface faster than this (m/s^2)


class Switched:
    """A switched row of one element: the row, its coordinate (q index qi, v index vi)."""

    def __init__(self, cm, force, owner):
        self.force, self.name = force, force.name
        self.row = cm.rows.owner.index(owner)
        _, self.qi, self.vi = cm.coordinate_slot(force)


class StopSide(Switched):
    """One side of a rigid stop; sign +1 for lower (the stop pushes q up), -1 for upper."""

    def __init__(self, cm, force, side, value, sign):
        super().__init__(cm, force, ("limit", force.name, side))
        self.side, self.value, self.sign = side, value, sign


class Lock(Switched):
    """The lock row of a joint friction; ``load`` its row in ConstraintWorkspace.friction when its levels
    grow with the joint's load, else None."""

    def __init__(self, cm, force):
        super().__init__(cm, force, ("lock", force.name, "lock"))
        self.node = cm.joint_nodes[force.joint][force.primitive]
        self.load = cm.load_frictions.index(force) if force.loaded else None


class ContactRows:
    """The rows of one point of a contact (dynamics/closure.py: a box has eight): its gap row, its slip
    rows t1 and t1 + 1; ``key`` names the point (the contact's name, with a box corner's index)."""

    def __init__(self, cm, contact, labels):
        self.contact, self.name, self.labels = contact, contact.name, labels
        self.key = contact.name + labels[0][len("normal"):]
        self.row = cm.rows.owner.index(("contact", contact.name, labels[0]))
        self.t1 = self.row + 1
        self.tangents = [self.t1, self.t1 + 1]
        self.rows = [self.row] + self.tangents


class ModeEvent(Event):
    """An event of a switched element whose compiled signal depends on the mode (``signal(modes)``:
    (signal_i row, signal_f row) or None when it is off) and whose action switches the mode."""
    rated = False       # its switch thresholds sit ulps off the states it switched at: its samples alone decide

    def __init__(self, modes, element, role, direction, signal, act):
        self.modes, self.element, self.role, self._signal, self._act = modes, element, role, signal, act
        super().__init__(self._never, action=self._action, direction=direction, name=element.name)

    @staticmethod
    def _never(t, state):                          # evaluated compiled only (compiled_signal)
        raise AssertionError

    def compiled_signal(self, cm):
        rows = self._signal()
        return ([SILENT, 0, 0, 0], [0.0] * 4) if rows is None else rows

    def _action(self, sim, t, state):
        self._act(sim)
        sim.switch_mode()


class Modes:
    """The switched elements of a run and the current mode."""

    def __init__(self, cm, previous=None):
        forces = cm.model.forces.values()
        self.sides = [StopSide(cm, f, side, value, sign) for f in forces if f.kind == "joint_limit" and f.rigid
                      for side, value, sign in f.stops()]
        self.locks = [Lock(cm, f) for f in forces if f.kind == "joint_friction" and f.exact]
        self.contacts = [ContactRows(cm, c, labels) for c in cm.model.contacts.values() if c.model == "rigid"
                         for labels in c.labels()]
        self.groups = {}                                           # contact name -> its points
        for c in self.contacts:
            self.groups.setdefault(c.name, []).append(c)
        self.nq, self.friction = cm.nq, cm.friction_table()
        self.closed, self.slip, self.stuck_at = set(), {}, {}    # held switched rows; name -> d; row -> q
        self.sliding = {}                                          # contact point key -> slip direction (d1, d2)
        self.touch = {}                                            # contact point key -> gap where it hits
        self.due = set()            # rows of closed contacts whose normal force was just located falling through 0
        if previous is not None:                                   # the same mode on a recompiled model
            names = previous.held_names()
            self.closed = {e.row for e in self.sides + self.locks if (e.name, getattr(e, "side", "")) in names}
            self.closed |= {r for c in self.contacts for r, label in zip(c.rows, c.labels) if (c.name, label) in names}
            self.slip = {lk.name: d for lk, d in ((lk, previous.slip.get(lk.name)) for lk in self.locks) if d}
            self.stuck_at = {lk.row: previous.stuck_at_name[lk.name] for lk in self.locks
                             if lk.name in previous.stuck_at_name}
            self.sliding = {c.key: previous.sliding[c.key] for c in self.contacts if c.key in previous.sliding}
            self.touch = dict(previous.touch)
        self.events = [e for s in self.sides for e in self._stop_events(s)] + \
                      [e for lk in self.locks for e in self._friction_events(lk)] + \
                      [e for c in self.contacts for e in self._contact_events(c)] + \
                      [self._slide_event(points) for points in self.groups.values()]

    def held_names(self):
        return {(e.name, getattr(e, "side", "")) for e in self.sides + self.locks if e.row in self.closed} | \
            {(c.name, label) for c in self.contacts for r, label in zip(c.rows, c.labels) if r in self.closed}

    @property
    def stuck_at_name(self):
        return {lk.name: self.stuck_at[lk.row] for lk in self.locks if lk.row in self.stuck_at}

    # ---------------------------------------------------------------- events
    def _stop_events(self, s):
        # hit: q passes the stop by a few ulps, so that a side opened while touching it (q at the value)
        # starts on the open side of the condition rather than on its zero, which never counts
        touch = s.value - s.sign * 4 * np.spacing(max(1.0, abs(s.value)))
        hit = lambda: None if s.row in self.closed else ([COORDINATE, s.qi, 0, 0], [touch, 0.0, 0.0, 0.0])
        release = lambda: ([MULTIPLIER, s.row, 0, 0], [0.0, s.sign, 0.0, 0.0]) if s.row in self.closed else None
        return [ModeEvent(self, s, "hit", -s.sign, hit, lambda sim: self._hit(sim, s)),
                ModeEvent(self, s, "release", -1, release, lambda sim: self._release(sim, s))]

    def _friction_events(self, lk):
        def stick(d):           # slipping in d, its velocity reaches zero: a crossing against d only
            return lambda: ([COORDINATE, self.nq + lk.vi, 0, 0], [0.0] * 4) if self.slip.get(lk.name) == d else None

        def unlock(sign):
            if lk.load is not None:          # sign lambda - (F_s + mu_s r |F_perp|) (dynamics/system.py)
                prismatic = int(self.friction[lk.load, F_PRISMATIC])
                signal = [FRICTION_LOAD, lk.row, lk.node, prismatic], \
                    [0.0, sign, lk.force.static, lk.force.mu_static * lk.force.radius]
            else:
                signal = [MULTIPLIER, lk.row, 0, 0], [lk.force.static, sign, 0.0, 0.0]
            return lambda: signal if lk.row in self.closed else None
        return [ModeEvent(self, lk, "stick", -d, stick(d), lambda sim: self._stick(sim, lk)) for d in (1.0, -1.0)] + [
            ModeEvent(self, lk, "unlock", 1, unlock(1.0), lambda sim: self._unlock(sim, lk, 1.0)),
            ModeEvent(self, lk, "unlock", 1, unlock(-1.0), lambda sim: self._unlock(sim, lk, -1.0))]

    def _contact_events(self, c):
        # hit: the gap falls a few ulps below where it opened (a projected gap may be off 0 by the
        # projection's tolerance: a threshold at 0 could start on the wrong side and miss the return)
        hit = lambda: None if c.row in self.closed else ([GAP, c.row, 0, 0], [self.touch.get(c.key, TOUCH_GAP),
                                                                              0.0, 0.0, 0.0])
        separate = lambda: ([MULTIPLIER, c.row, 0, 0], [0.0, 1.0, 0.0, 0.0]) if c.row in self.closed else None
        stick = lambda: ([SLIP, c.t1, 0, 0], [0.0, *self.sliding[c.key], 0.0]) \
            if c.key in self.sliding and c.contact.static > 0.0 else None          # frictionless: slides for good
        return [ModeEvent(self, c, "hit", -1, hit, lambda sim: self._touch(sim, c)),
                ModeEvent(self, c, "separate", -1, separate, lambda sim: self.due.add(c.row)),   # settle decides
                ModeEvent(self, c, "stick", -1, stick, lambda sim: self._stick_contact(sim.log, c, "slip stops"))]

    def _slide_event(self, points):
        """A contact's friction reaching its static cone, summed over its sticking points (a box resting
        flat holds by a resultant whose share per corner is not determined)."""
        first = points[0]
        cone = lambda: ([CONE, first.row, len(points), 0], [0.0, first.contact.static, 0.0, 0.0]) \
            if any(c.t1 in self.closed for c in points) else None
        return ModeEvent(self, first, "slide", -1, cone, lambda sim: self._slide(sim._driver, sim.t, sim.y, points))

    # ---------------------------------------------------------------- switches
    def _hit(self, sim, s):
        """Newton's impact at a stop side; it closes when the rebound is slower than min_bounce_speed."""
        driver, force = sim._driver, s.force
        q, v = sim.y[:driver.cm.nq].copy(), sim.y[driver.cm.nq:]
        q[s.qi] = s.value                                   # located a few ulps past it: on it
        approach = -s.sign * v[s.vi]                        # > 0 towards the stop
        rebound = force.restitution * approach
        closes = rebound < force.min_bounce_speed
        restitution = 0.0 if closes else force.restitution
        resting = self._resting(self._rates(driver, sim.t, sim.y))
        sim.set_state(q=q, v=self.impact(driver, sim.t, q, v, [s.row], [-restitution * v[s.vi]], resting)[0])
        if closes:
            self.closed.add(s.row)
        else:
            self._watch_apex(sim, driver, s, rebound)
        sim.log("limit", s.name, f"{s.side} stop {s.value:g} reached at {approach:.6g}; " +
                ("closed" if closes else f"rebounds at {rebound:.6g} (restitution {force.restitution:g})"))
        self._propagate(sim, resting)

    @staticmethod
    def _watch_apex(sim, driver, s, rebound):
        """Stop the stepper at the bounce's apex t + w / a (w the rebound speed, a the deceleration away
        from the stop): a step over a whole small bounce would see no sign change of q - value."""
        a_away = s.sign * driver.dynamics(sim.t, sim.y)[0][driver.cm.nq + s.vi]
        if a_away < 0.0:
            sim.stop_at(sim.t + rebound / -a_away)

    def _release(self, sim, s):
        self.closed.discard(s.row)
        sim.log("limit", s.name, f"leaves its {s.side} stop {s.value:g}")

    def _stick(self, sim, lk):
        """A slipping joint comes to rest: v = 0 there, stuck; the mode iteration decides what holds."""
        v = sim.y[sim._driver.cm.nq:].copy()
        v[lk.vi] = 0.0
        sim.set_state(v=v)
        self._lock(lk, sim.y[lk.qi])
        sim.log("lock", lk.name, "comes to rest")

    def _unlock(self, sim, lk, sign):
        """The holding force reached sign F_s: the joint slips the way the load pushes, -sign."""
        self.closed.discard(lk.row)
        self.slip[lk.name] = -sign
        level = f"{lk.force.static:g}" if lk.load is None else "mu_s r |F_perp|" + \
            (f" + {lk.force.static:g}" if lk.force.static else "")
        sim.log("unlock", lk.name, f"holding force reached static {level}; slips {'+' if sign < 0 else '-'}")

    def _lock(self, lk, q):
        self.slip.pop(lk.name, None)
        self.closed.add(lk.row)
        self.stuck_at[lk.row] = float(q)

    # ---------------------------------------------------------------- contact switches
    def _touch(self, sim, c):
        """Contact point c reaches the surface: with every open point touching and approaching at this
        instant (a box landing flat), one impact (``_strike``), passed on through the contacts resting
        at this instant (``_propagate``). A point already separating (an impact at this instant threw it
        off) only waits for its next touch; one at rest (round-off brought it a few ulps in) closes if the
        flow would press it in (``_iterate``), else waits too."""
        if c.row in self.closed:                        # closed with another point's impact at this instant
            return
        driver, t, y = sim._driver, sim.t, sim.y
        before = self._rates(driver, t, y)
        if before[c.key][1][c.row] >= -TOUCH_SPEED:      # leaving, or at rest: closes if it would press (_iterate)
            return self._arm(driver, t, y, c)
        points = [c] + [p for p in self.contacts if p is not c and p.row not in self.closed and
                        abs(before[p.key][0][p.row]) <= RESTING_GAP and before[p.key][1][p.row] < -TOUCH_SPEED]
        resting = self._resting(before) - {r for p in points for r in p.rows}
        self._strike(sim, points, before, resting)
        self._propagate(sim, resting)

    def _rates(self, driver, t, y):
        """{point key: (gaps, rates)} of every contact point at (t, y)."""
        return {p.key: self._contact_rows(driver, t, y[:self.nq], y[self.nq:], p)[:2] for p in self.contacts}

    def _resting(self, rates):
        """The rows of the contact points closed or touching (gap within RESTING_GAP) before an impact (``rates``:
        ``_rates``): free during it (``_propagate``)."""
        return {r for p in self.contacts if p.row in self.closed or abs(rates[p.key][0][p.row]) <= RESTING_GAP
                for r in p.rows}

    def _strike(self, sim, points, before, released):
        """One impact of contact points (``contact_impact``, the rows ``released`` free): each stays closed
        when its rebound is slower than min_bounce_speed, sticking or sliding as the impulse leaves it,
        else it bounces and the stepper stops at the bounce's apex."""
        driver, t = sim._driver, sim.t
        q, v = sim.y[:self.nq].copy(), sim.y[self.nq:].copy()
        approach = {p.key: -before[p.key][1][p.row] for p in points}
        closes = {p.key: p.contact.restitution * approach[p.key] < p.contact.min_bounce_speed for p in points}
        sticks, impulse = {}, {}
        if max(approach.values()) > 0:
            e = [0.0 if closes[p.key] else p.contact.restitution for p in points]
            v, sticks, impulse = self.contact_impact(driver, t, q, v, points, e, released)
            sim.set_state(v=v)
        after = self._rates(driver, t, sim.y)
        for p in points:
            hd = after[p.key][1]
            if closes[p.key]:
                self._close(p, hd[p.tangents], sticks.get(p.key))
            else:
                self._arm(driver, t, sim.y, p)
                self._watch_gap_apex(sim, driver, p, hd[p.row])
            hit = approach[p.key] > 0
            what = (f"impact at {approach[p.key]:.6g}, impulse {impulse[p.key]:.6g}; " if hit else "") + \
                ("closes, " + ("sticking" if p.t1 in self.closed else "sliding") if closes[p.key] else
                 f"rebounds at {hd[p.row]:.6g} (restitution {p.contact.restitution:g})")
            sim.log("impact" if hit else "contact", p.name, what)

    def _propagate(self, sim, resting):
        """Pass an impact on through the contacts that rested before it, closed or touching (``resting``:
        their rows; Han & Gilmore 1993, Multi-body impact motion with friction, J. Mech. Des. 115: impacts
        resolved in sequence): a resting point the impact left approaching its surface strikes in turn,
        with the points struck before it at this instant holding when they closed; repeated until none
        approaches (Newton's cradle passes the ball's speed along the row). A closed resting point the
        impacts threw off separates; one they set slipping slides."""
        driver, t = sim._driver, sim.t
        for _ in range(10 * len(self.contacts) + 1):
            before = self._rates(driver, t, sim.y)
            striking = [p for p in self.contacts if p.row in resting and before[p.key][1][p.row] < -TOUCH_SPEED]
            if not striking:
                break
            for p in striking:
                resting.difference_update(p.rows)
                self.closed.difference_update(p.rows)
                self.sliding.pop(p.key, None)
            self._strike(sim, striking, before, resting)
        else:
            raise SimulationError(f"an impact at t = {t:.9g} is still passed on between the contacts after "
                                  f"{10 * len(self.contacts)} rounds")
        after = self._rates(driver, t, sim.y)
        for p in self.contacts:
            if p.row not in resting or p.row not in self.closed:
                continue
            hd = after[p.key][1]
            slip = np.hypot(*hd[p.tangents])
            if hd[p.row] > TOUCH_SPEED:
                self._separate(driver, t, sim.y, p, f"thrown off by an impact at {hd[p.row]:.6g}")
            elif p.t1 in self.closed and slip > TOUCH_SPEED:
                self.closed.difference_update(p.tangents)
                self.sliding[p.key] = tuple(hd[p.tangents] / slip)
                sim.log("slide", p.name, "set slipping by an impact")

    @staticmethod
    def _contact_rows(driver, t, q, v, c):
        """(gap, slip and approach rates, Jacobian rows) of a contact's rows at (q, v)."""
        return constraint_values(driver.cm, q, v, t, rows=c.rows)

    def _watch_gap_apex(self, sim, driver, c, rebound):
        """As _watch_apex for a contact: the gap's rate falls at a = d/dt(G_n v), taken along the flow."""
        nq, y = driver.cm.nq, sim.y
        ydot = driver.dynamics(sim.t, y)[0]
        dt = 1e-6 * max(1.0, abs(sim.t))
        ahead = y + dt * ydot
        later = self._contact_rows(driver, sim.t + dt, ahead[:nq], ahead[nq:], c)[1][c.row]
        a_away = (later - rebound) / dt
        if a_away < 0.0:
            sim.stop_at(sim.t + rebound / -a_away)

    def _arm(self, driver, t, y, c):
        """Set the gap at which an open contact point hits: a few ulps below its gap now."""
        gap = self._contact_rows(driver, t, y[:self.nq], y[self.nq:], c)[0][c.row]
        self.touch[c.key] = min(gap, 0.0) + TOUCH_GAP

    def _can_all_push(self, driver, t, y, lam):
        """Whether some multipliers of the held rows give the same motion with every closed contact point
        pushing: lam + N alpha with N spanning the null space of the rows' force directions (their
        share of the load is not determined: a box's four corners, 4 rows of rank 3), found by a
        feasibility LP. The solver's own lam may have a corner pull where another split has none."""
        cm = driver.cm
        held = sorted({int(r) for r in cm.every_row} | self.closed)     # the redundant rows too
        _, _, G = constraint_values(cm, y[:self.nq], y[self.nq:], t, rows=held, targets=self.targets())
        force = G[held]
        for k, row in enumerate(held):                     # a sliding contact's friction: G_n - mu s G_t
            t1, mu, *_, s1, s2 = driver.data.cw.slide[row]
            if t1 >= 0:
                t1 = int(t1)
                _, _, Gt = constraint_values(cm, y[:self.nq], y[self.nq:], t, rows=[t1, t1 + 1])
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

    def _pressing(self, driver, t, y, c):
        """Whether open contact point c touches (gap and its rate ~0) and the flow would push it into the
        surface (its gap's acceleration, along the flow by a difference, below -TOUCH_ACCELERATION)."""
        gap, rate, _ = self._contact_rows(driver, t, y[:self.nq], y[self.nq:], c)
        if abs(gap[c.row]) > RESTING_GAP or abs(rate[c.row]) > TOUCH_SPEED:
            return False
        dt = 1e-7 * max(1.0, abs(t))
        ahead = y + dt * driver.dynamics(t, y)[0]
        later = self._contact_rows(driver, t + dt, ahead[:self.nq], ahead[self.nq:], c)[1][c.row]
        return (later - rate[c.row]) / dt < -TOUCH_ACCELERATION

    def _touch_at_rest(self, driver, t, y, c):
        """Close open point c, at rest on the surface: sliding along its slip, or sticking."""
        self._close(c, self._contact_rows(driver, t, y[:self.nq], y[self.nq:], c)[1][c.tangents])
        driver.log(t, "contact", c.name, "touches at rest and would press into the surface: closes")

    def _close(self, c, slip, sticks=False):
        """Close point c: sticking (its tangent rows held) if ``sticks`` or its slip is zero, else sliding
        along its slip; a frictionless point (static 0) always slides."""
        self.closed.add(c.row)
        speed = np.hypot(*slip)
        if c.contact.static > 0.0 and (sticks or speed == 0.0):
            self.closed.update(c.tangents)
        else:
            self.sliding[c.key] = tuple(slip / speed) if speed > 0.0 else (1.0, 0.0)

    def _separate(self, driver, t, y, c, why):
        self.closed.difference_update(c.rows)
        self.sliding.pop(c.key, None)
        self._arm(driver, t, y, c)
        driver.log(t, "separate", c.name, why)

    @staticmethod
    def resultant(lam, points):
        """(normal force, friction force along (t1, t2)) of a contact: the sums over its points."""
        return sum(lam[c.row] for c in points), sum(lam[c.tangents] for c in points)

    def _slide(self, driver, t, y, points):
        """A sticking contact's friction reached the static cone: its sticking points slide the way the
        load pushes, against the friction force that held them."""
        normal, friction = self.resultant(driver.dynamics(t, y)[1], points)
        size = np.hypot(*friction)
        d = -friction / size if size > 0 else np.array([1.0, 0.0])
        for c in points:
            if c.t1 in self.closed:
                self.closed.difference_update(c.tangents)
                self.sliding[c.key] = tuple(d)
        driver.log(t, "slide", points[0].name, f"friction {size:.6g} reaches static {points[0].contact.static:g} "
                                               f"x normal force {normal:.6g}; slides along ({d[0]:.3g}, {d[1]:.3g})")

    def _stick_contact(self, log, c, why):
        self.sliding.pop(c.key, None)
        self.closed.update(c.tangents)
        log("stick", c.name, why)

    def contact_impact(self, driver, t, q, v, points, restitutions, released=()):
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
        _, hd, G = constraint_values(driver.cm, q, v, t, rows=np.ravel(rows))
        target = G @ v - hd                                     # f': the surface's velocity on the slip rows
        b = [x for p, e in zip(points, restitutions) for x in (target[p.row] - e * hd[p.row], *target[p.tangents])]
        v_plus, P = self.impact(driver, t, q, v, np.ravel(rows).tolist(), b, released)
        P = P.reshape(len(points), 3)
        if all(np.hypot(*P_p[1:]) <= p.contact.static * P_p[0] * (1 + 1e-12) for p, P_p in zip(points, P)):
            return v_plus, {p.key: True for p in points}, {p.key: P_p[0] for p, P_p in zip(points, P)}
        before = np.array([hd[p.tangents] for p in points])
        coulomb = np.array([s / np.hypot(*s) if np.hypot(*s) > 0 else -P_p[1:] / max(np.hypot(*P_p[1:]), 1e-300)
                            for s, P_p in zip(before, P)])
        forces = lambda s: {p.row: G[p.row] - p.contact.kinetic * (s_p @ G[p.tangents]) for p, s_p in zip(points, s)}
        M = self.mass_matrix(driver, q)
        for scale in (1.0, 0.0):
            b = [target[p.row] - scale * e * hd[p.row] for p, e in zip(points, restitutions)]
            solve = lambda s: self.impact(driver, t, q, v, [p.row for p in points], b, released, forces(s))
            s = coulomb
            if any(p.contact.impact_law == "smith" for p in points):
                s = self._smith_directions(solve, points, G, target, before, coulomb)
            v_plus, P = solve(s)
            if v_plus @ M @ v_plus <= v @ M @ v * (1 + 1e-12):
                break
        return v_plus, {}, {p.key: P_p for p, P_p in zip(points, P)}

    @staticmethod
    def _smith_directions(solve, points, G, target, before, coulomb):
        """The friction directions of Smith's law (Smith 1991, eq. 15) at the sliding points, the others
        keeping Coulomb's: s = (s- + s+) / (|s-| + |s+|), with the slips s+ after the impact that the
        directions give (``solve(s)`` -> (v+, P)). Coulomb's directions where they reverse no slip (then
        s+ and s- point alike), else that fixed point by scipy's bounded least squares (|s| <= 1 per
        component, where a root lies)."""
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

    # ---------------------------------------------------------------- the mode of a Data
    def impacts(self, events, lagrange):
        """The Impacts of a Data (dynamics/impacts.py) for the compiled events ``events``: the contact points'
        hits resolved compiled, while every switched row is open and nothing slips or slides in the Lagrange
        formulation; None without rigid contacts."""
        if not self.contacts:
            return None
        free = lagrange and not (self.closed or self.slip or self.sliding)
        table = [[e.element.contact.restitution, e.element.contact.min_bounce_speed, e.element.contact.static, 1.0]
                 if free and isinstance(e, ModeEvent) and e.role == "hit" and isinstance(e.element, ContactRows)
                 else [0.0] * 4 for e in events]
        return new_impacts(table, [c.row for c in self.contacts])

    def apply(self, data):
        """Write the mode's lock targets, kinetic friction forces and sliding contacts into a run's Data."""
        for c in self.contacts:
            d = self.sliding.get(c.key)
            data.cw.slide[c.row] = (-1.0, 0.0, 0.0, 0.0, 0.0, 0.0) if d is None else \
                (c.t1, c.contact.kinetic, d[0], d[1], d[0], d[1])
        data.arrays.tau[:] = 0.0
        for lk in self.locks:
            slipping = lk.row not in self.closed and self.slip.get(lk.name)
            if lk.row in self.closed:
                data.arrays.con_t[lk.row] = (self.stuck_at[lk.row], 0.0, 0.0)
            elif slipping:
                data.arrays.tau[lk.vi] = -self.slip[lk.name] * lk.force.kinetic     # the load's part: solved with qdd
            if lk.load is not None:
                data.cw.friction[lk.load, F_SIGN] = self.slip[lk.name] if slipping else 0.0

    def targets(self):
        """{row: (f, f', f'')} of the held lock rows (for the Result of this mode)."""
        return {row: (q, 0.0, 0.0) for row, q in self.stuck_at.items() if row in self.closed}

    def analysis(self, cm, q, v, t):
        """The redundancy analysis with the held switched rows (assembly/redundancy.py)."""
        rows = np.union1d(cm.every_row, sorted(self.closed)).astype(np.int64)
        return analyse(cm, constraint_values(cm, q, v, t, rows=rows, targets=self.targets())[2],
                       closed=sorted(self.closed))

    # ---------------------------------------------------------------- start and mode iteration
    def start(self, sim):
        """The mode at the start: stops touched without moving away are hit, a friction at rest is stuck
        (the mode iteration then unlocks it if the load exceeds its static level), else it slips; contact
        points touching and approaching strike, those at rest close if they would press (``_iterate``)."""
        driver = sim._driver
        self.nq = driver.cm.nq
        for s in self.sides:
            if s.sign * (sim.y[s.qi] - s.value) < -1e-9 * max(1.0, abs(s.value)):
                raise SimulationError(f"joint limit '{s.name}': joint '{s.force.joint}' starts at {sim.y[s.qi]:.6g}, "
                                      f"beyond its {s.side} stop {s.value:g}; start it within its limits")
        for s in self.sides:
            if s.row not in self.closed and abs(sim.y[s.qi] - s.value) <= TOUCH * max(1.0, abs(s.value)) \
                    and s.sign * sim.y[self.nq + s.vi] <= 0.0:
                self._hit(sim, s)
        for lk in self.locks:
            v = sim.y[self.nq + lk.vi]
            if v != 0.0:
                self.slip[lk.name] = np.sign(v)
            else:
                self._lock(lk, sim.y[lk.qi])
        touching, near = [], False
        for c in self.contacts:
            gap, hd, _ = self._contact_rows(driver, sim.t, sim.y[:self.nq], sim.y[self.nq:], c)
            if gap[c.row] < -1e-9:
                raise SimulationError(f"contact '{c.name}': body '{c.contact.body}' starts {-gap[c.row]:.6g} inside "
                                      f"the surface of '{c.contact.surface}'; start it on or above the surface")
            near = near or gap[c.row] <= RESTING_GAP
            if gap[c.row] <= RESTING_GAP and hd[c.row] < -TOUCH_SPEED:
                touching.append(c)
        for c in touching:              # each strikes; a point at rest closes if it would press (_iterate)
            self._touch(sim, c)
        if self.closed or self.slip or self.sliding or near:     # else every switched row is open and stays so
            sim.switch_mode()

    def added_contacts(self, driver, t, y, before):
        """Contacts an action added (their names not in ``before``): each point must start on or off its
        surface, and hits when its gap falls below where it starts."""
        for c in self.contacts:
            if c.name not in before:
                gap = self._contact_rows(driver, t, y[:self.nq], y[self.nq:], c)[0][c.row]
                if gap < -1e-9:
                    raise SimulationError(f"contact '{c.name}' added at t = {t:.9g}: body '{c.contact.body}' is "
                                          f"{-gap:.6g} inside the surface of '{c.contact.surface}'")
                self._arm(driver, t, y, c)

    def consistent(self, driver, t, y):
        """Whether the current mode is consistent at (t, y) (the mode iteration would change nothing),
        after something outside the modes changed (a jump of a force, an input set by an action)."""
        if not self.closed and not self.slip and not self.sliding:
            return True
        saved, n_records = (set(self.closed), dict(self.slip), dict(self.stuck_at), dict(self.sliding)), \
            len(driver.records)
        ydot, lam = driver.dynamics(t, y)
        changes = self._iterate(driver, t, y, lam, ydot[self.nq:])
        self.closed, self.slip, self.stuck_at, self.sliding = saved
        del driver.records[n_records:]
        return not changes

    def settle(self, driver, t, y, fresh=False):
        """The mode iteration (module docstring) at (t, y): uses each trial mode on the driver
        (driver.use_mode; ``fresh``: the driver's Data already holds the first, made at this y) and returns
        the state projected onto the final mode's rows."""
        try:
            return self._iterate_modes(driver, t, y, fresh)
        finally:
            self.due.clear()                             # the separate events' marks hold for this settle only

    def _iterate_modes(self, driver, t, y, fresh):
        seen, slid = set(), set()                        # trial modes; contacts sliding with friction in them
        start, n_records = self.mode(), len(driver.records)
        while True:
            key = self.mode()
            slid |= {c.name for c in self.contacts if c.key in self.sliding and c.contact.kinetic > 0.0}
            if key in seen:
                if slid:
                    raise SimulationError(
                        f"contacts {', '.join(sorted(slid))} find "
                        f"no consistent mode at t = {t:.9g}: sliding, the normal force would pull, and open, the "
                        "contact would penetrate (a Painlevé paradox: the friction is too high for this configuration)")
                return self._settle_by_complementarity(driver, t, y, start, n_records)
            seen.add(key)
            if not fresh:
                y = driver.use_mode(t, y)
            fresh = False
            ydot, lam = driver.dynamics(t, y)
            if not self._iterate(driver, t, y, lam, ydot[self.nq:]):
                return y

    def mode(self):
        """The current mode as a hashable key."""
        return frozenset(self.closed), tuple(sorted(self.slip.items())), tuple(sorted(self.sliding.items()))

    def _settle_by_complementarity(self, driver, t, y, start, n_records):
        """Where the mode iteration cycles: the mode of one complementarity solve (``complementarity``), its
        switches logged against the mode the iteration started from instead of the cycle's."""
        del driver.records[n_records:]
        closed_before, slip_before = start[0], dict(start[1])
        self.complementarity(driver, t, y)
        y = driver.use_mode(t, y)
        ydot, lam = driver.dynamics(t, y)
        if self._iterate(driver, t, y, lam, ydot[self.nq:]):
            raise SimulationError(f"the stops, frictions and contacts find no consistent mode at t = {t:.9g}: the "
                                  "mode iteration cycles, and the complementarity solve's mode does not hold either")
        why = "by a complementarity solve (the mode iteration cycled)"
        for s in self.sides:
            if (s.row in closed_before) != (s.row in self.closed):
                driver.log(t, "limit", s.name, f"{'closes on' if s.row in self.closed else 'leaves'} its {s.side} "
                                               f"stop {s.value:g} {why}")
        for lk in self.locks:
            stuck = lk.row in self.closed
            if (lk.row in closed_before) != stuck or slip_before.get(lk.name) != self.slip.get(lk.name):
                what = "stuck" if stuck else f"slips {'+' if self.slip[lk.name] > 0 else '-'}"
                driver.log(t, "lock" if stuck else "unlock", lk.name, f"{what} {why}")
        for c in self.contacts:
            if (c.row in closed_before) != (c.row in self.closed):
                driver.log(t, "contact" if c.row in self.closed else "separate", c.name,
                           f"{'closes' if c.row in self.closed else 'opens'} {why}")
            elif c.row in self.closed and (c.t1 in closed_before) != (c.t1 in self.closed):
                driver.log(t, "stick" if c.t1 in self.closed else "slide", c.name,
                           f"{'sticks' if c.t1 in self.closed else 'slides'} {why}")
        return y

    def complementarity(self, driver, t, y):
        """Set the mode from the multipliers of one solve at (t, y): Gauss' principle, the accelerations
        qdd = qdd_free + M^-1 G^T lambda nearest qdd_free in M's metric, with the rows that always hold and
        the sticking contacts' tangent rows as equalities, each touching contact point's normal and each
        touching stop pushing only, and each friction at rest within its static level. In the multipliers
        this is the box-constrained LCP  a = A lambda + b, l <= lambda <= u, a = 0 inside the box, a >= 0 at
        l, a <= 0 at u  (A = G M^-1 G^T, b = G qdd_free - gamma, a the rows' accelerations; Cottle, Pang &
        Stone, The Linear Complementarity Problem, 1992, §1.2: a convex QP), solved as the bounded least
        squares  min |L^-1 G^T lambda + L^T (qdd_free - x)|  (M = L L^T, G x = gamma) by scipy's BVLS.
        The contact points at rest on their surface add their tangent rows with Coulomb's cone
        |lambda_t| <= mu_s lambda_n (Pfeiffer & Glocker 1996, §7; a second-order cone, so the convex QP
        is solved by scipy's SLSQP from the BVLS solution); sliding points keep their kinetic friction.
        Closed: the points and stops whose multiplier pushes; stuck: the frictions strictly inside their
        level, the others slipping against the bound they reach; a point at rest sticks strictly inside
        its cone and slides on it, against its friction force."""
        cm, q, v = driver.cm, y[:self.nq], y[self.nq:]
        rates = self._rates(driver, t, y)
        touching = [c for c in self.contacts if c.row in self.closed or
                    abs(rates[c.key][0][c.row]) <= RESTING_GAP and abs(rates[c.key][1][c.row]) <= TOUCH_SPEED]
        at_rest = [c for c in touching if np.hypot(*rates[c.key][1][c.tangents]) <= TOUCH_SPEED]
        stops = [s for s in self.sides if s.row in self.closed or
                 abs(q[s.qi] - s.value) <= TOUCH * max(1.0, abs(s.value)) and abs(v[s.vi]) <= TOUCH_SPEED]
        resting = [lk for lk in self.locks if lk.row in self.closed or v[lk.vi] == 0.0]
        static = self.static_levels(driver, y, driver.dynamics(t, y)[0][self.nq:])
        bounds = {int(r): (-np.inf, np.inf) for r in cm.every_row}
        bounds.update({r: (-np.inf, np.inf) for c in touching if c.t1 in self.closed for r in c.tangents})
        bounds.update({r: (-np.inf, np.inf) for c in at_rest for r in c.tangents})
        bounds.update({c.row: (0.0, np.inf) for c in touching})
        bounds.update({s.row: (0.0, np.inf) if s.sign > 0 else (-np.inf, 0.0) for s in stops})
        bounds.update({lk.row: (-static[lk.name], static[lk.name]) for lk in resting})
        rows = sorted(bounds)
        G, gamma = constraint_accelerations(cm, q, v, t, rows=rows, targets=self.targets())
        G, gamma = G[rows], gamma[rows]
        M = self.mass_matrix(driver, q)
        bias = np.empty(cm.nv)
        rnea(cm.arrays, driver.data.arrays, np.ascontiguousarray(q), np.ascontiguousarray(v), np.zeros(cm.nv), bias)
        tau = driver.data.arrays.tau.copy()
        tau[[lk.vi for lk in resting]] = 0.0             # their friction is the solve's, not a slipping mode's
        free = np.linalg.solve(M, tau - bias)
        L = np.linalg.cholesky(M)
        x = np.linalg.lstsq(G, gamma, rcond=None)[0]
        lower, upper = np.array([bounds[r] for r in rows]).T
        from scipy.optimize import lsq_linear     # imported here, not at start-up (~0.4 s): a cycling mode iteration only
        A, b = np.linalg.solve(L, G.T), -L.T @ (free - x)
        lam = lsq_linear(A, b, bounds=(lower, upper), method="bvls", tol=1e-14).x
        cones = [([rows.index(r) for r in c.rows], c.contact.static) for c in at_rest]
        if cones:
            lam = self._within_cones(A, b, lam, lower, upper, cones)
        scale = 1e-9 * max(1.0, np.abs(lam).max())
        pushing = {r for r, value in zip(rows, lam) if value > scale or value < -scale}
        for c in touching:
            self.closed.discard(c.row)
            if c.row in pushing:
                self.closed.add(c.row)
            else:
                self.closed.difference_update(c.tangents)
                self.sliding.pop(c.key, None)
        for c in at_rest:
            if c.row in pushing:
                normal, friction = lam[rows.index(c.row)], lam[[rows.index(r) for r in c.tangents]]
                if np.hypot(*friction) < c.contact.static * normal * (1 - 1e-6):
                    self.sliding.pop(c.key, None)
                    self.closed.update(c.tangents)
                else:                                      # on its cone: it slides against its friction
                    self.closed.difference_update(c.tangents)
                    self.sliding[c.key] = tuple(-friction / max(np.hypot(*friction), 1e-300))
        for s in stops:
            self.closed.discard(s.row)
            if s.row in pushing:
                self.closed.add(s.row)
        for lk, value in ((lk, lam[rows.index(lk.row)]) for lk in resting):
            if abs(value) < static[lk.name] * (1 - 1e-9):
                self._lock(lk, self.stuck_at.get(lk.row, y[lk.qi]))
            else:
                self.closed.discard(lk.row)
                self.slip[lk.name] = -np.sign(value)

    @staticmethod
    def _within_cones(A, b, start, lower, upper, cones):
        """min |A lambda - b|^2 within the bounds and the friction cones ``cones`` [([normal, t1, t2]
        indices, mu_s)]: mu_s^2 lambda_n^2 - |lambda_t|^2 >= 0 (with lambda_n >= 0 from the bounds), by
        scipy's SLSQP from ``start``, pulled into the cones first."""
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
                         bounds=list(zip(lower, upper)), constraints=[cone(i, mu) for i, mu in cones],
                         method="SLSQP", options={"ftol": 1e-15, "maxiter": 500})
        return found.x

    def _iterate(self, driver, t, y, lam, a):
        """One change towards a consistent mode; False when the mode is consistent."""
        for s in self.sides:                               # a closed stop must push
            if s.row in self.closed and s.sign * lam[s.row] <= 0.0:
                self.closed.discard(s.row)
                driver.log(t, "limit", s.name, f"leaves its {s.side} stop {s.value:g}: its force would pull")
                return True
        # at the located root of its separate event a normal force is ~0 on either side: it counts as pulling
        pulling = [c for c in self.contacts if c.row in self.closed and (lam[c.row] <= 0.0 or c.row in self.due)]
        if pulling and not self._can_all_push(driver, t, y, lam):       # a closed contact must push
            c = min(pulling, key=lambda c: lam[c.row])
            self._separate(driver, t, y, c, "its normal force would pull")
            return True
        pressing = [c for c in self.contacts if c.row not in self.closed and self._pressing(driver, t, y, c)]
        for c in pressing:                                 # open contacts touching at rest must not penetrate
            self._touch_at_rest(driver, t, y, c)
        if pressing:
            return True
        for points in self.groups.values():                # a sticking contact must hold within static friction
            normal, friction = self.resultant(lam, points)
            if any(c.t1 in self.closed for c in points) and np.hypot(*friction) > points[0].contact.static * normal:
                self._slide(driver, t, y, points)
                return True
        # a stuck joint must hold strictly within static friction: its unlock condition then starts below zero
        static = self.static_levels(driver, y, a)
        overloaded = [(abs(lam[lk.row]) / max(static[lk.name], 1e-300), lk) for lk in self.locks
                      if lk.row in self.closed and lam[lk.row] != 0.0 and abs(lam[lk.row]) >= static[lk.name]]
        if overloaded:
            _, lk = max(overloaded, key=lambda item: item[0])
            self.closed.discard(lk.row)
            self.slip[lk.name] = -np.sign(lam[lk.row])          # the load's direction: the lock held it back
            driver.log(t, "unlock", lk.name, f"holding force {abs(lam[lk.row]):.6g} exceeds static "
                       f"{static[lk.name]:.6g}; slips {'+' if self.slip[lk.name] > 0 else '-'}")
            return True
        for lk in self.locks:
            d = self.slip.get(lk.name)
            if d and y[self.nq + lk.vi] == 0.0 and d * a[lk.vi] < 0.0:
                self._lock(lk, y[lk.qi])
                driver.log(t, "lock", lk.name, "stuck: the load is within static friction")
                return True
        return False

    def static_levels(self, driver, y, a):
        """{friction name: its static level} at (y, accelerations a) after driver.dynamics there: F_s, plus
        mu_s r |F_perp| with the joint's load where it grows with it (dynamics/multipliers.py)."""
        levels = {lk.name: lk.force.static for lk in self.locks}
        if self.friction.shape[0]:
            loads = np.empty(self.friction.shape[0])
            friction_loads(driver.cm.arrays, driver.data.arrays, driver.data.cw, y[:self.nq], y[self.nq:],
                           np.ascontiguousarray(a), loads)
            for lk in self.locks:
                if lk.load is not None:
                    levels[lk.name] += lk.force.mu_static * lk.force.radius * loads[lk.load]
        return levels

    # ---------------------------------------------------------------- impulse
    @staticmethod
    def mass_matrix(driver, q):
        M = np.empty((driver.cm.nv, driver.cm.nv))
        crba(driver.cm.arrays, driver.data.arrays, np.ascontiguousarray(q), M)
        return M

    def impact(self, driver, t, q, v, new_rows, new_b, released=(), forces=None):
        """Post-impact velocities v+ and impulses P (module docstring): M (v+ - v-) = W^T P with the
        held rows (the rows that always hold and the closed switched rows: G v+ = f') and the rows
        ``new_rows`` (G v+ = ``new_b``), W = G except the force directions ``forces`` {row: direction}
        (sliding impacts' friction); the KKT system by least
        squares (redundant rows give a consistent singular system). The rows ``released`` (contacts resting
        before the impact: ``_propagate``) do not hold. P: the impulses of the new rows."""
        cm = driver.cm
        held = sorted({int(r) for r in cm.every_row} | self.closed)
        rows = [r for r in held if r not in new_rows and r not in released] + list(new_rows)
        _, hd, G = constraint_values(cm, q, v, t, rows=rows, targets=self.targets())
        A = G[rows]
        W = A.copy()
        for k, row in enumerate(rows):
            if forces and row in forces:
                W[k] = forces[row]
        b = A @ v - hd[rows]                            # f' of each row
        b[len(rows) - len(new_rows):] = new_b
        M = self.mass_matrix(driver, q)
        n = len(rows)
        K = np.block([[M, -W.T], [A, np.zeros((n, n))]])
        x = np.linalg.lstsq(K, np.concatenate([M @ v, b]), rcond=None)[0]
        return x[:cm.nv], x[cm.nv + n - len(new_rows):]
