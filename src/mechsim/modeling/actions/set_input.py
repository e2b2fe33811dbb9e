"""The {"set_input": {input: value}} action: the inputs held at new values from the event on (a number, an
expression of t)."""
from ...errors import ModelError
from .base import Action


class SetInput(Action):
    key = "set_input"
    form = "{set_input: {input: value}}"

    def __init__(self, spec, model, what):
        self.values = dict(spec[self.key])
        for name in self.values:
            if name not in model.inputs:
                raise ModelError(f"{what}: set_input names unknown input {name!r}; the model's inputs are "
                                 f"{', '.join(model.inputs) or 'none'}")

    def __call__(self, sim, t, state):
        for name, value in self.values.items():
            sim.set_input(name, value)
