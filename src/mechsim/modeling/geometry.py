"""Body geometry (SPEC C9): the shapes an animation draws for a body, in the one format that
``add_body(..., geometry=...)`` and model files take and the URDF, SDF and MJCF importers write.

``geometry`` is one shape or a list of shapes; a shape is a dict (mapping) with

- ``kind`` and its dimensions (m), in the shape's own frame:

  ==========  ===============================================================================
  box         ``size``: the 3 full edge lengths along x, y, z, centred
  sphere      ``radius``
  cylinder    ``radius``, ``length``: along z, centred
  capsule     ``radius``, ``length`` of the cylindrical part (0: a sphere): along z, centred
  ellipsoid   ``radii``: the 3 semi-axes along x, y, z
  mesh        ``path``: an STL or OBJ file (drawn through trimesh, ``pip install mechsim[mesh]``),
              or ``vertices`` (n x 3) and ``faces`` (m x 3 vertex indices, counter-clockwise seen
              from outside); ``scale``: 1 or 3 factors (default 1)
  ==========  ===============================================================================

- ``pose`` (optional): the shape's frame in the body frame — a position, (position, rotation) or
  ``{position: ..., rotation: ...}``, rotations as in SPEC §2; default the body frame;
- ``role`` (optional): ``"visual"`` (default) or ``"collision"``; a body with visual shapes is
  drawn with them, else with its collision shapes;
- ``color`` (optional): ``"#rrggbb"`` or [r, g, b] in 0..1.

The dict is stored on the body as given (``body.geometry``) and read here into Shapes
(``body.shapes``); anything else is refused with a ModelError naming the body and the entry.
"""
from collections.abc import Mapping
from dataclasses import dataclass
import re

import numpy as np

from ..errors import ModelError
from ..spatial.rotations import as_pose

DIMENSIONS = {"box": {"size": 3}, "sphere": {"radius": 1}, "cylinder": {"radius": 1, "length": 1},
              "capsule": {"radius": 1, "length": 1}, "ellipsoid": {"radii": 3}}
MESH_KEYS = {"path", "vertices", "faces", "scale"}
COMMON_KEYS = {"kind", "pose", "role", "color"}
ROLES = ("visual", "collision")


@dataclass(frozen=True)
class Shape:
    """One shape of a body: ``kind``, ``dims`` (name -> float or array), ``position`` and
    ``rotation`` of its frame in the body frame, ``role``, ``color`` ("#rrggbb" or None)."""
    kind: str
    dims: dict
    position: np.ndarray
    rotation: np.ndarray
    role: str = "visual"
    color: str = None


def read_geometry(geometry, what):
    """The Shapes of a body's ``geometry`` (None, a shape dict or a list of them); ``what`` names the
    body in errors."""
    if geometry is None:
        return ()
    entries = [geometry] if isinstance(geometry, Mapping) else geometry
    if isinstance(entries, str) or not hasattr(entries, "__iter__"):
        raise ModelError(f"{what}: geometry must be a shape dict or a list of them, got {geometry!r}")
    return tuple(_shape(entry, f"{what} geometry[{k}]") for k, entry in enumerate(entries))


def _shape(entry, what):
    if not isinstance(entry, Mapping):
        raise ModelError(f"{what}: a shape is a dict with a kind, got {entry!r}")
    kind = entry.get("kind")
    if kind not in DIMENSIONS and kind != "mesh":
        raise ModelError(f"{what}: unknown kind {kind!r}; use one of {', '.join([*DIMENSIONS, 'mesh'])}")
    allowed = COMMON_KEYS | (MESH_KEYS if kind == "mesh" else set(DIMENSIONS[kind]))
    unknown = sorted(set(entry) - allowed)
    if unknown:
        raise ModelError(f"{what} ({kind}): unknown key(s) {unknown}; a {kind} takes {sorted(allowed)}")
    dims = _mesh_dims(entry, what) if kind == "mesh" else \
        {name: _positive(entry, name, n, what, allow_zero=(kind == "capsule" and name == "length"))
         for name, n in DIMENSIONS[kind].items()}
    position, rotation = as_pose(entry.get("pose"), f"{what} pose")
    role = entry.get("role", "visual")
    if role not in ROLES:
        raise ModelError(f"{what}: role must be 'visual' or 'collision', got {role!r}")
    return Shape(kind, dims, position, rotation, role, _color(entry.get("color"), what))


def _positive(entry, name, n, what, allow_zero=False):
    if name not in entry:
        raise ModelError(f"{what}: a {entry['kind']} needs {name}")
    try:
        value = np.asarray(entry[name], dtype=float)
    except (TypeError, ValueError):
        value = np.full(0, np.nan)
    ok = value.size == n and np.all(np.isfinite(value)) and np.all(value >= 0 if allow_zero else value > 0)
    if not ok:
        need = "a number" if n == 1 else f"{n} numbers"
        raise ModelError(f"{what}: {name} must be {need} {'>= 0' if allow_zero else '> 0'}, got {entry[name]!r}")
    return value.item() if n == 1 else value.reshape(n)


def _mesh_dims(entry, what):
    """{"path", "scale"} or {"vertices" (scaled), "faces", "scale"} of a mesh entry."""
    scale = _scale(entry.get("scale", 1.0), what)
    if "path" in entry:
        if {"vertices", "faces"} & set(entry):
            raise ModelError(f"{what}: give a mesh either a path or vertices and faces, not both")
        return {"path": str(entry["path"]), "scale": scale}
    try:
        vertices, faces = np.asarray(entry["vertices"], dtype=float), np.asarray(entry["faces"])
        ok = vertices.ndim == faces.ndim == 2 and vertices.shape[1] == faces.shape[1] == 3 \
            and np.issubdtype(faces.dtype, np.integer) \
            and (faces.size == 0 or 0 <= faces.min() <= faces.max() < len(vertices))
    except (KeyError, TypeError, ValueError):
        ok = False
    if not ok:
        raise ModelError(f"{what}: a mesh needs a path, or vertices (n x 3 numbers) and faces (m x 3 indices "
                         "of those vertices)")
    return {"vertices": vertices * scale, "faces": faces.astype(np.int64), "scale": scale}


def _scale(value, what):
    try:
        scale = np.broadcast_to(np.asarray(value, dtype=float), 3).copy()
    except (TypeError, ValueError):
        scale = np.full(3, np.nan)
    if not np.all(np.isfinite(scale)) or np.any(scale == 0):
        raise ModelError(f"{what}: scale must be 1 or 3 nonzero numbers, got {value!r}")
    return scale


def _color(color, what):
    """"#rrggbb" from "#rrggbb" or [r, g, b] in 0..1; None stays None."""
    if color is None:
        return None
    if isinstance(color, str) and re.fullmatch(r"#[0-9a-fA-F]{6}", color):
        return color.lower()
    rgb = np.asarray(color, dtype=float) if not isinstance(color, str) and np.size(color) == 3 else None
    if rgb is None or not np.all((rgb >= 0) & (rgb <= 1)):
        raise ModelError(f"{what}: color must be '#rrggbb' or [r, g, b] in 0..1, got {color!r}")
    return "#" + "".join(f"{round(255 * c):02x}" for c in rgb)
