"""A saved run read back as a Result (``mechsim animate --results run.npz``).

A run file is what ``res.save(path)`` and ``mechsim simulate -o path`` write: a .npz (one array per
column) or a .csv (a header row of column names), with the column ``t`` and the signals flattened
as ``Result.flat_columns`` names them (``name``, or ``name[i]`` for a vector signal, row-major).
A run can be restored from it when it holds every joint's coordinates ``<joint>.q`` and velocities
``<joint>.v`` — all signals are saved unless ``--signals`` picks some. The force elements' inputs
are taken at their defaults (they change forces, not the motion the file holds).
"""
from pathlib import Path

import numpy as np

from ..errors import MechsimError
from .result import Result


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
    return Result(cm, t, q, v, forces, message=f"read from {path}")


def _flat(name, kind, joint):
    """Column names of a joint's coordinates (kind "q") or velocities ("v"), as flat_columns writes them."""
    n = joint.nq if kind == "q" else joint.nv
    return [f"{name}.{kind}"] if n == 1 else [f"{name}.{kind}[{i}]" for i in range(n)]


def load_columns(path):
    """{column name: (N,) array} of a .npz or .csv file written by analysis/result.py's save_columns."""
    path = Path(path)
    try:
        if path.suffix == ".npz":
            with np.load(path) as data:
                return {name: data[name] for name in data.files}
        if path.suffix == ".csv":
            with path.open(encoding="utf-8") as file:
                names = file.readline().strip().split(",")
                values = np.loadtxt(file, delimiter=",", ndmin=2)
            return dict(zip(names, values.reshape(-1, len(names)).T))
    except (OSError, ValueError) as exc:
        raise MechsimError(f"cannot read the run file {path}: {getattr(exc, 'strerror', None) or exc}") from None
    raise MechsimError(f"cannot read the run file {path}: use a .npz or .csv file written by mechsim simulate -o")
