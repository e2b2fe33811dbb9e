"""User events (SPEC §3, C5): a condition that crosses zero, located on the projected solution,
and what happens then.

``Event(condition, action=None, direction=0, terminal=False, name=None, value=0.0)``: condition is
a callable ``g(t, state)`` (an ms.State: state.q, state.v, state["j1.q"], or state[i] for entry i of
[q; v] as solve_ivp's y) or a signal name crossing ``value``. Plain functions with ``terminal`` and
``direction`` attributes are taken as solve_ivp takes them (terminal may be a count). Signals of
joint coordinates and of body positions, velocities and angular velocities are evaluated inside
the compiled loop; any other signal through a one-sample Result. A compiled signal whose rate is one
too (rate_signal) is also tested at its extremum between two samples, where that rate changes sign.
"""
from collections import namedtuple

import numpy as np

from ..dynamics.data import SIGNAL_F_COLS, SIGNAL_I_COLS
from ..dynamics.layout import PTYPE, QI, VI
from ..dynamics.system import BODY_OMEGA, BODY_POSITION, BODY_VELOCITY, COORDINATE
from ..errors import MechsimError, ModelError
from ..modeling.joints import PRIM_NQ, PRIM_S

EventRecord = namedtuple("EventRecord", "time kind name detail")
EventRecord.__doc__ = """One event of a run: time, kind ("user", "lock", "unlock", "impact", "contact",
"separate", "slide", "stick", "limit", "repartition"), the name of the event or element, and a detail."""

BODY_SIGNALS = {"position": BODY_POSITION, "velocity": BODY_VELOCITY, "omega": BODY_OMEGA}


class Event:
    """A crossing of ``value`` by ``condition`` (a callable g(t, state), or a signal name),
    with an optional ``action(sim, t, state)``; ``direction`` > 0 fires on rising crossings only, < 0
    on falling ones; ``terminal`` True (or a count n) ends the run at the (n-th) crossing."""
    kind = "user"             # the EventRecord kind; the hybrid elements' own events log themselves
    rated = True              # its compiled signal's rate, where known, finds a level reached and left between samples

    def __init__(self, condition, action=None, direction=0, terminal=False, name=None, value=0.0):
        if not (callable(condition) or isinstance(condition, str)):
            raise ModelError(f"Event: condition must be a callable g(t, state) or a signal name, got {condition!r}")
        if action is not None and not callable(action):
            raise ModelError(f"Event: action must be a callable action(sim, t, state), got {action!r}")
        self.condition, self.action = condition, action
        self.direction = float(direction)
        self.terminal = terminal_count(terminal, name or condition)
        self.value = float(value)
        self.name = str(name or (condition if isinstance(condition, str) else
                                 getattr(condition, "__name__", "event")))

    @property
    def signal(self):
        """The signal name the condition watches, or None for a callable."""
        return self.condition if isinstance(self.condition, str) else None

    def compiled_signal(self, cm):
        """(signal_i row, signal_f row) of the condition when the compiled loop can watch it, else None."""
        compiled = compiled_signal(cm, self.signal) if self.signal else None
        if compiled is None and self.signal:
            base = self.signal.partition("[")[0]
            if self.signal not in cm.signal_names() and base not in cm.signal_names():
                raise MechsimError(f"event {self.name!r}: unknown signal {self.signal!r}; m.signals() lists them")
        return None if compiled is None else (compiled[0], [self.value, *compiled[1]])

    def __repr__(self):
        what = f"{self.signal!r} = {self.value:g}" if self.signal else self.name
        return f"Event({what}, direction={self.direction:g}, terminal={self.terminal})"


def file_action(action, model, what):
    """An event action as a callable: the model file's "stop", {"set_input": {input: value}} or {"set":
    {element: {parameter: value}}} (sim.set: a contact's friction, a force element's stiffness ...), or a
    callable action(sim, t, state) as it is."""
    if action is None or callable(action):
        return action
    if action == "stop":
        return lambda sim, t, state: "stop"
    if isinstance(action, dict) and set(action) == {"set_input"} and isinstance(action["set_input"], dict):
        values = dict(action["set_input"])
        for name in values:
            if name not in model.inputs:
                raise ModelError(f"{what}: set_input names unknown input {name!r}; the model's inputs are "
                                   f"{', '.join(model.inputs) or 'none'}")

        def set_inputs(sim, t, state):
            for name, value in values.items():
                sim.set_input(name, value)
        return set_inputs
    if isinstance(action, dict) and set(action) == {"set"} and isinstance(action["set"], dict) and \
            all(isinstance(p, dict) for p in action["set"].values()):
        changes = {name: dict(parameters) for name, parameters in action["set"].items()}
        elements = {**model.forces, **model.contacts, **model.constraints, **model.bodies, **model.joints}
        for name in changes:
            if name not in elements:
                raise ModelError(f"{what}: set names unknown element {name!r}; it sets force elements, contacts, "
                                 "constraints, bodies and joints")

        def set_parameters(sim, t, state):
            for name, parameters in changes.items():
                sim.set(name, **parameters)
        return set_parameters
    raise ModelError(f"{what}: action must be 'stop', {{set_input: {{input: value}}}}, {{set: {{element: "
                     f"{{parameter: value}}}}}} or a callable action(sim, t, state), got {action!r}")


def terminal_count(terminal, what):
    """solve_ivp's terminal: False/0 (never), True (1) or a positive count; as an int (0: never)."""
    if isinstance(terminal, (bool, np.bool_)):
        return int(terminal)
    if isinstance(terminal, (int, np.integer)) and terminal >= 0:
        return int(terminal)
    raise ModelError(f"event {what!r}: terminal must be True, False or a positive count, got {terminal!r}")


def as_events(items, model_events=()):
    """The events of a run: the model's (m.add_event), then simulate(events=...)'s: Events, or plain
    functions with solve_ivp's attributes. Names must differ."""
    if items is None:
        items = []
    if callable(items) or isinstance(items, Event):
        items = [items]
    events = list(model_events)
    for item in items:
        if isinstance(item, Event):
            events.append(item)
        elif callable(item):
            events.append(Event(item, direction=getattr(item, "direction", 0),
                                terminal=getattr(item, "terminal", False), name=getattr(item, "__name__", None)))
        else:
            raise MechsimError(f"simulate(): events must be ms.Event objects or functions g(t, state), got {item!r}")
    names = [e.name for e in events]
    for name in names:
        if names.count(name) > 1:
            raise MechsimError(f"simulate(): two events are named {name!r}; give them distinct name= values")
    return events


def compiled_signal(cm, name):
    """(signal_i row, signal_f row without the value) of a signal the compiled loop can watch, or
    None. Vector signals need a component: "<body>.position[1]"."""
    base, index = name, None
    if name.endswith("]") and "[" in name:
        base, _, rest = name.partition("[")
        try:
            index = int(rest[:-1])
        except ValueError:
            return None
    owner, _, kind = base.rpartition(".")
    if name in cm.q_names or name in cm.v_names:
        y_index = cm.q_names.index(name) if name in cm.q_names else cm.nq + cm.v_names.index(name)
        return [COORDINATE, y_index, 0, 0], np.zeros(SIGNAL_F_COLS - 1)
    if owner in cm.joint_q and kind in ("q", "v") and index is None:
        block = cm.joint_q[owner] if kind == "q" else cm.joint_v[owner]
        if block.stop - block.start != 1:
            raise MechsimError(f"event signal {name!r} has {block.stop - block.start} entries: name one, "
                               f"e.g. '{base}[0]'")
        return [COORDINATE, block.start + (0 if kind == "q" else cm.nq), 0, 0], np.zeros(SIGNAL_F_COLS - 1)
    if owner in cm.body_names and kind in BODY_SIGNALS:
        if index is None or not 0 <= index < 3:
            raise MechsimError(f"event signal {name!r} is a vector: name a component, e.g. '{base}[1]'")
        node, point = cm.body_point_in_node(owner, (0.0, 0.0, 0.0))
        if node < 0:
            return None
        return [BODY_SIGNALS[kind], node, index, 0], point
    return None


def rate_signal(cm, row_i, row_f):
    """(signal_i row, signal_f row) of a compiled signal's time derivative where that is a compiled signal
    too, else None: a joint coordinate's velocity where qdot = v (every primitive but a quaternion: dynamics/
    kernels.py kinematic_map), a body position's velocity at the same point. The value crossed drops out:
    (x - value)' = x'."""
    kind, index, component = row_i[:3]
    if kind == COORDINATE and index < cm.nq:
        for ptype, q_start, v_start in cm.node_i[:, [PTYPE, QI, VI]]:
            if ptype != PRIM_S and q_start <= index < q_start + PRIM_NQ[ptype]:
                return [COORDINATE, cm.nq + v_start + index - q_start, 0, 0], [0.0] * SIGNAL_F_COLS
    if kind == BODY_POSITION:
        return [BODY_VELOCITY, index, component, 0], [0.0, *row_f[1:]]
    return None


def compile_signals(cm, events):
    """signal_i, signal_f (dynamics/system.py) of the events whose signal runs compiled, then of the
    rates of those whose signal has one (rate_signal, for ``rated`` events); the indices of those events
    in ``events``; and per such event, the row of its rate (-1: none)."""
    rows_i, rows_f, which = [], [], []
    for k, event in enumerate(events):
        compiled = event.compiled_signal(cm)
        if compiled is not None:
            rows_i.append(compiled[0])
            rows_f.append(compiled[1])
            which.append(k)
    rate_i, rate_f, rates = [], [], []
    for k, row_i, row_f in zip(which, rows_i, rows_f):
        rate = rate_signal(cm, row_i, row_f) if events[k].rated else None
        rates.append(-1 if rate is None else len(rows_i) + len(rate_i))
        if rate is not None:
            rate_i.append(rate[0])
            rate_f.append(rate[1])
    return (np.array(rows_i + rate_i, dtype=np.int64).reshape(-1, SIGNAL_I_COLS),
            np.array(rows_f + rate_f, dtype=float).reshape(-1, SIGNAL_F_COLS), which, np.array(rates, dtype=np.int64))
