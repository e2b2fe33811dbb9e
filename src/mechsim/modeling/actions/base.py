"""What every event action kind of the model file shares (SPEC §3 ``add_event(action=...)``): ``Action``, the
contract a kind module fulfils."""


class Action:
    """An action kind, one module each (modeling/actions/__init__.py lists them): how the model file writes it
    (``form``, and ``matches``: a dict of one ``key``), its check against the model (``__init__``), what it
    does at the event (``__call__(sim, t, state)``, returning "stop" to end the run) and its spec with the
    model's items renamed (``renamed``, for a submodel's events: modeling/submodel.py)."""
    key = None
    form = None

    @classmethod
    def matches(cls, spec):
        return isinstance(spec, dict) and set(spec) == {cls.key} and isinstance(spec[cls.key], dict)

    def __init__(self, spec, model, what):
        raise NotImplementedError

    def __call__(self, sim, t, state):
        raise NotImplementedError

    @classmethod
    def renamed(cls, spec, names):
        """The spec with the items it names called as ``names`` calls them (submodel.Renaming)."""
        return {cls.key: {names.item(name): value for name, value in spec[cls.key].items()}}
