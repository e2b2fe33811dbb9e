"""The "stop" action: the run ends at the event."""
from .base import Action


class Stop(Action):
    form = "'stop'"

    @classmethod
    def matches(cls, spec):
        return spec == "stop"

    def __init__(self, spec, model, what):
        pass

    def __call__(self, sim, t, state):
        return "stop"

    @classmethod
    def renamed(cls, spec, names):
        return spec
