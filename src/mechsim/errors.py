"""Exception hierarchy: every user mistake raises one of these with a message naming the item."""


class MechsimError(Exception):
    """Base class of all mechsim errors."""


class ModelError(MechsimError, ValueError):
    """A model definition, topology or assembly problem (names the body/joint/force at fault)."""


class SimulationError(MechsimError, RuntimeError):
    """An integration failure; ``partial`` holds the Result computed up to the failure."""

    def __init__(self, message, partial=None):
        super().__init__(message)
        self.partial = partial
