"""The events of the switched elements (simulation/hybrid/__init__.py): per element, the conditions the compiled loop
watches in the current mode (dynamics/system.py signals; a condition off in the mode is SILENT) and the switch each
one's action makes."""
import numpy as np

from ...dynamics.impacts import TOUCH_GAP
from ...dynamics.multipliers import F_PRISMATIC
from ...dynamics.system import CONE, COORDINATE, FRICTION_LOAD, GAP, MULTIPLIER, SILENT, SLIP
from ...modeling.events import Event
from .elements import ContactRows

OFF = [SILENT, 0, 0, 0], [0.0] * 4          # the compiled signal of a condition its mode does not watch


class ModeEvent(Event):
    """An event of a switched element whose compiled signal depends on the mode (``signal()``: (signal_i row,
    signal_f row) or None when it is off) and whose action ``act(sim)`` switches the mode."""
    rated = False       # its switch thresholds sit ulps off the states it switched at: its samples alone decide

    def __init__(self, element, role, direction, signal, act):
        self.element, self.role, self._signal, self._act = element, role, signal, act
        super().__init__(self._never, action=self._action, direction=direction, name=element.name)

    @staticmethod
    def _never(t, state):                          # evaluated compiled only (compiled_signal)
        raise AssertionError

    def compiled_signal(self, cm):
        rows = self._signal()
        return OFF if rows is None else rows

    def impact_row(self, free):
        """Its row of Impacts.table (dynamics/impacts.py): a contact point's hit resolved compiled while ``free``
        (every switched row open, nothing slipping, the Lagrange formulation), else none."""
        if free and self.role == "hit" and isinstance(self.element, ContactRows):
            contact = self.element.contact
            return [contact.restitution, contact.min_bounce_speed, contact.static, 1.0]
        return [0.0] * 4

    def _action(self, sim, t, state):
        self._act(sim)
        sim.switch_mode()


def mode_events(modes):
    """The events of every switched element of ``modes`` (simulation/hybrid/__init__.py Modes)."""
    elements = modes.elements
    return [e for s in elements.sides for e in stop_events(modes, s)] + \
        [e for lk in elements.locks for e in friction_events(modes, lk)] + \
        [e for c in elements.contacts for e in contact_events(modes, c)] + \
        [slide_event(modes, points) for points in elements.groups.values()]


def stop_events(modes, s):
    """A stop side's hit (open) and release (closed: its force falls through zero)."""
    mode, joints = modes.mode, modes.joints
    # hit: q passes the stop by a few ulps, so that a side opened while touching it (q at the value)
    # starts on the open side of the condition rather than on its zero, which never counts
    touch = s.value - s.sign * 4 * np.spacing(max(1.0, abs(s.value)))
    hit = lambda: None if s.row in mode.closed else ([COORDINATE, s.qi, 0, 0], [touch, 0.0, 0.0, 0.0])
    release = lambda: ([MULTIPLIER, s.row, 0, 0], [0.0, s.sign, 0.0, 0.0]) if s.row in mode.closed else None
    return [ModeEvent(s, "hit", -s.sign, hit, lambda sim: joints.hit(modes.plant, sim, s)),
            ModeEvent(s, "release", -1, release, lambda sim: joints.release(sim, s))]


def friction_events(modes, lk):
    """A friction's stick (slipping either way: its velocity reaches zero) and unlock (stuck: its holding force
    reaches the static level either way)."""
    mode, joints, nq = modes.mode, modes.joints, modes.elements.nq

    def stick(d):           # slipping in d, its velocity reaches zero: a crossing against d only
        return lambda: ([COORDINATE, nq + lk.vi, 0, 0], [0.0] * 4) if mode.slip.get(lk.name) == d else None

    def unlock(sign):
        if lk.load is not None:          # sign lambda - (F_s + mu_s r |F_perp|) (dynamics/system.py)
            prismatic = int(modes.elements.friction[lk.load, F_PRISMATIC])
            signal = [FRICTION_LOAD, lk.row, lk.node, prismatic], \
                [0.0, sign, lk.force.static, lk.force.mu_static * lk.force.radius]
        else:
            signal = [MULTIPLIER, lk.row, 0, 0], [lk.force.static, sign, 0.0, 0.0]
        return lambda: signal if lk.row in mode.closed else None
    return [ModeEvent(lk, "stick", -d, stick(d), lambda sim: joints.stick(modes.plant, sim, lk)) for d in (1.0, -1.0)] \
        + [ModeEvent(lk, "unlock", 1, unlock(1.0), lambda sim: joints.unlock(sim, lk, 1.0)),
           ModeEvent(lk, "unlock", 1, unlock(-1.0), lambda sim: joints.unlock(sim, lk, -1.0))]


def contact_events(modes, c):
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
