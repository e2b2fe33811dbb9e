"""Submodels (SPEC §3 C12 ``m.add_submodel``): another model's bodies, joints, constraints, force
elements, contacts, drivers, inputs and events copied into a model under ``<prefix>/<name>``.

The copy replays the other model's recorded add_* arguments (``model.specs``) through the host's
add_* methods, so that every item is checked as if written by hand and the host writes out flat
(``to_yaml``): a model assembled from submodels and the same model written flat are one model. The
arguments that name other items are renamed with them: the bodies and joints an element connects
(each element class lists them as ``_structural``), frames the submodel named on the ground, the
inputs a force reads and the signals and inputs of its events. The ground is shared; the host's
gravity and simulation defaults apply.
"""
from ..errors import ModelError
from .actions import renamed_action
from .names import QUALIFIERS, split_index

INPUT_ARGUMENTS = ("value", "force", "torque")     # force arguments that may name an input (forces.Source)
JOINT_ARGUMENTS = ("joint", "joints", "x", "y")    # structural arguments that name joints; the others name bodies


def add_submodel(host, prefix, other, parameters=None):
    """Copy ``other`` (with ``parameters`` set, modeling/parameters.py) into ``host`` under ``prefix``;
    all or nothing: a clash or a refused item raises ModelError and leaves ``host`` as it was."""
    from .model import Model
    if not isinstance(prefix, str) or not prefix or any(c in prefix for c in ".[] \t\n"):
        raise ModelError(f"submodel prefix {prefix!r} is invalid: use a non-empty name without '.', '[', ']' or spaces")
    if not isinstance(other, Model):
        raise ModelError(f"submodel '{prefix}': expected an ms.Model, got {type(other).__name__}")
    sub = other.with_parameters(parameters) if parameters else other
    try:
        _copy(host.copy(), prefix, sub)        # a trial first: the host changes only if everything fits
    except ModelError as exc:
        raise ModelError(f"submodel '{prefix}' ({sub.name}): {exc}") from None
    _copy(host, prefix, sub)


def _copy(host, prefix, sub):
    names = Renaming(prefix, sub)
    specs = sub.specs
    for name, default in sub.inputs.items():
        host.add_input(names(name), default)
    for name, spec in specs["bodies"].items():
        host.add_body(names(name), **spec)
    for spec in specs.get("frames", []):
        on_ground = spec["body"] == "ground"
        host.add_frame("ground" if on_ground else names(spec["body"]), names(spec["name"]) if on_ground else spec["name"],
                       spec["pose"])
    for section, add in (("joints", host.add_joint), ("constraints", host.add_constraint),
                         ("forces", host.add_force), ("contacts", host.add_contact)):
        for name, spec in specs[section].items():
            add(names(name), **names.arguments(getattr(sub, section)[name], spec))
    for name, spec in specs["drivers"].items():
        spec = names.arguments(sub.drivers[name], spec)
        if "name" in spec:
            spec["name"] = names(spec["name"])
        host.add_driver(**spec)
    for name, event in sub.events.items():
        spec = dict(event.spec)
        if isinstance(spec["signal"], str):
            spec["signal"] = names.signal(spec["signal"])
        spec["action"] = renamed_action(spec.get("action"), names)
        host.add_event(name=names(name), **spec)


class Renaming:
    """Names of a submodel's items as they are called in the host: ``<prefix>/<name>``; the ground stays."""

    def __init__(self, prefix, sub):
        self.prefix, self.sub = prefix, sub
        self.items = {*sub.joints, *sub.forces, *sub.constraints, *sub.contacts, *sub.drivers, *sub.inputs,
                      *(set(sub.bodies) - {"ground"})}
        self.ground_frames = {s["name"] for s in sub.specs.get("frames", []) if s["body"] == "ground"}

    def __call__(self, name):
        return f"{self.prefix}/{name}"

    def arguments(self, element, spec):
        """An add_* argument dict with the items it names renamed."""
        spec = dict(spec)
        for key in element._structural:
            space = self.sub.joints if key in JOINT_ARGUMENTS else set(self.sub.bodies) - {"ground"}
            renamed = lambda n: self(n) if isinstance(n, str) and n in space else n
            if isinstance(spec.get(key), str):
                spec[key] = renamed(spec[key])
            elif isinstance(spec.get(key), (list, tuple)):               # a gear's joints
                spec[key] = [renamed(n) for n in spec[key]]
            elif isinstance(spec.get(key), dict):                        # a tendon's {joint: coefficient}
                spec[key] = {renamed(n): c for n, c in spec[key].items()}
        for side, frame in (("parent", "parent_frame"), ("child", "child_frame")):
            if element._section == "joints" and spec.get(side) == "ground" and spec.get(frame) in self.ground_frames:
                spec[frame] = self(spec[frame])
        if element._section == "forces":
            for key in INPUT_ARGUMENTS:
                if key in spec:
                    spec[key] = self._inputs(spec[key])
        return spec

    def _inputs(self, value):
        if isinstance(value, str):
            return self(value) if value in self.sub.inputs else value
        if isinstance(value, (list, tuple)):
            return [self._inputs(v) for v in value]
        return value

    def item(self, name):
        """An item's name, or its qualified form "<section>.<name>" (modeling/names.py), as the host calls it."""
        section, _, unqualified = name.partition(".")
        if name not in self.items and section in QUALIFIERS and unqualified in self.items:
            return f"{section}.{self(unqualified)}"
        return self(name) if name in self.items else name

    def signal(self, name):
        """A signal "<item>.<quantity>[<i>]" of the submodel, its item perhaps qualified, as the host calls it."""
        base, index = split_index(name)
        item, _, quantity = base.rpartition(".")
        return f"{self.item(item)}.{quantity}" + ("" if index is None else f"[{index}]")
