"""Names and signal names (SPEC C15).

Bodies, joints and elements (forces, constraints, contacts) each have their own name space, as URDF, SDF
and MJCF have them, and a body's frames one of their own: a body and a joint may share a name. A name is
taken as a file writes it (dots, spaces, slashes, brackets); only an empty name and control characters
(line breaks, tabs), which no file format keeps, are refused.

A signal is named ``<item>.<quantity>``, and an entry of a vector signal ``<item>.<quantity>[<i>]``: the
index is the trailing ``[digits]``, the quantity the text after the last dot (no quantity has a dot), the
item everything before it. The quantity decides whether a joint, body or element is meant (``.q`` is a
joint's, ``.position`` a body's). Where items of two sections share a name and a quantity (a joint and a
force element both named ``x`` have ``x.force``), the section qualifies it: ``joints.x.force`` and
``forces.x.force``, the names ``m.signals()`` then lists. The qualified form is accepted for every signal.
"""
import re
from collections import namedtuple

from ..errors import MechsimError, ModelError

QUALIFIERS = ("joints", "bodies", "forces", "constraints", "contacts")   # the sections a signal can belong to
Signal = namedtuple("Signal", "section item quantity")
_INDEX = re.compile(r"^(.*)\[(\d+)\]$", re.DOTALL)
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


def check_name(name, what):
    """``name`` if it is a valid name of ``what`` (e.g. "joint"), else ModelError saying why."""
    if not isinstance(name, str) or not name:
        raise ModelError(f"{what} name {name!r} is invalid: give a non-empty text")
    if _CONTROL.search(name):
        raise ModelError(f"{what} name {name!r} is invalid: it holds a control character (a line break or tab)")
    return name


def split_index(name):
    """(base, index) of a signal name: "b.position[1]" -> ("b.position", 1); (name, None) without an index."""
    match = _INDEX.match(name)
    return (match.group(1), int(match.group(2))) if match else (name, None)


def find_item(tables, name, what):
    """(section, name) of the item ``name`` in ``tables`` ({section: names}), or of "<section>.<name>" where items of
    two sections share the name; ModelError naming the choices otherwise."""
    found = [section for section, table in tables.items() if name in table]
    section, _, rest = str(name).partition(".")
    if not found and section in tables and rest in tables[section]:
        return section, rest
    if len(found) > 1:
        raise ModelError(f"{what}: {name!r} names items of {len(found)} kinds; say which: "
                         f"{', '.join(f'{s}.{name}' for s in found)}")
    if not found:
        raise ModelError(f"{what}: nothing named {name!r} among the {', '.join(tables)}")
    return found[0], name


class SignalNames:
    """The signals of a compiled model: the names it lists, in order, and the (section, item, quantity) each
    name means, the qualified forms included."""

    def __init__(self, signals):
        """``signals``: (section, item, quantity) triples in the order to list them."""
        signals = list(signals)
        claims = {}
        for signal in signals:
            claims.setdefault(f"{signal.item}.{signal.quantity}", []).append(signal)
        self.names = [f"{s.item}.{s.quantity}" if len(claims[f"{s.item}.{s.quantity}"]) == 1 else
                      f"{s.section}.{s.item}.{s.quantity}" for s in signals]
        self._meaning = {f"{s.section}.{s.item}.{s.quantity}": s for s in signals}
        self._meaning.update(zip(self.names, signals))       # a listed name wins over a qualified reading

    def __contains__(self, name):
        return name in self._meaning

    def get(self, name):
        """The Signal ``name`` (without an index) means, or None."""
        return self._meaning.get(name)

    def qualified(self, name):
        """The qualified names of an unqualified ``name`` that items of two kinds share (else [])."""
        return [f"{section}.{name}" for section in QUALIFIERS if f"{section}.{name}" in self._meaning] \
            if name not in self._meaning else []

    def ambiguity(self, name):
        """MechsimError saying which qualified names ``name`` may mean, or None where it is not ambiguous."""
        shared = self.qualified(name)
        return MechsimError(f"signal {name!r} is ambiguous: items of two kinds share that name; give one of "
                            f"{', '.join(map(repr, shared))}") if shared else None

    def __getitem__(self, name):
        signal = self._meaning.get(name)
        if signal is not None:
            return signal
        raise self.ambiguity(name) or MechsimError(f"unknown signal {name!r}; m.signals() lists the available names")
