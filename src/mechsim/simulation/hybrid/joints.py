"""The switches of rigid joint stops and exact joint frictions (SPEC §3 ``joint_limit``, ``joint_friction``;
simulation/hybrid/__init__.py): a stop side hit (Newton's impact law over every held row, simulation/hybrid/
impulses.py) or released, a slipping friction coming to rest, a stuck one unlocking. Each is an event action: it
takes the run's Plant (simulation/plant.py) and the action's handle ``sim`` (t, y, set_state, stop_at, log)."""
import numpy as np

from ...dynamics.multipliers import friction_loads

TOUCH = 1e-12          # |q - value| within this (relative to max(1, |value|)) touches a stop


class JointSwitches:
    """The switches of the stops and frictions in ``mode`` (mode.py); impacts by ``laws`` (impulses.py), passed on
    through the resting contacts by ``contacts`` (contacts.py)."""

    def __init__(self, mode, laws, contacts):
        self.mode, self.laws, self.contacts = mode, laws, contacts

    def hit(self, plant, sim, s):
        """Newton's impact at a stop side; it closes when the rebound is slower than min_bounce_speed."""
        nq, force = plant.cm.nq, s.force
        q, v = sim.y[:nq].copy(), sim.y[nq:]
        q[s.qi] = s.value                                   # located a few ulps past it: on it
        approach = -s.sign * v[s.vi]                        # > 0 towards the stop
        rebound = force.restitution * approach
        closes = rebound < force.min_bounce_speed
        restitution = 0.0 if closes else force.restitution
        resting = self.contacts.resting(self.contacts.rates(plant, sim.t, sim.y))
        sim.set_state(q=q, v=self.laws.impact(plant, sim.t, q, v, [s.row], [-restitution * v[s.vi]], resting)[0])
        if closes:
            self.mode.closed.add(s.row)
        else:
            watch_apex(plant, sim, s, rebound)
        sim.log("limit", s.name, f"{s.side} stop {s.value:g} reached at {approach:.6g}; " +
                ("closed" if closes else f"rebounds at {rebound:.6g} (restitution {force.restitution:g})"))
        self.contacts.propagate(plant, sim, resting)

    def release(self, sim, s):
        self.mode.closed.discard(s.row)
        sim.log("limit", s.name, f"leaves its {s.side} stop {s.value:g}")

    def stick(self, plant, sim, lk):
        """A slipping joint comes to rest: v = 0 there, stuck; the mode iteration decides what holds."""
        v = sim.y[plant.cm.nq:].copy()
        v[lk.vi] = 0.0
        sim.set_state(v=v)
        self.mode.lock(lk, sim.y[lk.qi])
        sim.log("lock", lk.name, "comes to rest")

    def unlock(self, sim, lk, sign):
        """The holding force reached sign F_s: the joint slips the way the load pushes, -sign."""
        self.mode.closed.discard(lk.row)
        self.mode.slip[lk.name] = -sign
        level = f"{lk.force.static:g}" if lk.load is None else "mu_s r |F_perp|" + \
            (f" + {lk.force.static:g}" if lk.force.static else "")
        sim.log("unlock", lk.name, f"holding force reached static {level}; slips {'+' if sign < 0 else '-'}")


def watch_apex(plant, sim, s, rebound):
    """Stop the stepper at the bounce's apex t + w / a (w the rebound speed, a the deceleration away
    from the stop): a step over a whole small bounce would see no sign change of q - value."""
    a_away = s.sign * plant.dynamics(sim.t, sim.y)[0][plant.cm.nq + s.vi]
    if a_away < 0.0:
        sim.stop_at(sim.t + rebound / -a_away)


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
