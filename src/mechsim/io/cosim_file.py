"""Co-simulation files for ``mechsim cosimulate`` (SPEC §3 C12): the arguments of ms.cosimulate in
YAML or JSON, with the subsystems as model files (paths relative to the file) and each coupling as
a mapping ``{name, kind, body_a, point_a, body_b, point_b[, length]}``::

    subsystems: {A: chain_a.yaml, B: chain_b.yaml}
    couplings:
      - {name: pin, kind: point_coincident, body_a: A/coupler, point_a: [4, 0, 0], body_b: B/rocker, point_b: [2.5, 0, 0]}
    method: projection
    baumgarte: 10.0
    h: 1.0e-4
    t_end: 10.0
"""
from pathlib import Path

from ..errors import ModelError
from .model_file import _check_keys, _parse_json, _parse_yaml, load

SETTINGS = ("method", "baumgarte", "stiffness", "damping", "h", "t_end", "t_eval", "solver", "exchange", "ordering",
            "transport", "assemble")
KEYS = ("subsystems", "couplings", *SETTINGS)


def load_cosimulation(path):
    """The keyword arguments of ms.cosimulate described by a co-simulation file."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ModelError(f"{path}: cannot read the co-simulation file ({exc})") from None
    data = _parse_json(text, path) if path.suffix.lower() == ".json" else _parse_yaml(text, path)
    if not isinstance(data, dict):
        raise ModelError(f"{path}: a co-simulation file is a mapping with the keys {', '.join(KEYS)}")
    try:
        _check_keys(data, KEYS, "a co-simulation file")
    except ModelError as exc:
        raise ModelError(f"{path}: {exc}") from None
    subsystems = data.get("subsystems")
    if not isinstance(subsystems, dict) or not subsystems:
        raise ModelError(f"{path}: subsystems must map names to model files, e.g. {{A: chain_a.yaml}}")
    couplings = data.get("couplings")
    if not isinstance(couplings, list) or not all(isinstance(c, dict) for c in couplings):
        raise ModelError(f"{path}: couplings must be a list of mappings {{name, kind, body_a, point_a, body_b, point_b}}")
    models = {}
    for name, file in subsystems.items():
        if not isinstance(file, str):
            raise ModelError(f"{path}: subsystem {name!r}: give the path of its model file, got {file!r}")
        models[name] = load(path.parent / file)
    entries = []
    for i, c in enumerate(couplings):
        c = dict(c)
        if "name" not in c or "kind" not in c:
            raise ModelError(f"{path}: couplings[{i}]: give its name and kind")
        entries.append((c.pop("name"), c.pop("kind"), c))
    return dict(subsystems=models, couplings=entries, **{key: data[key] for key in SETTINGS if key in data})
