"""The model file's event actions (SPEC §3), one module per kind (base.py: the contract). ACTION_KINDS is the
registry: Model.add_event (file_action) and submodels (renamed_action) loop over it; a new kind is a module and a
line here."""
from ...errors import ModelError
from .set_input import SetInput
from .set_parameters import SetParameters
from .stop import Stop

ACTION_KINDS = (Stop, SetInput, SetParameters)


def kind_of(spec, what):
    """The action kind of a model file's action spec; ModelError naming the forms otherwise."""
    for kind in ACTION_KINDS:
        if kind.matches(spec):
            return kind
    raise ModelError(f"{what}: action must be {', '.join(kind.form for kind in ACTION_KINDS)} or a callable "
                     f"action(sim, t, state), got {spec!r}")


def file_action(spec, model, what):
    """An event action as a callable action(sim, t, state): a model file's spec checked against the model, or a
    callable (or None) as it is."""
    if spec is None or callable(spec):
        return spec
    return kind_of(spec, what)(spec, model, what)


def renamed_action(spec, names):
    """A model file's action spec with the items it names renamed (a submodel's events); a callable as it is."""
    if spec is None or callable(spec):
        return spec
    return kind_of(spec, "event action").renamed(spec, names)
