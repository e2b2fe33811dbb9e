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
from ...errors import SimulationError
from ...results.result import EventRecord
from . import contacts, frictions, stops
from .complementarity import complementarity
from .elements import SWITCHED_KINDS

# the order of the mode iteration's tests: stops and contacts before the frictions, whose static levels grow with
# the loads the others carry
ITERATION_ORDER = (stops, contacts, frictions)


def start(modes, sim):
    """The mode at the start (an action at t0 on the handle ``sim``), kind by kind (SWITCHED_KINDS: stops touched
    without moving away are hit, a friction at rest is stuck, else it slips; contact points touching and
    approaching strike); the mode iteration follows where something is switched or a contact point is near."""
    near = [kind.start(modes, sim) for kind in SWITCHED_KINDS]
    if modes.mode.switched() or any(near):     # else every switched row is open and stays so
        sim.switch_mode()


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
    """One change towards a consistent mode at (t, y), whose ``dynamics`` are (multipliers lam, accelerations a):
    the first kind in ITERATION_ORDER whose test changes something; False when the mode is consistent."""
    return any(kind.change(modes, t, y, dynamics, log) for kind in ITERATION_ORDER)


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
    for kind in SWITCHED_KINDS:
        kind.logged(modes, first, "by a complementarity solve (the mode iteration cycled)", log)
