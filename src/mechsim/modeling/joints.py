"""Joints as sequences of primitives (SPEC §2; modeling/primitives, one module per kind): revolute R, prismatic
P, helical H (screw), spherical S, weld, and the translation T along the three axes of F (a free joint's first
node, one node instead of three).

Primitive axes are given in the joint's base frame F; each later primitive moves with the
ones before it (so ``universal`` axes=(a1, a2): a1 on the parent side, a2 carried by a1).
"""
from typing import Callable, NamedTuple, Optional

import numpy as np

from ..errors import ModelError
from ..spatial.rotations import as_vector3
from .element import Element
from .primitives import CUSTOM_PRIMITIVES, PRIM_H, PRIM_P, PRIM_R, PRIM_S, PRIM_T, PRIM_WELD, PRIMITIVES

EX, EY, EZ = np.eye(3)
COMMON_OPTIONS = {"parent_frame", "child_frame", "q0", "v0", "cut"}


def unit_axis(value, what):
    a = as_vector3(value, what)
    scale = np.max(np.abs(a))
    if scale < 1e-12:
        raise ModelError(f"{what} is a zero vector; give a nonzero direction")
    a = a / scale                        # the norm of huge components would overflow
    return a / np.linalg.norm(a)


def linear_combination(model, value, what, key):
    """{joint name: coefficient} of one-coordinate joints from a mapping (or one joint name: coefficient 1)."""
    terms = {value: 1.0} if isinstance(value, str) else value
    if not isinstance(terms, dict) or not terms:
        raise ModelError(f"{what}: {key} must map joint names to coefficients, e.g. {{'j1': 1.0, 'j2': -0.5}}, "
                         f"got {value!r}")
    combination = {}
    for name, c in terms.items():
        joint = model.joint(name, what)
        if joint.nq != 1 or joint.nv != 1:
            raise ModelError(f"{what}: joint '{joint.name}' ({joint.kind}) in {key} must have exactly one coordinate")
        try:
            combination[joint.name] = float(c)
        except (TypeError, ValueError):
            combination[joint.name] = np.nan
        if not np.isfinite(combination[joint.name]):
            raise ModelError(f"{what}: the coefficient of joint '{joint.name}' in {key} must be a finite number, "
                             f"got {c!r}")
    return combination


def combination_terms(cm, combination):
    """(q index, v index, coefficient) of every joint of a linear combination, flat."""
    return [x for name, c in combination.items() for x in (cm.joint_q[name].start, cm.joint_v[name].start, c)]


def plane_axes(normal):
    """Two in-plane unit axes (e1, e2) with e1 x e2 = normal; F's x, y for the default normal z."""
    n = normal
    e1 = EX - n * n[0] if abs(n[0]) < 0.9 else EY - n * n[1]
    e1 /= np.linalg.norm(e1)
    return e1, np.cross(n, e1)


class JointKind(NamedTuple):
    """What mechsim knows of a joint kind, in one place: its own options (besides COMMON_OPTIONS), its
    primitives, and the rows that hold it when it is cut to close a loop.

    ``primitives(what, options)`` -> [(type, unit axis in F, pitch)]. ``closure(primitives)`` -> the
    cut joint's rows (dynamics/closure.py writes them), each ("offset", d): M's origin has no offset
    from F's along F's direction d; ("angle", u, s): F's direction u keeps its angle to M's direction s
    (equal to F's s at q = 0); ("screw",): the slide along the axis is the pitch times the turn about
    it. A cut joint gives 6 - (its DOF) rows (tests/modeling check every kind); closure None: the kind
    cannot be cut."""
    options: frozenset
    primitives: Callable
    closure: Optional[Callable]


def _axis(what, opts):
    return unit_axis(opts.get("axis", (0, 0, 1)), f"{what} axis")


def _screw(what, opts):
    if "lead" not in opts:
        raise ModelError(f"{what}: a screw joint needs lead= (m per revolution)")
    return [(PRIM_H, _axis(what, opts), float(opts["lead"]) / (2 * np.pi))]


def _universal(what, opts):
    axes = opts.get("axes", ((1, 0, 0), (0, 1, 0)))
    if len(axes) != 2:
        raise ModelError(f"{what}: universal takes axes=(a1, a2)")
    a1, a2 = (unit_axis(a, f"{what} axes[{i}]") for i, a in enumerate(axes))
    if abs(a1 @ a2) > 1 - 1e-9:
        raise ModelError(f"{what}: universal axes must not be parallel")
    return [(PRIM_R, a1, 0.0), (PRIM_R, a2, 0.0)]


def _gimbal(what, opts):
    seq = str(opts.get("seq", "xyz"))
    if len(seq) != 3 or set(seq) - set("xyz") or seq[0] == seq[1] or seq[1] == seq[2]:
        raise ModelError(f"{what}: gimbal seq must be 3 letters of x, y, z with no two neighbours equal, got {seq!r}")
    return [(PRIM_R, np.eye(3)["xyz".index(c)], 0.0) for c in seq]


def _planar(what, opts):
    n = unit_axis(opts.get("normal", (0, 0, 1)), f"{what} normal")
    e1, e2 = plane_axes(n)
    return [(PRIM_P, e1, 0.0), (PRIM_P, e2, 0.0), (PRIM_R, n, 0.0)]


def _point():                      # M's origin stays on F's
    return [("offset", d) for d in (EX, EY, EZ)]


def _orientation():                # M's axes keep F's
    return [("angle", EX, EY), ("angle", EY, EZ), ("angle", EZ, EX)]


def _on_line(axis):                # M's origin stays on F's line along the axis
    e1, e2 = plane_axes(axis)
    return [("offset", e1), ("offset", e2)]


def _along(axis):                  # M's axis stays F's
    e1, e2 = plane_axes(axis)
    return [("angle", e1, axis), ("angle", e2, axis)]


JOINT_KINDS = {
    "weld": JointKind(frozenset(), lambda what, o: [(PRIM_WELD, EZ, 0.0)],
                      lambda p: _point() + _orientation()),
    "revolute": JointKind(frozenset({"axis"}), lambda what, o: [(PRIM_R, _axis(what, o), 0.0)],
                          lambda p: _point() + _along(p[0][1])),
    "prismatic": JointKind(frozenset({"axis"}), lambda what, o: [(PRIM_P, _axis(what, o), 0.0)],
                           lambda p: _orientation() + _on_line(p[0][1])),
    "cylindrical": JointKind(frozenset({"axis"}), lambda what, o: [(PRIM_P, _axis(what, o), 0.0),
                                                                   (PRIM_R, _axis(what, o), 0.0)],
                             lambda p: _on_line(p[0][1]) + _along(p[0][1])),
    "screw": JointKind(frozenset({"axis", "lead"}), _screw,
                       lambda p: _on_line(p[0][1]) + _along(p[0][1]) + [("screw",)]),
    "universal": JointKind(frozenset({"axes"}), _universal,
                           lambda p: _point() + [("angle", p[0][1], p[1][1])]),
    "gimbal": JointKind(frozenset({"seq"}), _gimbal, lambda p: _point()),
    "planar": JointKind(frozenset({"normal"}), _planar,
                        lambda p: _along(p[2][1]) + [("offset", p[2][1])]),
    "spherical": JointKind(frozenset(), lambda what, o: [(PRIM_S, EZ, 0.0)], lambda p: _point()),
    "bushing": JointKind(frozenset(), lambda what, o: [(PRIM_P, EX, 0.0), (PRIM_P, EY, 0.0), (PRIM_P, EZ, 0.0),
                                                       (PRIM_R, EX, 0.0), (PRIM_R, EY, 0.0), (PRIM_R, EZ, 0.0)],
                         lambda p: []),
    "free": JointKind(frozenset(), lambda what, o: [(PRIM_T, EZ, 0.0), (PRIM_S, EZ, 0.0)], lambda p: []),
    "custom": JointKind(frozenset({"primitives"}), lambda what, o: _custom_primitives(what, o.get("primitives")),
                        None),
}


def _custom_primitives(what, spec):
    if not spec:
        raise ModelError(f"{what}: custom joint needs primitives=[('R', axis), ('P', axis), ('S',), ...]")
    prims = []
    for i, p in enumerate(spec):
        p = [p] if isinstance(p, str) else list(p) if isinstance(p, (list, tuple)) else []
        if not p:
            raise ModelError(f"{what}: primitive {i} must be ('R', axis), ('P', axis) or 'S', got {spec[i]!r}")
        kind = CUSTOM_PRIMITIVES.get(str(p[0]).upper())
        if kind is None:
            *others, last = (repr(letter) for letter in CUSTOM_PRIMITIVES)
            raise ModelError(f"{what}: primitive {i} has unknown type {p[0]!r}; use {', '.join(others)} or {last}")
        if kind.axial and len(p) != 2:
            raise ModelError(f"{what}: primitive {i} ('{kind.letter}') takes one axis, "
                             f"e.g. ('{kind.letter}', (0, 0, 1))")
        if not kind.axial and len(p) != 1:
            raise ModelError(f"{what}: primitive {i} ('{kind.letter}') takes no axis")
        prims.append((kind.code, unit_axis(p[1], f"{what} primitive {i} axis") if kind.axial else EZ, 0.0))
    return prims


class Joint(Element):
    """A joint from frame F on ``parent`` to frame M on ``child``; F and M coincide at q = 0."""
    _noun, _section = "joint", "joints"
    _structural = ("parent", "child", "cut", "primitives")

    def _arguments(self):
        return ("kind", "parent", "child", "parent_frame", "child_frame", "q0", "v0", "cut", *JOINT_KINDS[self.kind].options)

    def __init__(self, name, kind, parent, child, parent_pose, child_pose, options, q0=None, v0=None, cut=False):
        if kind not in JOINT_KINDS:
            raise ModelError(f"joint '{name}': unknown kind {kind!r}; use one of {', '.join(JOINT_KINDS)}")
        unknown = set(options) - JOINT_KINDS[kind].options
        if unknown:
            allowed = sorted(JOINT_KINDS[kind].options | COMMON_OPTIONS)
            raise ModelError(f"joint '{name}' ({kind}): unknown option(s) {sorted(unknown)}; it takes {allowed}")
        self.name, self.kind, self.parent, self.child = name, kind, parent, child
        self.parent_pose, self.child_pose = parent_pose, child_pose
        self.options = options
        self.cut = bool(cut)
        self.primitives = JOINT_KINDS[kind].primitives(f"joint '{name}'", options)
        self.nq = sum(PRIMITIVES[p[0]].nq for p in self.primitives)
        self.nv = sum(PRIMITIVES[p[0]].nv for p in self.primitives)
        self.q0 = self._initial_q(q0)
        self.v0 = self._vector(v0, self.nv, "v0")

    def _vector(self, value, n, what):
        if value is None:
            return np.zeros(n)
        a = np.atleast_1d(np.asarray(value, dtype=float)).ravel()
        if a.size != n or not np.all(np.isfinite(a)):
            raise ModelError(f"joint '{self.name}' ({self.kind}): {what} must be {n} finite number(s), got {value!r}")
        return a

    def _initial_q(self, q0):
        """q0 in coordinate order; quaternions may be given as any rotation (SPEC §2) and are normalized."""
        parts = []
        items = self._split_q0(q0)
        for (ptype, _, _), item in zip(self.primitives, items):
            parts.append(PRIMITIVES[ptype].initial(item, f"joint '{self.name}' q0"))
        q = np.concatenate(parts) if parts else np.zeros(0)
        if not np.all(np.isfinite(q)):
            raise ModelError(f"joint '{self.name}': q0 must be finite, got {q0!r}")
        return q

    def _split_q0(self, q0):
        """One item per primitive from the user's flat q0 (a quaternion takes 4 numbers)."""
        n = len(self.primitives)
        if q0 is None:
            return [None] * n
        if self.kind == "spherical" and not (np.ndim(q0) == 1 and len(q0) == 4):
            return [q0]                     # a rotation matrix or euler dict
        if self.kind == "free" and isinstance(q0, dict):
            unknown = set(q0) - {"position", "rotation"}
            if unknown:
                raise ModelError(f"joint '{self.name}': free q0 dict takes 'position' and 'rotation', got {sorted(unknown)}")
            return [as_vector3(q0.get("position", (0, 0, 0)), f"joint '{self.name}' q0 position"), q0.get("rotation")]
        flat = np.atleast_1d(np.asarray(q0, dtype=float)).ravel()
        if flat.size != self.nq:
            raise ModelError(f"joint '{self.name}' ({self.kind}): q0 must have {self.nq} number(s), got {flat.size}")
        items, i = [], 0
        for ptype, _, _ in self.primitives:
            k = PRIMITIVES[ptype].nq
            items.append(flat[i:i + k] if k > 1 else (flat[i] if k else None))
            i += k
        return items

    def closure(self):
        """The rows that hold this joint when it is cut (JointKind.closure; topology.py keeps the kinds that
        cannot be cut in the spanning tree)."""
        return JOINT_KINDS[self.kind].closure(self.primitives)

    def coordinate_names(self):
        """(q names, v names): "j.q" for one coordinate, "j.q[i]" for several."""
        def names(letter, n):
            return [f"{self.name}.{letter}"] if n == 1 else [f"{self.name}.{letter}[{i}]" for i in range(n)]
        return names("q", self.nq), names("v", self.nv)


def primitive_of_coordinate(joint, coordinate, what):
    """Index of the primitive carrying a joint's velocity coordinate: one of a single coordinate, or a
    translation T (spherical ones refused)."""
    k = 0
    for index, (ptype, _, _) in enumerate(joint.primitives):
        n = PRIMITIVES[ptype].nv
        if k <= coordinate < k + n:
            if PRIMITIVES[ptype].quaternion:
                raise ModelError(f"{what}: coordinate {coordinate} of joint '{joint.name}' is part of a spherical "
                                 "(quaternion) primitive, which cannot be driven; use a gimbal joint instead")
            return index
        k += n
    raise AssertionError
