"""Model files (SPEC §4): YAML or JSON documents in the words of the Python API.

``load``/``load_dict`` build a :class:`~mechsim.modeling.model.Model` from a file or a dict;
``model_to_dict``/``save`` write one back from the arguments the Model recorded in
``model.specs``. Every mistake raises ModelError naming the file, the section, the entry and
the key at fault, e.g. ``model.yaml: joints[2] 'j3': unknown key 'axsi' (did you mean 'axis'?)``.
"""
import difflib
import importlib
import inspect
import json
import re
from contextlib import contextmanager
from functools import partial
from pathlib import Path

import numpy as np
import yaml

from ..errors import ModelError
from ..expressions import Expression, parse_expression
from ..modeling.constraints import CONSTRAINT_OPTIONS
from ..modeling.contacts import CONTACT_OPTIONS
from ..modeling.forces import FORCE_CLASSES
from ..modeling.joints import JOINT_KINDS
from ..modeling.links import LINK_CLASSES, make_link
from ..modeling.model import Model
from ..simulation.options import OPTIONS, check_option, is_number

# robot descriptions: suffix -> (module, importer), imported when such a file is read (not at every start-up)
IMPORTERS = {".urdf": ("urdf", "load_urdf"), ".sdf": ("sdf", "load_sdf"), ".xml": ("mjcf", "load_mjcf")}
SECTIONS = ("name", "gravity", "inputs", "submodels", "bodies", "joints", "constraints", "drivers", "forces", "contacts",
            "events", "links", "simulation")
SIMULATION_KEYS = tuple(key for key in OPTIONS if key not in ("controller", "outputs", "events", "initial", "links"))
T_EVAL_KEYS = ("start", "stop", "num")


def _parameters(method):
    """Keyword name -> default (``inspect.Parameter.empty`` when required) of a Model.add_* method."""
    params = list(inspect.signature(method).parameters.values())[1:]
    return {p.name: p.default for p in params if p.kind is not p.VAR_KEYWORD}


INPUT_PARAMETERS = _parameters(Model.add_input)
BODY_PARAMETERS = _parameters(Model.add_body)
JOINT_PARAMETERS = _parameters(Model.add_joint)
FORCE_PARAMETERS = _parameters(Model.add_force)
CONSTRAINT_PARAMETERS = _parameters(Model.add_constraint)
DRIVER_PARAMETERS = _parameters(Model.add_driver)
CONTACT_PARAMETERS = {**{key: None for key in CONTACT_OPTIONS}, **_parameters(Model.add_contact)}
EVENT_PARAMETERS = _parameters(Model.add_event)


# ------------------------------------------------------------------------------------ reading
def load(path, **options):
    """Read a model from a ``.yaml``/``.yml`` or ``.json`` model file, or import a robot description
    (``.urdf``, ``.sdf``, MJCF ``.xml``) with the options of its importer (IMPORTERS: floating_base, package_dirs, ...)."""
    return _load(Path(path), options, within=())


def _load(path, options, within):
    """load(); ``within``: the model files being read that include this one (submodels:)."""
    suffix = path.suffix.lower()
    if suffix in IMPORTERS:
        module, name = IMPORTERS[suffix]
        importer = getattr(importlib.import_module(f".{module}", __package__), name)
        with _located(str(path)):
            _check_keys(options, list(_parameters(importer)), f"a {suffix} file", kind="option")
        return importer(path, **options)
    if suffix not in (".yaml", ".yml", ".json"):
        raise ModelError(f"{path}: unknown model file type {suffix!r}; use .yaml, .yml, .json or "
                         f"{', '.join(IMPORTERS)}")
    if options:
        raise ModelError(f"{path}: a model file takes no options, got {', '.join(sorted(options))} "
                         f"(the options are for robot descriptions: {', '.join(IMPORTERS)})")
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ModelError(f"{path}: cannot read the model file ({exc})") from None
    data = _parse_json(text, path) if suffix == ".json" else _parse_yaml(text, path)
    if data is None:
        raise ModelError(f"{path}: the model file is empty")
    return _build(data, str(path), path.parent, within + (path.resolve(),))


class _YamlLoader(yaml.SafeLoader):
    """SafeLoader that reads ``1e-6`` as a number (as YAML 1.2 does) and refuses duplicate keys."""

    def construct_mapping(self, node, deep=False):
        seen = set()
        for key_node, _ in node.value:
            if isinstance(key_node, yaml.ScalarNode):
                if key_node.value in seen:
                    raise yaml.constructor.ConstructorError(
                        None, None, f"duplicate key {key_node.value!r}", key_node.start_mark)
                seen.add(key_node.value)
        return super().construct_mapping(node, deep)

    def compose_document(self):
        node = super().compose_document()
        if _expanded_size(node, {}) > MAX_NODES:
            raise yaml.YAMLError(f"the file expands to more than {MAX_NODES} values (aliases of aliases?)")
        return node


MAX_NODES = 10 ** 6       # values of a model file with its aliases expanded: more is an alias bomb


def _expanded_size(node, sizes):
    """The number of values under a composed node, counting each alias use again."""
    if id(node) not in sizes:
        children = ([n for pair in node.value for n in pair] if isinstance(node, yaml.MappingNode) else
                    node.value if isinstance(node, yaml.SequenceNode) else [])
        sizes[id(node)] = 1 + sum(_expanded_size(n, sizes) for n in children)
    return sizes[id(node)]


_YamlLoader.add_implicit_resolver(
    "tag:yaml.org,2002:float",
    re.compile(r"^[-+]?(?:[0-9][0-9_]*(?:\.[0-9_]*)?|\.[0-9_]+)[eE][-+]?[0-9]+$"),
    list("-+0123456789."))


def _parse_yaml(text, path):
    try:
        return yaml.load(text, Loader=_YamlLoader)
    except RecursionError:
        raise ModelError(f"{path}: invalid YAML: lists or mappings nested too deep") from None
    except (TypeError, ValueError) as exc:      # a tag the value cannot take: !!int 0.2, !!float abc
        raise ModelError(f"{path}: invalid YAML: {exc}") from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" line {mark.line + 1}, column {mark.column + 1}:" if mark else ""
        problem = getattr(exc, "problem", None) or str(exc)
        raise ModelError(f"{path}:{where} invalid YAML: {problem}") from None


def _parse_json(text, path):
    def unique(pairs):
        keys = [k for k, _ in pairs]
        duplicates = sorted({k for k in keys if keys.count(k) > 1})
        if duplicates:
            raise ModelError(f"{path}: invalid JSON: duplicate key {duplicates[0]!r}")
        return dict(pairs)
    try:
        return json.loads(text, object_pairs_hook=unique)
    except json.JSONDecodeError as exc:
        raise ModelError(f"{path}: line {exc.lineno}, column {exc.colno}: invalid JSON: {exc.msg}") from None
    except RecursionError:
        raise ModelError(f"{path}: invalid JSON: lists or objects nested too deep") from None


def load_dict(data, source="<dict>"):
    """Build a Model from a dict in the model-file format (SPEC §4); ``source`` names it in errors.
    Submodel files are found relative to the working directory."""
    return _build(data, source, Path.cwd(), within=())


def _build(data, source, base, within):
    """load_dict(); ``base``: the folder submodel files are relative to; ``within``: see _load."""
    if not isinstance(data, dict):
        raise ModelError(f"{source}: a model file must be a mapping with the sections "
                         f"{', '.join(SECTIONS)}, got {type(data).__name__}")
    with _located(source):
        _check_keys(data, SECTIONS, "a model file", kind="top-level key")
        model = Model(**{key: data[key] for key in ("name", "gravity") if key in data})
    inputs = [{"name": e} if isinstance(e, str) else e for e in _section(data, "inputs", source)]
    submodel = partial(_add_submodel, base=base, within=within)
    for section, items, add in (("inputs", inputs, _add_input),
                                ("submodels", _section(data, "submodels", source), submodel),
                                ("bodies", _section(data, "bodies", source), _add_body),
                                ("joints", _section(data, "joints", source), _add_joint),
                                ("constraints", _section(data, "constraints", source), _add_constraint),
                                ("forces", _section(data, "forces", source), _add_force),
                                ("drivers", _section(data, "drivers", source), _add_driver),
                                ("contacts", _section(data, "contacts", source), _add_contact),
                                ("events", _section(data, "events", source), _add_event),
                                ("links", _section(data, "links", source), _add_link)):
        for where, entry in _entries(items, section, source, named=section not in ("drivers", "events")):
            with _located(where, entry.get("name")):
                add(model, entry)
    with _located(f"{source}: simulation"):
        model.simulation = _simulation(model, data.get("simulation"))
    return model


@contextmanager
def _located(where, name=None):
    """Prefix any error about the data inside the block with its location in the file, and the
    entry's name unless the message names it already."""
    try:
        yield
    except (TypeError, ValueError) as exc:    # ModelError, and what numpy says of malformed values
        message = str(exc)
        if name is not None and f"'{name}'" not in message:
            where = f"{where} '{name}'"
        raise ModelError(f"{where}: {message}") from None


def _section(data, section, source):
    items = data.get(section)
    if items is None:
        return []
    if not isinstance(items, list):
        raise ModelError(f"{source}: {section} must be a list of entries, got {type(items).__name__}")
    return items


def _entries(items, section, source, named=True):
    """(location, entry) for each entry of a section, an entry being a mapping with a string ``name``
    (optional where ``named`` is False)."""
    for i, entry in enumerate(items):
        where = f"{source}: {section}[{i}]"
        if not isinstance(entry, dict):
            raise ModelError(f"{where}: expected a mapping{' with a name' if named else ''}, got {entry!r}")
        if not isinstance(entry.get("name"), str) and (named or "name" in entry):
            raise ModelError(f"{where}: missing name (a string)")
        yield where, entry


def _check_keys(entry, allowed, what, kind="key"):
    """Refuse keys not in ``allowed``, suggesting the closest allowed one."""
    unknown = [key for key in entry if key not in allowed]
    if unknown:
        described = []
        for key in unknown:
            close = difflib.get_close_matches(str(key), allowed, n=1)
            described.append(f"{key!r}" + (f" (did you mean {close[0]!r}?)" if close else ""))
        plural = "s" if len(unknown) > 1 else ""
        raise ModelError(f"unknown {kind}{plural} {', '.join(described)}; {what} takes {', '.join(allowed)}")


def _check_required(entry, required, what):
    missing = [key for key in required if key not in entry]
    if missing:
        raise ModelError(f"missing key {missing[0]!r}; {what} needs {', '.join(required)}")


def _required(parameters):
    return [key for key, default in parameters.items() if default is inspect.Parameter.empty]


def _mapping(value, what):
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise ModelError(f"{what} must be a mapping, got {value!r}")
    return value


def _add_input(model, entry):
    _check_keys(entry, list(INPUT_PARAMETERS), "an input")
    model.add_input(**entry)


def _add_submodel(model, entry, base, within):
    """A submodels: entry {name, file, parameters}: the file (relative to the including file's folder)
    loaded and copied in under its name."""
    _check_required(entry, ("name", "file"), "a submodel")
    _check_keys(entry, ["name", "file", "parameters"], "a submodel")
    if not isinstance(entry["file"], str):
        raise ModelError(f"file must be a path (a string), got {entry['file']!r}")
    path = base / entry["file"]
    if path.resolve() in within:
        raise ModelError(f"file {entry['file']!r} includes itself (submodels: {' -> '.join(p.name for p in within)} "
                         f"-> {path.name})")
    parameters = _mapping(entry.get("parameters"), "parameters")
    model.add_submodel(entry["name"], _load(path, {}, within), parameters=parameters or None)


def _add_body(model, entry):
    if entry["name"] == "ground":           # the ground exists; an entry may only name frames on it
        _check_keys(entry, ["name", "frames"], "the ground entry (only frames can be added to the ground)")
        for name, pose in _mapping(entry.get("frames"), "frames").items():
            model.add_frame("ground", name, pose)
        return
    _check_keys(entry, list(BODY_PARAMETERS), "a body")
    _mapping(entry.get("frames"), "frames")
    model.add_body(**entry)


def _add_joint(model, entry):
    _check_required(entry, _required(JOINT_PARAMETERS), "a joint")
    kind = entry["kind"]
    if isinstance(kind, str) and kind in JOINT_KINDS:      # else the Model names the valid kinds
        _check_keys(entry, [*JOINT_PARAMETERS, *sorted(JOINT_KINDS[kind].options)], f"a {kind} joint")
    model.add_joint(**entry)


def _add_force(model, entry):
    _check_required(entry, _required(FORCE_PARAMETERS), "a force")
    kind = entry["kind"]
    if isinstance(kind, str) and kind in FORCE_CLASSES:    # else the Model names the valid kinds
        _check_keys(entry, [*FORCE_PARAMETERS, *FORCE_CLASSES[kind].options], f"a {kind} force")
    model.add_force(**entry)


def _add_constraint(model, entry):
    _check_required(entry, _required(CONSTRAINT_PARAMETERS), "a constraint")
    kind = entry["kind"]
    if isinstance(kind, str) and kind in CONSTRAINT_OPTIONS:
        _check_keys(entry, [*CONSTRAINT_PARAMETERS, *CONSTRAINT_OPTIONS[kind]], f"a {kind} constraint")
    model.add_constraint(**entry)


def _add_contact(model, entry):
    _check_required(entry, _required(CONTACT_PARAMETERS), "a contact")
    _check_keys(entry, list(CONTACT_PARAMETERS), "a contact")
    model.add_contact(**entry)


def _add_driver(model, entry):
    _check_required(entry, _required(DRIVER_PARAMETERS), "a driver")
    _check_keys(entry, list(DRIVER_PARAMETERS), "a driver")
    model.add_driver(**entry)


def _add_event(model, entry):
    _check_required(entry, _required(EVENT_PARAMETERS), "an event")
    _check_keys(entry, list(EVENT_PARAMETERS), "an event")
    if not isinstance(entry["signal"], str):
        raise ModelError(f"an event's signal must be a signal name (e.g. j1.q), got {entry['signal']!r}")
    model.add_event(**entry)


def _add_link(model, entry):
    _check_required(entry, ["kind"], "a link")
    kind = entry["kind"]
    if kind not in LINK_CLASSES:
        raise ModelError(f"unknown link kind {kind!r}; use one of {', '.join(LINK_CLASSES)}")
    _check_keys(entry, ["name", "kind", *LINK_CLASSES[kind].options], f"a {kind} link")
    model.add_link(make_link(**entry))


def _simulation(model, settings):
    """Checked copy of the ``simulation:`` section (defaults for simulate)."""
    settings = dict(_mapping(settings, "the simulation section"))
    _check_keys(settings, SIMULATION_KEYS, "the simulation section")
    for key, value in settings.items():
        if key == "t_eval" and value is not None:
            _check_t_eval(value)
        elif key == "inputs" and value is not None:
            _check_simulation_inputs(model, value)
        else:
            check_option(key, value)                  # the options registry's choices and checks
    return settings


def _check_number(value, key):
    if not is_number(value):
        raise ModelError(f"{key} must be a finite number, got {value!r}")


def _check_t_eval(value):
    if isinstance(value, dict):
        _check_keys(value, T_EVAL_KEYS, "t_eval")
        _check_required(value, T_EVAL_KEYS, "t_eval")
        for key in T_EVAL_KEYS:
            _check_number(value[key], f"t_eval {key}")
        if not isinstance(value["num"], int) or value["num"] < 1:
            raise ModelError(f"t_eval num must be a positive integer, got {value['num']!r}")
    elif isinstance(value, list):
        for i, t in enumerate(value):
            _check_number(t, f"t_eval[{i}]")
    else:
        raise ModelError(f"t_eval must be a list of times or {{start, stop, num}}, got {value!r}")


def _check_simulation_inputs(model, values):
    for name, value in _mapping(values, "inputs").items():
        if name not in model.inputs:
            raise ModelError(f"inputs: {name!r} is not an input of the model "
                             f"(inputs: {', '.join(model.inputs) or 'none'})")
        if isinstance(value, str):
            parse_expression(value, f"inputs {name!r}")
        else:
            _check_number(value, f"inputs {name!r}")


# ------------------------------------------------------------------------------------ writing
class _YamlDumper(yaml.SafeDumper):
    """SafeDumper writing lists on one line (``[1, 0, 0]``) unless they hold mappings (entries)."""


_YamlDumper.add_representer(list, lambda dumper, data: dumper.represent_sequence(
    "tag:yaml.org,2002:seq", data, flow_style=not any(isinstance(item, dict) for item in data)))


def save(model, path):
    """Write ``model`` as YAML, or as JSON when ``path`` ends in ``.json``."""
    path = Path(path)
    data = model_to_dict(model)
    if path.suffix.lower() == ".json":
        text = json.dumps(data, indent=2) + "\n"
    else:
        text = yaml.dump(data, Dumper=_YamlDumper, sort_keys=False, default_flow_style=None, width=100)
    path.write_text(text, encoding="utf-8")


def model_to_dict(model):
    """The model-file dict of ``model``: ``load_dict(model_to_dict(m))`` rebuilds an equivalent model.

    Raises ModelError naming the item when a value cannot be written (a Python function).
    """
    data = {"name": model.name, "gravity": _plain(model.gravity, "gravity")}
    sections = {
        "inputs": [_input_entry(name, default) for name, default in model.inputs.items()],
        "bodies": _body_entries(model),
        "joints": [_entry(name, kwargs, JOINT_PARAMETERS, f"joint '{name}'")
                   for name, kwargs in model.specs["joints"].items()],
        "constraints": [_entry(name, kwargs, CONSTRAINT_PARAMETERS, f"constraint '{name}'")
                        for name, kwargs in model.specs["constraints"].items()],
        "forces": [_entry(name, kwargs, FORCE_PARAMETERS, f"force '{name}'")
                   for name, kwargs in model.specs["forces"].items()],
        "drivers": [_driver_entry(name, kwargs) for name, kwargs in model.specs["drivers"].items()],
        "contacts": [_entry(name, kwargs, CONTACT_PARAMETERS, f"contact '{name}'")
                     for name, kwargs in model.specs["contacts"].items()],
        "events": [_event_entry(name, event.spec) for name, event in model.events.items()],
        "links": [_entry(name, link.spec, {}, f"link '{name}'") for name, link in model.links.items()],
        "simulation": _plain(model.simulation, "simulation"),
    }
    data.update((key, value) for key, value in sections.items() if value)
    return data


def _driver_entry(name, kwargs):
    """A drivers entry; it names itself only when the driver was given a name of its own."""
    entry = _entry(name, {k: v for k, v in kwargs.items() if k != "name"}, DRIVER_PARAMETERS, f"driver '{name}'")
    if "name" not in kwargs:
        del entry["name"]
    return entry


def _event_entry(name, spec):
    """An events entry; it names itself only when its name is not its signal's."""
    entry = _entry(name, spec, EVENT_PARAMETERS, f"event '{name}'")
    if name == spec["signal"]:
        del entry["name"]
    return entry


def _input_entry(name, default):
    entry = _entry(name, {"default": default}, INPUT_PARAMETERS, f"input '{name}'")
    return name if len(entry) == 1 else entry


def _body_entries(model):
    """Body entries with the frames of ``add_frame`` merged in; ground frames on a ``ground`` entry."""
    added = {}
    for frame in model.specs.get("frames", []):
        added.setdefault(frame["body"], {})[frame["name"]] = frame["pose"]
    entries = [_entry("ground", {"frames": added["ground"]}, {}, "body 'ground'")] if "ground" in added else []
    for name, kwargs in model.specs["bodies"].items():
        frames = {**(kwargs.get("frames") or {}), **added.get(name, {})}
        entries.append(_entry(name, dict(kwargs, frames=frames or None), BODY_PARAMETERS, f"body '{name}'"))
    return entries


def _entry(name, kwargs, parameters, what):
    """``{name, **kwargs}`` as plain data, without None values and values equal to the defaults."""
    entry = {"name": name}
    for key, value in kwargs.items():
        value = _plain(value, f"{what} {key}")
        default = parameters.get(key, inspect.Parameter.empty)
        if value is not None and (default is inspect.Parameter.empty or value != _plain(default, key)):
            entry[key] = value
    return entry


def _plain(value, what):
    """``value`` as YAML/JSON data: lists, dicts, str, numbers, bools; expressions as their text."""
    if isinstance(value, Expression):
        return value.source
    if isinstance(value, np.generic):
        return value.item()
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, int):
        return int(value)
    if isinstance(value, float):
        return float(value)
    if isinstance(value, np.ndarray):
        return _plain(value.tolist(), what)
    if isinstance(value, dict):
        return {str(k): _plain(v, f"{what}[{k!r}]") for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v, f"{what}[{i}]") for i, v in enumerate(value)]
    if callable(value):
        raise ModelError(f"{what}: a Python function cannot be saved to a model file; "
                         "use an expression string of t instead, e.g. '2*sin(3*t)'")
    raise ModelError(f"{what}: a value of type {type(value).__name__} cannot be saved to a model file")
