"""Files read back: a saved run as a Result (``mechsim animate --results run.npz``), columns of a
motion (``mechsim inverse --motion``), and a state (``mechsim linearize --state``).

A run file is what ``res.save(path)`` and ``mechsim simulate -o path`` write: a .npz (one array per
column) or a .csv (a header row of column names), with the column ``t`` and the signals flattened
as ``Result.flat_columns`` names them (``name``, or ``name[i]`` for a vector signal, row-major).
A run can be restored from it when it holds every joint's coordinates ``<joint>.q`` and velocities
``<joint>.v`` — all signals are saved unless ``--signals`` picks some. The force elements' inputs
are taken at their defaults (they change forces, not the motion the file holds).
"""
import csv
import json
import math
from pathlib import Path

import numpy as np

from ..dynamics.kernels import normalize_quaternions
from ..errors import MechsimError
from .result import Outcome, Result
from .state import State


def load_run(model, path):
    """The Result of ``model`` stored in the run file ``path``."""
    columns = load_columns(path)
    cm = model.compile()
    wanted = {kind: [name for joint in cm.joint_order for name in _flat(joint, kind, model.joints[joint])]
              for kind in ("q", "v")}
    missing = [name for name in ["t", *wanted["q"], *wanted["v"]] if name not in columns]
    if missing:
        raise MechsimError(f"{path}: no column {', '.join(missing[:4])}{' ...' if len(missing) > 4 else ''} "
                           f"for model '{model.name}': a run file needs t and every joint's .q and .v (save the "
                           "run without --signals)")
    t = np.asarray(columns["t"], dtype=float)
    q, v = (np.column_stack([columns[n] for n in wanted[kind]] or [np.zeros((len(t), 0))]) for kind in ("q", "v"))
    forces = np.array([cm.force_values(ti) for ti in t]).reshape(len(t), cm.n_slots)
    return Result(cm, t, q, v, forces, outcome=Outcome(message=f"read from {path}"))


def _flat(name, kind, joint):
    """Column names of a joint's coordinates (kind "q") or velocities ("v"), as flat_columns writes them."""
    n = joint.nq if kind == "q" else joint.nv
    return [f"{name}.{kind}"] if n == 1 else [f"{name}.{kind}[{i}]" for i in range(n)]


def load_columns(path, what="the run file"):
    """{column name: (N,) array} of a .npz or .csv file written by results/result.py's save_columns
    (a .csv: a header row of names); ``what`` names the file in errors."""
    path = Path(path)
    try:
        if path.suffix == ".npz":
            with np.load(path) as data:
                return {name: data[name] for name in data.files}
        if path.suffix == ".csv":
            with path.open(encoding="utf-8") as file:
                names = next(csv.reader([file.readline().strip()]))
                values = np.loadtxt(file, delimiter=",", ndmin=2)
            if values.size and values.shape[1] != len(names):
                raise ValueError(f"{len(names)} names in the header row but {values.shape[1]} columns")
            return dict(zip(names, values.reshape(-1, len(names)).T))
    except (OSError, ValueError) as exc:
        raise MechsimError(f"cannot read {what} {path}: {getattr(exc, 'strerror', None) or exc}") from None
    raise MechsimError(f"cannot read {what} {path}: use a .npz or .csv file written by mechsim simulate -o")


def load_state(model, path, t=None, inputs=None):
    """An ms.State of ``model`` from a state file: trim's JSON ({"t", "coordinates", "inputs"}), a
    linearization JSON (its "operating_point"), assemble's flat {coordinate: value} JSON, or a name,value
    CSV. Every position must be given (velocities default to 0); ``t`` and ``inputs`` given here must agree
    with, or add to, the file's."""
    point = _read_point(model, path)
    cm = model.compile()
    coordinates, given_inputs = point.get("coordinates"), point.get("inputs") or {}
    if not isinstance(coordinates, dict) or not isinstance(given_inputs, dict):
        raise MechsimError(f"{path}: expected coordinates and inputs as name: value objects")
    q, v = np.array(cm.q0, dtype=float), np.zeros(cm.nv)
    for name, value in coordinates.items():
        if name in cm.q_names:
            q[cm.q_names.index(name)] = _number(value, path, name)
        elif name in cm.v_names:
            v[cm.v_names.index(name)] = _number(value, path, name)
        else:
            raise MechsimError(f"{path}: unknown coordinate {name!r}; the coordinates of '{model.name}' are "
                               f"{', '.join(list(cm.q_names) + list(cm.v_names))}")
    missing = [name for name in cm.q_names if name not in coordinates]
    if missing:
        raise MechsimError(f"{path}: no value for the coordinate(s) {', '.join(missing)}")
    unknown = [name for name in given_inputs if name not in model.inputs]
    if unknown:
        raise MechsimError(f"{path}: unknown input {unknown[0]!r}; the model's inputs are "
                           f"{', '.join(model.inputs) or 'none'}")
    file_t = point.get("t")
    if file_t is not None and t is not None and float(file_t) != t:
        raise MechsimError(f"the time t = {t:g} asked for differs from the time t = {float(file_t):g} of the "
                           f"state in {path}")
    state = State(cm, q, v, t if file_t is None and t is not None else _number(file_t or 0.0, path, "t"))
    normalize_quaternions(cm.quat_q, state.q)            # linearize refuses a state off the constraints
    state.inputs = {**model.inputs, **{k: _number(x, path, k) for k, x in given_inputs.items()}, **(inputs or {})}
    return state


def _read_point(model, path):
    """{"t", "coordinates", "inputs"} of a state file (see load_state)."""
    try:
        text = Path(path).read_text()
    except OSError as exc:
        raise MechsimError(f"cannot read {path}: {exc.strerror or exc}") from None
    if str(path).endswith(".csv"):
        data = {}
        for number, line in enumerate(text.splitlines()[1:], start=2):
            if not line.strip():
                continue
            name, _, value = line.partition(",")
            try:
                data[name.strip()] = float(value)
            except ValueError:
                raise MechsimError(f"{path}, line {number}: expected name,value, got {line!r}") from None
        point = {"t": data.pop("t", None), "inputs": {k: data.pop(k) for k in list(data) if k in model.inputs}}
        data.pop("residual", None)
        return {**point, "coordinates": data}
    try:
        point = json.loads(text)
    except ValueError as exc:
        raise MechsimError(f"{path} is not valid JSON: {exc}") from None
    if not isinstance(point, dict):
        raise MechsimError(f"{path}: expected a JSON object of coordinates")
    point = point.get("operating_point", point)
    return point if "coordinates" in point else {"coordinates": point}


def _number(value, path, name):
    try:
        number = float(value)
    except (TypeError, ValueError):
        number = math.nan
    if not math.isfinite(number):
        raise MechsimError(f"{path}: {name} = {value!r} is not a finite number")
    return number
