"""Rigid joint stops in a run (SPEC §3 ``joint_limit``): modes as sets of closed unilateral rows.

Each side of a rigid stop is one coordinate row q - value = 0 (dynamics/closure.py) that holds only
while the stop is closed. The run driver watches, compiled, two events per side:

- *hit*, while open: q crosses the stop towards it. Newton's impact law (Glocker & Pfeiffer 1995;
  Brogliato, *Nonsmooth Mechanics*, 2016, §4.2) over every row that holds: the post-impact
  velocities v+ solve  M (v+ - v-) = A^T p,  A v+ = b,  b = f' for the rows that always hold, 0 for
  closed stops and -e (A v-) for the hitting row — the impulse form of M vdot = f + G^T lambda,
  Lambda = G M^-1 G^T (Wood & Kennedy 2003, eqs. 11–14). Kinetic energy never grows for e <= 1 and
  is kept for e = 1. When the rebound speed e |v_n| is below the stop's min_bounce_speed the stop
  closes instead: its row joins the held rows (v_n = 0) if its force then pushes.
- *release*, while closed: the stop's force (the row's multiplier, signed so that pushing is
  positive) falls through zero; the row is dropped and the body leaves the stop (Wood & Kennedy
  2003 §6: a unilateral constraint that would pull is released, with a fresh analysis of the rows).

Every switch is an ``EventRecord`` of kind "limit", and the redundancy analysis of the held rows is
redone at the switch (a stop closing in a closed loop).
"""
import numpy as np

from ..assembly.redundancy import analyse
from ..dynamics.api import constraint_values
from ..dynamics.kernels import crba
from ..dynamics.system import COORDINATE, MULTIPLIER, SILENT
from ..errors import SimulationError
from .events import Event, EventRecord


class StopSide:
    """One side of a rigid stop: its row, the coordinate it holds, the value and the sign of the push
    (+1: lower, the stop pushes q up; -1: upper)."""

    def __init__(self, cm, force, side, value, sign):
        self.force, self.name, self.side, self.value, self.sign = force, force.name, side, value, sign
        self.row = next(k for k, o in enumerate(cm.rows.owner) if o == ("limit", force.name, side))
        node = cm.joint_nodes[force.joint][force.primitive]
        self.qi, self.vi = int(cm.node_i[node, 2]), int(cm.node_i[node, 3])


class StopEvent(Event):
    """The hit or release event of a stop side; its compiled signal follows the stop's mode."""
    kind = "limit"

    def __init__(self, stops, side, role):
        self.stops, self.stop, self.role = stops, side, role
        super().__init__(self._condition, action=self._act, direction=-1 if role == "release" else -side.sign,
                         name=side.name)

    def _condition(self, t, state):               # only through compiled_signal; never called
        raise AssertionError

    def compiled_signal(self, cm):
        """(signal_i row, signal_f row) as simulation/events.py's compiled_signal, with the value."""
        watching = (self.stop.row in self.stops.closed) == (self.role == "release")
        if not watching:
            return [SILENT, 0, 0, 0], [0.0, 0.0, 0.0, 0.0]
        if self.role == "release":
            return [MULTIPLIER, self.stop.row, 0, 0], [0.0, self.stop.sign, 0.0, 0.0]
        return [COORDINATE, self.stop.qi, 0, 0], [self.stop.value, 0.0, 0.0, 0.0]

    def _act(self, sim, t, state):
        return self.stops.release(sim, self.stop) if self.role == "release" else self.stops.hit(sim, self.stop)


class Stops:
    """The rigid stops of a run and which sides are closed."""

    def __init__(self, cm, closed=()):
        self.sides = [StopSide(cm, force, side, value, sign)
                      for force in cm.model.forces.values() if force.kind == "joint_limit" and force.rigid
                      for side, value, sign in force.stops()]
        self.closed = {s.row for s in self.sides if (s.name, s.side) in closed}     # rows of the closed sides
        self.events = [StopEvent(self, side, role) for side in self.sides for role in ("hit", "release")]

    def closed_sides(self):
        return {(s.name, s.side) for s in self.sides if s.row in self.closed}

    def touching(self, y, nq):
        """The open sides that y = [q; v] touches without moving away."""
        return [s for s in self.sides if s.row not in self.closed and abs(y[s.qi] - s.value) <= 1e-12 * max(1.0, abs(s.value))
                and s.sign * y[nq + s.vi] <= 0.0]

    def check_start(self, q):
        """q must not start beyond a stop."""
        for s in self.sides:
            if s.sign * (q[s.qi] - s.value) < -1e-9 * max(1.0, abs(s.value)):
                raise SimulationError(f"joint limit '{s.name}': joint '{s.force.joint}' starts at {q[s.qi]:.6g}, "
                                      f"beyond its {s.side} stop {s.value:g}; start it within its limits")

    # ---------------------------------------------------------------- switches
    def hit(self, sim, stop):
        """Newton's impact at stop; the stop closes when the rebound is slower than min_bounce_speed."""
        driver, force = sim._driver, stop.force
        q, v = sim.y[:driver.cm.nq], sim.y[driver.cm.nq:]
        approach = -stop.sign * v[stop.vi]                  # > 0 towards the stop
        rebound = force.restitution * approach
        closes = rebound < force.min_bounce_speed
        v_new = self.impact(driver, sim.t, q, v, stop, 0.0 if closes else force.restitution)
        sim.set_state(v=v_new)
        if not closes:
            self._watch_apex(sim, driver, stop, rebound)
        if closes:
            self.closed.add(stop.row)
            sim.switch_mode()
        detail = (f"{stop.side} stop {stop.value:g} reached at {approach:.6g}; "
                  + ("closed" if closes else f"rebounds at {rebound:.6g} (restitution {force.restitution:g})"))
        sim.log("limit", stop.name, detail)

    @staticmethod
    def _watch_apex(sim, driver, stop, rebound):
        """Stop the stepper at the bounce's apex t + w / a (w the rebound speed, a the deceleration away
        from the stop): a step over a whole small bounce would see no sign change of q - value."""
        a_away = stop.sign * driver.derivative(sim.t, sim.y)[driver.cm.nq + stop.vi]
        if a_away < 0.0:
            sim.stop_at(sim.t + rebound / -a_away)

    def release(self, sim, stop):
        self.closed.discard(stop.row)
        sim.switch_mode()
        sim.log("limit", stop.name, f"leaves its {stop.side} stop {stop.value:g}")

    def pulling(self, driver, t, y):
        """The closed sides whose force pulls at (t, y): they open at once (a stop closing without
        holding anything, e.g. reached at rest while the load turns away)."""
        if not self.closed:
            return []
        lam = driver.multipliers(t, y)
        return [s for s in self.sides if s.row in self.closed and s.sign * lam[s.row] < 0.0]

    def analysis(self, cm, q, v, t):
        """The redundancy analysis with the closed sides' rows (assembly/redundancy.py)."""
        rows = np.union1d(cm.every_row, sorted(self.closed)).astype(np.int64)
        return analyse(cm, constraint_values(cm, q, v, t, rows=rows)[2], closed=sorted(self.closed))

    # ---------------------------------------------------------------- impulse
    def impact(self, driver, t, q, v, stop, restitution):
        """Post-impact velocities (module docstring): the KKT system of M, the held rows and the
        hitting row, solved by least squares (redundant rows give a consistent singular system)."""
        cm = driver.cm
        held = [int(r) for r in driver.data.active]
        rows = held + [stop.row]
        h, hd, G = constraint_values(cm, q, v, t, rows=rows)
        A = G[rows]
        b = A @ v - hd[rows]                            # f' of each row
        b[[k for k, r in enumerate(rows) if r in self.closed]] = 0.0
        b[-1] = -restitution * (A[-1] @ v)
        M = np.empty((cm.nv, cm.nv))
        crba(cm.arrays, driver.data, np.ascontiguousarray(q), M)
        n = len(rows)
        K = np.block([[M, A.T], [A, np.zeros((n, n))]])
        x = np.linalg.lstsq(K, np.concatenate([M @ v, b]), rcond=None)[0]
        return x[:cm.nv]
