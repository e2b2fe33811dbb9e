"""The mode iteration of Wood & Kennedy 2003 §6 (simulation/hybrid/__init__.py): at every switch, a consistent mode
before the integration restarts, since one switch may cause others (a joint locking overloads another). With the
rows of the trial mode and its redundancy analysis (§3.6) in the run's Data, a closed stop that would pull opens; a
closed contact whose normal force would pull (under every split of the load among its points) separates, an open
one at rest that would press in closes; a sticking contact beyond its static cone slides; a stuck friction whose
holding force exceeds F_s slips in the direction of the load (the most overloaded first); a friction slipping from
rest whose acceleration opposes its slip direction sticks. A mode seen twice is a cycle: one complementarity solve
(complementarity.py) decides the mode there, and a cycle through sliding contacts is a Painlevé paradox
(SimulationError). Each function takes the run's Modes (with its Plant) and returns what it changed; the records of
the switches go to a ``log(kind, name, detail)``."""
import numpy as np

from ...dynamics.impacts import RESTING_GAP, TOUCH_SPEED
from ...errors import SimulationError
from ...results.result import EventRecord
from .complementarity import complementarity
from .contacts import contact_rows, resultant
from .joints import TOUCH, static_levels


def start(modes, sim):
    """The mode at the start (an action at t0 on the handle ``sim``): stops touched without moving away are hit, a
    friction at rest is stuck (the mode iteration then unlocks it if the load exceeds its static level), else it
    slips; contact points touching and approaching strike, those at rest close if they would press."""
    start_joints(modes, sim)
    near = start_contacts(modes, sim)
    if modes.mode.switched() or near:     # else every switched row is open and stays so
        sim.switch_mode()


def start_joints(modes, sim):
    """start of the stops and frictions; SimulationError for a joint that starts beyond a stop."""
    elements, mode, nq = modes.elements, modes.mode, modes.elements.nq
    for s in elements.sides:
        if s.sign * (sim.y[s.qi] - s.value) < -1e-9 * max(1.0, abs(s.value)):
            raise SimulationError(f"joint limit '{s.name}': joint '{s.force.joint}' starts at {sim.y[s.qi]:.6g}, "
                                  f"beyond its {s.side} stop {s.value:g}; start it within its limits")
    for s in elements.sides:
        if s.row not in mode.closed and abs(sim.y[s.qi] - s.value) <= TOUCH * max(1.0, abs(s.value)) \
                and s.sign * sim.y[nq + s.vi] <= 0.0:
            modes.joints.hit(modes.plant, sim, s)
    for lk in elements.locks:
        v = sim.y[nq + lk.vi]
        if v != 0.0:
            mode.slip[lk.name] = np.sign(v)
        else:
            mode.lock(lk, sim.y[lk.qi])


def start_contacts(modes, sim):
    """start of the contact points; whether one is near its surface. SimulationError for a point that starts
    inside its surface."""
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
    for c in touching:              # each strikes; a point at rest closes if it would press (one_change)
        modes.contacts.touch(plant, sim, c)
    return near


def consistent(modes, t, y):
    """Whether the current mode is consistent at (t, y) (the mode iteration would change nothing), after something
    outside the modes changed (a jump of a force, an input set by an action)."""
    mode = modes.mode
    if not mode.switched():
        return True
    saved = mode.saved()
    ydot, lam = modes.plant.dynamics(t, y)
    changes = one_change(modes, t, y, (lam, ydot[modes.elements.nq:]), lambda *record: None)
    mode.restore(saved)
    return not changes


def settle(modes, t, y, fresh=False):
    """The mode iteration at (t, y): each trial mode written into the run's Data (Modes.use_mode; ``fresh``: the
    Data holds the first already, made at this y). Returns the state projected onto the final mode's rows and the
    EventRecords of its switches."""
    try:
        return iterate_modes(modes, t, y, fresh)
    finally:
        modes.mode.due.clear()                       # the separate events' marks hold for this settle only


def iterate_modes(modes, t, y, fresh):
    mode, records = modes.mode, []
    log = lambda kind, name, detail: records.append(EventRecord(t, kind, name, detail))     # noqa: E731
    seen, slid = set(), set()                        # trial modes; contacts sliding with friction in them
    first = mode.key()
    while True:
        key = mode.key()
        slid |= {c.name for c in modes.elements.contacts if c.key in mode.sliding and c.contact.kinetic > 0.0}
        if key in seen:
            if slid:
                raise SimulationError(
                    f"contacts {', '.join(sorted(slid))} find "
                    f"no consistent mode at t = {t:.9g}: sliding, the normal force would pull, and open, the "
                    "contact would penetrate (a Painlevé paradox: the friction is too high for this configuration)")
            return settle_by_complementarity(modes, t, y, first)
        seen.add(key)
        if not fresh:
            y = modes.use_mode(t, y)
        fresh = False
        ydot, lam = modes.plant.dynamics(t, y)
        if not one_change(modes, t, y, (lam, ydot[modes.elements.nq:]), log):
            return y, records


def one_change(modes, t, y, dynamics, log):
    """One change towards a consistent mode at (t, y), whose ``dynamics`` are (multipliers lam, accelerations a);
    False when the mode is consistent."""
    lam, _ = dynamics
    elements, mode, contacts, plant = modes.elements, modes.mode, modes.contacts, modes.plant
    for s in elements.sides:                               # a closed stop must push
        if s.row in mode.closed and s.sign * lam[s.row] <= 0.0:
            mode.closed.discard(s.row)
            log("limit", s.name, f"leaves its {s.side} stop {s.value:g}: its force would pull")
            return True
    # at the located root of its separate event a normal force is ~0 on either side: it counts as pulling
    pulling = [c for c in elements.contacts if c.row in mode.closed and (lam[c.row] <= 0.0 or c.row in mode.due)]
    if pulling and not contacts.can_all_push(plant, t, y, lam):       # a closed contact must push
        c = min(pulling, key=lambda c: lam[c.row])
        contacts.separate(plant, t, y, c, "its normal force would pull", log)
        return True
    pressing = [c for c in elements.contacts if c.row not in mode.closed and contacts.pressing(plant, t, y, c)]
    for c in pressing:                                 # open contacts touching at rest must not penetrate
        contacts.touch_at_rest(plant, t, y, c, log)
    if pressing:
        return True
    for points in elements.groups.values():            # a sticking contact must hold within static friction
        normal, friction = resultant(lam, points)
        if any(c.t1 in mode.closed for c in points) and np.hypot(*friction) > points[0].contact.static * normal:
            contacts.slide(plant, t, y, points, log)
            return True
    return friction_change(modes, t, y, dynamics, log)


def friction_change(modes, t, y, dynamics, log):
    """one_change of the frictions: a stuck joint must hold strictly within static friction (its unlock condition
    then starts below zero), a joint slipping from rest must not be pushed back by its load."""
    (lam, a), elements, mode = dynamics, modes.elements, modes.mode
    static = static_levels(modes.plant, elements, y, a)
    overloaded = [(abs(lam[lk.row]) / max(static[lk.name], 1e-300), lk) for lk in elements.locks
                  if lk.row in mode.closed and lam[lk.row] != 0.0 and abs(lam[lk.row]) >= static[lk.name]]
    if overloaded:
        _, lk = max(overloaded, key=lambda item: item[0])
        mode.closed.discard(lk.row)
        mode.slip[lk.name] = -np.sign(lam[lk.row])          # the load's direction: the lock held it back
        log("unlock", lk.name, f"holding force {abs(lam[lk.row]):.6g} exceeds static "
            f"{static[lk.name]:.6g}; slips {'+' if mode.slip[lk.name] > 0 else '-'}")
        return True
    for lk in elements.locks:
        d = mode.slip.get(lk.name)
        if d and y[elements.nq + lk.vi] == 0.0 and d * a[lk.vi] < 0.0:
            mode.lock(lk, y[lk.qi])
            log("lock", lk.name, "stuck: the load is within static friction")
            return True
    return False


def settle_by_complementarity(modes, t, y, first):
    """Where the mode iteration cycles: the mode of one complementarity solve (complementarity.py), its switches
    logged against the mode ``first`` the iteration started from (its key) instead of the cycle's."""
    records = []
    complementarity(modes.plant, modes, t, y)
    y = modes.use_mode(t, y)
    ydot, lam = modes.plant.dynamics(t, y)
    if one_change(modes, t, y, (lam, ydot[modes.elements.nq:]), lambda *record: None):
        raise SimulationError(f"the stops, frictions and contacts find no consistent mode at t = {t:.9g}: the "
                              "mode iteration cycles, and the complementarity solve's mode does not hold either")
    log_changes(modes, first, lambda kind, name, detail: records.append(EventRecord(t, kind, name, detail)))
    return y, records


def log_changes(modes, first, log):
    """A record of each switch from the mode ``first`` (its key) to the current one, made by a complementarity
    solve."""
    mode, (closed_before, slip_before, _) = modes.mode, first
    slip_before = dict(slip_before)
    why = "by a complementarity solve (the mode iteration cycled)"
    for s in modes.elements.sides:
        if (s.row in closed_before) != (s.row in mode.closed):
            log("limit", s.name, f"{'closes on' if s.row in mode.closed else 'leaves'} its {s.side} "
                                 f"stop {s.value:g} {why}")
    for lk in modes.elements.locks:
        stuck = lk.row in mode.closed
        if (lk.row in closed_before) != stuck or slip_before.get(lk.name) != mode.slip.get(lk.name):
            what = "stuck" if stuck else f"slips {'+' if mode.slip[lk.name] > 0 else '-'}"
            log("lock" if stuck else "unlock", lk.name, f"{what} {why}")
    for c in modes.elements.contacts:
        if (c.row in closed_before) != (c.row in mode.closed):
            log("contact" if c.row in mode.closed else "separate", c.name,
                f"{'closes' if c.row in mode.closed else 'opens'} {why}")
        elif c.row in mode.closed and (c.t1 in closed_before) != (c.t1 in mode.closed):
            log("stick" if c.t1 in mode.closed else "slide", c.name,
                f"{'sticks' if c.t1 in mode.closed else 'slides'} {why}")
