"""Events as data (SPEC §3, C5): a condition that crosses a value, and what happens then.

``Event(condition, action=None, direction=0, terminal=False, name=None, value=0.0)``: condition is
a callable ``g(t, state)`` (an ms.State: state.q, state.v, state["j1.q"], or state[i] for entry i of
[q; v] as solve_ivp's y) or a signal name crossing ``value``. Plain functions with ``terminal`` and
``direction`` attributes are taken as solve_ivp takes them (terminal may be a count). A run watches
them (simulation/events.py compiles the signals it can watch inside the compiled loop).
"""
import numpy as np

from ..errors import MechsimError, ModelError


class Event:
    """A crossing of ``value`` by ``condition`` (a callable g(t, state), or a signal name),
    with an optional ``action(sim, t, state)``; ``direction`` > 0 fires on rising crossings only, < 0
    on falling ones; ``terminal`` True (or a count n) ends the run at the (n-th) crossing."""
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

    def __repr__(self):
        what = f"{self.signal!r} = {self.value:g}" if self.signal else self.name
        return f"Event({what}, direction={self.direction:g}, terminal={self.terminal})"


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
