"""The {"set": {element: {parameter: value}}} action: new parameters of force elements, contacts, constraints,
bodies or joints from the event on (sim.set: a contact's friction, a force element's stiffness ...)."""
from .base import Action


class SetParameters(Action):
    key = "set"
    form = "{set: {element: {parameter: value}}}"

    @classmethod
    def matches(cls, spec):
        return super().matches(spec) and all(isinstance(p, dict) for p in spec[cls.key].values())

    def __init__(self, spec, model, what):
        self.changes = {name: dict(parameters) for name, parameters in spec[self.key].items()}
        for name in self.changes:
            model.item(name, f"{what}: set")

    def __call__(self, sim, t, state):
        for name, parameters in self.changes.items():
            sim.set(name, **parameters)
