"""Exact joint frictions as switched elements (SPEC §3 ``joint_friction`` with model="exact"; simulation/hybrid/
__init__.py): a friction slipping in direction d is the kinetic force -d F_k; a stuck one is the lock row
q - q_stuck = 0. A slipping joint sticks when its velocity reaches zero; a stuck one unlocks when its holding force
reaches the static level F_s (+ mu_s r |F_perp| where it grows with the joint's load, dynamics/multipliers.py). A
switched kind's module (elements.py SWITCHED_KINDS): ``rows``, ``events``, ``start``, ``change`` and ``logged``."""
import numpy as np

from ...dynamics.multipliers import F_PRISMATIC, F_SIGN, friction_loads
from ...dynamics.system import COORDINATE, FRICTION_LOAD, MULTIPLIER
from .switched import JointRow, ModeEvent


class Lock(JointRow):
    """The lock row of a joint friction; ``load`` its row in ConstraintWorkspace.friction when its levels
    grow with the joint's load, else None."""

    def __init__(self, cm, force):
        super().__init__(cm, force, ("lock", force.name, "lock"))
        self.node = cm.joint_nodes[force.joint][force.primitive]
        self.load = cm.load_frictions.index(force) if force.loaded else None


ELEMENTS = "locks"


def rows(cm):
    """The locks of the exact joint frictions of compiled model cm."""
    return [Lock(cm, f) for f in cm.model.forces.values() if f.kind == "joint_friction" and f.exact]


def events(modes, elements):
    return [e for lk in elements.locks for e in lock_events(modes, lk)]


def lock_events(modes, lk):
    """A friction's stick (slipping either way: its velocity reaches zero) and unlock (stuck: its holding force
    reaches the static level either way)."""
    mode, nq = modes.mode, modes.elements.nq

    def stick_signal(d):      # slipping in d, its velocity reaches zero: a crossing against d only
        return lambda: ([COORDINATE, nq + lk.vi, 0, 0], [0.0] * 4) if mode.slip.get(lk.name) == d else None

    def unlock_signal(sign):
        if lk.load is not None:          # sign lambda - (F_s + mu_s r |F_perp|) (dynamics/system.py)
            prismatic = int(modes.elements.friction[lk.load, F_PRISMATIC])
            signal = [FRICTION_LOAD, lk.row, lk.node, prismatic], \
                [0.0, sign, lk.force.static, lk.force.mu_static * lk.force.radius]
        else:
            signal = [MULTIPLIER, lk.row, 0, 0], [lk.force.static, sign, 0.0, 0.0]
        return lambda: signal if lk.row in mode.closed else None
    return [ModeEvent(lk, "stick", -d, stick_signal(d), lambda sim: stick(modes, sim, lk)) for d in (1.0, -1.0)] \
        + [ModeEvent(lk, "unlock", 1, unlock_signal(1.0), lambda sim: unlock(modes, sim, lk, 1.0)),
           ModeEvent(lk, "unlock", 1, unlock_signal(-1.0), lambda sim: unlock(modes, sim, lk, -1.0))]


def stick(modes, sim, lk):
    """A slipping joint comes to rest: v = 0 there, stuck; the mode iteration decides what holds."""
    v = sim.y[modes.elements.nq:].copy()
    v[lk.vi] = 0.0
    sim.set_state(v=v)
    modes.mode.lock(lk, sim.y[lk.qi])
    sim.log("lock", lk.name, "comes to rest")


def unlock(modes, sim, lk, sign):
    """The holding force reached sign F_s: the joint slips the way the load pushes, -sign."""
    modes.mode.closed.discard(lk.row)
    modes.mode.slip[lk.name] = -sign
    level = f"{lk.force.static:g}" if lk.load is None else "mu_s r |F_perp|" + \
        (f" + {lk.force.static:g}" if lk.force.static else "")
    sim.log("unlock", lk.name, f"holding force reached static {level}; slips {'+' if sign < 0 else '-'}")


def static_levels(plant, elements, y, a):
    """{friction name: its static level} at (y, accelerations a) after plant.dynamics there: F_s, plus
    mu_s r |F_perp| with the joint's load where it grows with it (dynamics/multipliers.py)."""
    levels = {lk.name: lk.force.static for lk in elements.locks}
    if elements.friction.shape[0]:
        data, nq = plant.data, elements.nq
        loads = np.empty(elements.friction.shape[0])
        friction_loads(plant.cm.arrays, data.arrays, data.cw, y[:nq], y[nq:], np.ascontiguousarray(a), loads)
        for lk in elements.locks:
            if lk.load is not None:
                levels[lk.name] += lk.force.mu_static * lk.force.radius * loads[lk.load]
    return levels


def start(modes, sim):
    """A friction at rest is stuck (the mode iteration then unlocks it if the load exceeds its static level), else
    it slips."""
    for lk in modes.elements.locks:
        v = sim.y[modes.elements.nq + lk.vi]
        if v != 0.0:
            modes.mode.slip[lk.name] = np.sign(v)
        else:
            modes.mode.lock(lk, sim.y[lk.qi])
    return False


def change(modes, t, y, dynamics, log):
    """The mode iteration's test (iteration.py): a stuck joint must hold strictly within static friction (its unlock
    condition then starts below zero), a joint slipping from rest must not be pushed back by its load."""
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


def logged(modes, before, why, log):
    """A record of each friction stuck or set slipping otherwise since the mode ``before`` (its key), ``why``."""
    (closed_before, slip_before, _), mode = before, modes.mode
    slip_before = dict(slip_before)
    for lk in modes.elements.locks:
        stuck = lk.row in mode.closed
        if (lk.row in closed_before) != stuck or slip_before.get(lk.name) != mode.slip.get(lk.name):
            what = "stuck" if stuck else f"slips {'+' if mode.slip[lk.name] > 0 else '-'}"
            log("lock" if stuck else "unlock", lk.name, f"{what} {why}")


def write(cm, elements, mode, data):
    """Each lock's target (where it stuck; the model's while open) and each slipping friction's kinetic force into a
    run's Data: its constant part as a generalized force, the load's part as its sign (solved with qdd)."""
    data.arrays.tau[:] = 0.0
    for lk in elements.locks:
        slipping = lk.row not in mode.closed and mode.slip.get(lk.name)
        if lk.row in mode.closed:
            data.arrays.con_t[lk.row] = (mode.stuck_at[lk.row], 0.0, 0.0)
        else:
            data.arrays.con_t[lk.row] = cm.rows.constant_targets[lk.row]
        if slipping:
            data.arrays.tau[lk.vi] = -mode.slip[lk.name] * lk.force.kinetic
        if lk.load is not None:
            data.cw.friction[lk.load, F_SIGN] = mode.slip[lk.name] if slipping else 0.0
