"""The events of a run (modeling/events.py) as the compiled loop watches them.

Signals of joint coordinates and of body positions, velocities and angular velocities are evaluated inside
the compiled loop; any other signal, and a callable condition, through a one-sample Result. A compiled signal
whose rate is one too (rate_signal) is also tested at its extremum between two samples, where that rate changes
sign.
"""
import numpy as np

from ..dynamics.data import SIGNAL_F_COLS, SIGNAL_I_COLS
from ..dynamics.layout import PTYPE, QI, VI
from ..dynamics.system import BODY_OMEGA, BODY_POSITION, BODY_VELOCITY, COORDINATE
from ..errors import MechsimError
from ..modeling.names import split_index
from ..modeling.primitives import PRIMITIVES

BODY_SIGNALS = {"position": BODY_POSITION, "velocity": BODY_VELOCITY, "omega": BODY_OMEGA}


def compiled_signal(cm, name):
    """(signal_i row, signal_f row without the value) of a signal the compiled loop can watch, or
    None. Vector signals need a component: "<body>.position[1]"."""
    base, index = split_index(name)
    section, owner, kind = cm.signals.get(base) or (None, None, None)
    if name in cm.q_names or name in cm.v_names:
        y_index = cm.q_names.index(name) if name in cm.q_names else cm.nq + cm.v_names.index(name)
        return [COORDINATE, y_index, 0, 0], np.zeros(SIGNAL_F_COLS - 1)
    if section == "joints" and owner in cm.joint_q and kind in ("q", "v") and index is None:
        block = cm.joint_q[owner] if kind == "q" else cm.joint_v[owner]
        if block.stop - block.start != 1:
            raise MechsimError(f"event signal {name!r} has {block.stop - block.start} entries: name one, "
                               f"e.g. '{base}[0]'")
        return [COORDINATE, block.start + (0 if kind == "q" else cm.nq), 0, 0], np.zeros(SIGNAL_F_COLS - 1)
    if section == "bodies" and kind in BODY_SIGNALS:
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
            if not PRIMITIVES[ptype].quaternion and q_start <= index < q_start + PRIMITIVES[ptype].nq:
                return [COORDINATE, cm.nq + v_start + index - q_start, 0, 0], [0.0] * SIGNAL_F_COLS
    if kind == BODY_POSITION:
        return [BODY_VELOCITY, index, component, 0], [0.0, *row_f[1:]]
    return None


def condition_signal(cm, event):
    """(signal_i row, signal_f row) of ``event``'s condition when the compiled loop can watch it, else None. An
    event of the modes has its own, which depends on the mode (simulation/hybrid/switched.py ModeEvent.compiled_signal);
    a user event's is its signal's, crossing its value."""
    if hasattr(event, "compiled_signal"):
        return event.compiled_signal(cm)
    if event.signal is None:
        return None
    compiled = compiled_signal(cm, event.signal)
    if compiled is None and split_index(event.signal)[0] not in cm.signals:
        raise MechsimError(f"event {event.name!r}: unknown signal {event.signal!r}; m.signals() lists them")
    return None if compiled is None else (compiled[0], [event.value, *compiled[1]])


def compile_signals(cm, events):
    """signal_i, signal_f (dynamics/system.py) of the events whose signal runs compiled, then of the
    rates of those whose signal has one (rate_signal, for ``rated`` events); the indices of those events
    in ``events``; and per such event, the row of its rate (-1: none)."""
    rows_i, rows_f, which = [], [], []
    for k, event in enumerate(events):
        compiled = condition_signal(cm, event)
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
