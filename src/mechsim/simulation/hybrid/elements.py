"""The switched elements of a compiled model by kind (switched.py: what a kind's module holds). SWITCHED_KINDS is the
registry: Elements takes each kind's rows through it and Modes its events, and the mode's start goes through it in
its order; a new switched kind is a module and a line here."""
from . import contacts, frictions, stops

SWITCHED_KINDS = (stops, frictions, contacts)


class Elements:
    """The switched elements of a compiled model: ``sides`` of rigid stops, ``locks`` of exact joint frictions,
    ``contacts``, the points of rigid contacts (each kind's ELEMENTS), and ``groups``, each contact's points by its
    name; ``nq``, and ``friction``, the load frictions' table (CompiledModel.friction_table)."""

    def __init__(self, cm):
        for kind in SWITCHED_KINDS:
            setattr(self, kind.ELEMENTS, kind.rows(cm))
        self.groups = {}
        for c in self.contacts:
            self.groups.setdefault(c.name, []).append(c)
        self.nq, self.friction = cm.nq, cm.friction_table()

    def every(self):
        """Every switched element, kind by kind."""
        return [e for kind in SWITCHED_KINDS for e in getattr(self, kind.ELEMENTS)]


def mode_events(modes):
    """The events of every switched element of ``modes`` (simulation/hybrid/__init__.py Modes), kind by kind."""
    return [e for kind in SWITCHED_KINDS for e in kind.events(modes, modes.elements)]
