"""Parameter paths: the names sweeps, batch runs and submodels use for a model's own arguments
(SPEC §3, C12).

``"<section>.<item>.<argument>"`` addresses an argument of an ``add_*`` call (``"bodies.rod.mass"``,
``"joints.j1.q0"``, ``"forces.spring.stiffness"``); ``"inputs.<name>"`` an input's default;
``"gravity"`` the gravity vector. A trailing ``[i]`` sets one entry of a vector argument
(``"bodies.rod.com[0]"``). Only arguments that may change after ``add_*`` are parameters
(modeling/element.py): names, kinds and the bodies and joints an element connects are not.
"""
import difflib
from collections import namedtuple

import numpy as np

from ..errors import ModelError
from .names import split_index

SECTIONS = ("bodies", "joints", "forces", "constraints", "drivers", "contacts")
Path = namedtuple("Path", "text section item argument index")


def _guess(word, choices):
    close = difflib.get_close_matches(word, list(choices), n=1)
    return f" (did you mean {close[0]!r}?)" if close else ""


def parse_path(model, text):
    """The Path a parameter name addresses in ``model``; ModelError naming it and what exists otherwise."""
    if not isinstance(text, str) or not text:
        raise ModelError(f"parameter {text!r}: give a path '<section>.<item>.<argument>', 'inputs.<name>' or 'gravity'")
    body, index = split_index(text)
    section, _, rest = body.partition(".")       # item names may hold dots (SPEC C15): the argument is after the last
    what = f"parameter '{text}'"
    if body == "gravity":
        return Path(text, "gravity", None, None, index)
    if section == "inputs" and rest:
        if rest not in model.inputs:
            raise ModelError(f"{what}: the model has no input {rest!r}{_guess(rest, model.inputs)} "
                             f"(inputs: {', '.join(model.inputs) or 'none'})")
        if index is not None:
            raise ModelError(f"{what}: an input's default is one number; drop the [{index}]")
        return Path(text, "inputs", rest, None, None)
    item, _, argument = rest.rpartition(".")
    if section not in SECTIONS or not item or not argument:
        raise ModelError(f"{what}: give '<section>.<item>.<argument>' with a section of {', '.join(SECTIONS)}, "
                         f"'inputs.<name>' or 'gravity'" + _guess(section, SECTIONS + ("inputs", "gravity")))
    table = getattr(model, section)
    if item not in table:
        raise ModelError(f"{what}: the model has no {section[:-1] if section != 'bodies' else 'body'} {item!r}"
                         f"{_guess(item, table)} ({section}: {', '.join(table) or 'none'})")
    element = table[item]
    changeable = sorted(set(element._arguments()) - element._fixed())
    if argument not in changeable:
        problem = (f"{argument!r} sets the model's structure and cannot change" if argument in element._arguments()
                   else f"{element._noun} '{item}' has no parameter {argument!r}{_guess(argument, changeable)}")
        raise ModelError(f"{what}: {problem}; the parameters of {element._noun} '{item}' are {changeable or 'none'}")
    return Path(text, section, item, argument, index)


def current_value(model, path):
    """The value a path has in ``model`` now (the argument as given, or as computed when not given)."""
    if path.section == "gravity":
        return np.array(model.gravity)
    if path.section == "inputs":
        return model.inputs[path.item]
    spec = model.specs[path.section][path.item]
    if spec.get(path.argument) is not None:
        return spec[path.argument]
    return getattr(getattr(model, path.section)[path.item], path.argument, None)


def with_entry(current, path, value):
    """``current`` (a vector argument) with entry path.index set to value."""
    vector = [float(x) for x in np.atleast_1d(np.asarray(current, dtype=float)).ravel()]
    if path.index >= len(vector):
        raise ModelError(f"parameter '{path.text}': index {path.index} is beyond its {len(vector)} entries")
    vector[path.index] = value
    return vector


def with_parameters(model, values):
    """A new Model: ``model`` with the parameters ``values`` ({path: value}) set, built once by add_*
    from its arguments (so every value is checked as add_* checks it); its events and simulation
    defaults are shared by value. ModelError naming the parameters when a value is refused."""
    paths = [parse_path(model, text) for text in values]
    specs, gravity, inputs = model._specs_copy(), np.array(model.gravity), dict(model.inputs)
    for path in paths:
        value = values[path.text]
        if hasattr(value, "tolist"):
            value = value.tolist()
        if path.index is not None:
            value = with_entry(current_value(model, path) if path.section != "gravity" else gravity, path, value)
        if path.section == "gravity":
            gravity = value
        elif path.section == "inputs":
            inputs[path.item] = value
        else:
            specs[path.section][path.item][path.argument] = value
            if path.argument == "frames":    # the new frames are all the body's frames, add_frame's included
                specs["frames"] = [s for s in specs.get("frames", []) if s["body"] != path.item]
    try:
        new = model._replay(specs, gravity=gravity, inputs=inputs)
    except ModelError as exc:
        shown = ", ".join(f"{p.text} = {values[p.text]!r}" for p in paths)
        raise ModelError(f"parameters {shown}: {exc}") from None
    new.events, new.simulation, new.links = dict(model.events), dict(model.simulation), dict(model.links)
    return new
