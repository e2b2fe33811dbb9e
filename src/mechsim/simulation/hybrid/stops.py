"""Rigid joint stops as switched elements (SPEC §3 ``joint_limit`` with rigid=True; simulation/hybrid/__init__.py): a
stop side's row q - value = 0 holds while it is closed. It is hit (Newton's impact law over every held row,
impulses.py) when q reaches it, closes when the rebound is slower than min_bounce_speed, and is released when its
force would pull. A switched kind's module (elements.py SWITCHED_KINDS): ``rows``, ``events``, ``start``, ``change``
and ``logged``; the switches take the run's Plant (simulation/plant.py) and the action's handle ``sim`` (t, y,
set_state, stop_at, log)."""
import numpy as np

from ...dynamics.system import COORDINATE, MULTIPLIER
from ...errors import SimulationError
from .switched import JointRow, ModeEvent

TOUCH = 1e-12          # |q - value| within this (relative to max(1, |value|)) touches a stop


class StopSide(JointRow):
    """One side of a rigid stop; sign +1 for lower (the stop pushes q up), -1 for upper."""

    def __init__(self, cm, force, side, value, sign):
        super().__init__(cm, force, ("limit", force.name, side))
        self.side, self.value, self.sign = side, value, sign


ELEMENTS = "sides"


def rows(cm):
    """The sides of the rigid stops of compiled model cm."""
    return [StopSide(cm, f, side, value, sign) for f in cm.model.forces.values() if f.kind == "joint_limit" and f.rigid
            for side, value, sign in f.stops()]


def events(modes, elements):
    """Each side's hit (open) and release (closed: its force falls through zero)."""
    return [e for s in elements.sides for e in side_events(modes, s)]


def side_events(modes, s):
    mode = modes.mode
    # hit: q passes the stop by a few ulps, so that a side opened while touching it (q at the value)
    # starts on the open side of the condition rather than on its zero, which never counts
    touch = s.value - s.sign * 4 * np.spacing(max(1.0, abs(s.value)))
    hit = lambda: None if s.row in mode.closed else ([COORDINATE, s.qi, 0, 0], [touch, 0.0, 0.0, 0.0])
    release_signal = lambda: ([MULTIPLIER, s.row, 0, 0], [0.0, s.sign, 0.0, 0.0]) if s.row in mode.closed else None
    return [ModeEvent(s, "hit", -s.sign, hit, lambda sim: strike(modes, sim, s)),
            ModeEvent(s, "release", -1, release_signal, lambda sim: release(modes, sim, s))]


def strike(modes, sim, s):
    """Newton's impact at a stop side; it closes when the rebound is slower than min_bounce_speed. The impact is
    passed on through the contacts resting at its instant (contacts.py)."""
    plant, contacts, force = modes.plant, modes.contacts, s.force
    nq = plant.cm.nq
    q, v = sim.y[:nq].copy(), sim.y[nq:]
    q[s.qi] = s.value                                   # located a few ulps past it: on it
    approach = -s.sign * v[s.vi]                        # > 0 towards the stop
    rebound = force.restitution * approach
    closes = rebound < force.min_bounce_speed
    restitution = 0.0 if closes else force.restitution
    resting = contacts.resting(contacts.rates(plant, sim.t, sim.y))
    sim.set_state(q=q, v=modes.laws.impact(plant, sim.t, q, v, [s.row], [-restitution * v[s.vi]], resting)[0])
    if closes:
        modes.mode.closed.add(s.row)
    else:
        watch_apex(plant, sim, s, rebound)
    sim.log("limit", s.name, f"{s.side} stop {s.value:g} reached at {approach:.6g}; " +
            ("closed" if closes else f"rebounds at {rebound:.6g} (restitution {force.restitution:g})"))
    contacts.propagate(plant, sim, resting)


def release(modes, sim, s):
    modes.mode.closed.discard(s.row)
    sim.log("limit", s.name, f"leaves its {s.side} stop {s.value:g}")


def watch_apex(plant, sim, s, rebound):
    """Stop the stepper at the bounce's apex t + w / a (w the rebound speed, a the deceleration away
    from the stop): a step over a whole small bounce would see no sign change of q - value."""
    a_away = s.sign * plant.dynamics(sim.t, sim.y)[0][plant.cm.nq + s.vi]
    if a_away < 0.0:
        sim.stop_at(sim.t + rebound / -a_away)


def start(modes, sim):
    """Sides touched without moving away are hit; SimulationError for a joint that starts beyond a stop."""
    sides, nq = modes.elements.sides, modes.elements.nq
    for s in sides:
        if s.sign * (sim.y[s.qi] - s.value) < -1e-9 * max(1.0, abs(s.value)):
            raise SimulationError(f"joint limit '{s.name}': joint '{s.force.joint}' starts at {sim.y[s.qi]:.6g}, "
                                  f"beyond its {s.side} stop {s.value:g}; start it within its limits")
    for s in sides:
        if s.row not in modes.mode.closed and abs(sim.y[s.qi] - s.value) <= TOUCH * max(1.0, abs(s.value)) \
                and s.sign * sim.y[nq + s.vi] <= 0.0:
            strike(modes, sim, s)
    return False


def change(modes, t, y, dynamics, log):
    """The mode iteration's test (iteration.py): a closed stop must push."""
    lam, mode = dynamics[0], modes.mode
    for s in modes.elements.sides:
        if s.row in mode.closed and s.sign * lam[s.row] <= 0.0:
            mode.closed.discard(s.row)
            log("limit", s.name, f"leaves its {s.side} stop {s.value:g}: its force would pull")
            return True
    return False


def logged(modes, before, why, log):
    """A record of each side closed or opened since the mode ``before`` (its key), ``why``."""
    closed_before, mode = before[0], modes.mode
    for s in modes.elements.sides:
        if (s.row in closed_before) != (s.row in mode.closed):
            log("limit", s.name, f"{'closes on' if s.row in mode.closed else 'leaves'} its {s.side} "
                                 f"stop {s.value:g} {why}")


def write(cm, elements, mode, data):
    """Nothing but the rows (Modes.write): a closed side's target is its value."""
