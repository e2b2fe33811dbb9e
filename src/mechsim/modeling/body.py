"""Rigid bodies: mass properties about the center of mass and named frames (SPEC §2)."""
import numpy as np

from ..errors import ModelError
from ..spatial.rotations import as_pose, as_vector3
from .element import Element
from .geometry import read_geometry

MAX_MASS = 1e100      # kg, kg m^2: beyond, the forces and reactions computed with it overflow


# Principal moments I = SECOND_MOMENTS s of a mass distribution with second moments s = (Sxx, Syy, Szz) >= 0 along
# the principal axes (Ixx = Syy + Szz, ...): the rigid bodies' moments are the cone of these (triangle inequality)
SECOND_MOMENTS = np.ones((3, 3)) - np.eye(3)


def inertia_matrix(value, body, check=True):
    """3x3 inertia about the COM from 3 numbers (diagonal), 6 numbers (Ixx, Iyy, Izz, Ixy, Ixz, Iyz) or 3x3;
    one no rigid body has is refused unless ``check`` is False."""
    a = np.asarray(value, dtype=float)
    if a.shape == (3,):
        J = np.diag(a)
    elif a.shape == (6,):
        Ixx, Iyy, Izz, Ixy, Ixz, Iyz = a
        J = np.array([[Ixx, Ixy, Ixz], [Ixy, Iyy, Iyz], [Ixz, Iyz, Izz]])
    elif a.shape == (3, 3):
        J = a
    else:
        raise ModelError(f"body '{body}': inertia must be 3 numbers, 6 numbers (Ixx, Iyy, Izz, Ixy, Ixz, Iyz) "
                         f"or a 3x3 matrix, got shape {a.shape}")
    if not np.all(np.isfinite(J)) or not np.allclose(J, J.T, rtol=1e-9, atol=1e-12):
        raise ModelError(f"body '{body}': inertia must be a finite symmetric tensor")
    problem = inertia_problem(J) if check else None
    if problem is not None:
        hint = ("check the signs of the products of inertia (SPEC §2 takes the tensor entries, not their negatives)"
                if "positive definite" in problem else "no rigid body has this inertia")
        raise ModelError(f"body '{body}': {problem}; {hint} (add_body(..., check_inertia=False) takes it as given)")
    return J


def inertia_problem(J):
    """Why the symmetric J is no rigid body's inertia about its COM (a phrase), or None; to within rounding:
    1e-9 max(1 kg m^2, its largest principal moment)."""
    moments = np.linalg.eigvalsh(J)
    tol = 1e-9 * max(1.0, moments[-1])
    if moments[0] < -tol:
        return f"inertia is not positive definite (principal moments {moments.tolist()})"
    if moments[0] + moments[1] < moments[2] - tol:
        return f"principal moments {moments.tolist()} violate the triangle inequality I1 + I2 >= I3"
    return None


def physical_inertia(J):
    """The rigid body's inertia nearest the symmetric J in the Frobenius norm: J's principal axes with its principal
    moments projected on the cone SECOND_MOMENTS s, s >= 0 (non-negative least squares). No inertia is nearer: for
    any B, ||J - B|| >= the distance between the spectra of J and B, matched in some order (A. J. Hoffman and
    H. W. Wielandt, The variation of the spectrum of a normal matrix, Duke Math. J. 20, 1953), and the cone holds
    the rigid bodies' moments in every order."""
    from scipy.optimize import nnls               # here: importing mechsim stays light (tests/cli/test_startup_imports.py)
    moments, axes = np.linalg.eigh(J)
    s, _ = nnls(SECOND_MOMENTS, moments)
    return (axes * (SECOND_MOMENTS @ s)) @ axes.T


class Body(Element):
    """A rigid body: ``mass``, ``com`` (body frame), ``inertia`` (3x3 about the COM, body axes), named
    ``frames``, ``geometry`` as given and ``shapes``, the geometry read (modeling/geometry.py)."""
    _noun, _section = "body", "bodies"
    signals = ("position", "rotation", "quat", "velocity", "omega", "acceleration")   # SPEC §2, results/result.py

    def _arguments(self):
        return ("mass", "com", "inertia", "frames", "geometry", "check_inertia")

    def _fixed(self):
        return set(self._arguments()) if self.name == "ground" else super()._fixed()

    def _rebuild_hint(self):
        return ("the ground is the fixed world frame; name frames on it with model.add_frame('ground', name, pose)"
                if self.name == "ground" else super()._rebuild_hint())

    def __init__(self, name, mass=0.0, com=(0, 0, 0), inertia=(0, 0, 0), frames=None, geometry=None,
                 check_inertia=True):
        self.name = name
        try:
            self.mass = float(mass)
        except (TypeError, ValueError):
            raise ModelError(f"body '{name}': mass must be a number, got {mass!r}") from None
        if not 0 <= self.mass <= MAX_MASS:
            raise ModelError(f"body '{name}': mass must be non-negative and at most {MAX_MASS:g}, got {mass!r}")
        self.com = as_vector3(com, f"body '{name}' com")
        self.check_inertia = bool(check_inertia)
        self.inertia = inertia_matrix(inertia, name, self.check_inertia)
        if np.max(np.abs(self.inertia)) > MAX_MASS:
            raise ModelError(f"body '{name}': inertia entries must be at most {MAX_MASS:g}, got {inertia!r}")
        self.frames = {}
        if frames is not None and not isinstance(frames, dict):
            raise ModelError(f"body '{name}': frames must map frame names to poses, got {frames!r}")
        for fname, pose in (frames or {}).items():
            self._add_frame(fname, pose)
        self._shapes = read_geometry(geometry, f"body '{name}'")
        self.geometry = geometry

    def add_frame(self, name, pose):
        """Name a frame on the body; once the body is in a model, the same as ``model.add_frame``."""
        if self._model is not None:
            return self._model.add_frame(self.name, name, pose)
        self._add_frame(name, pose)

    def _add_frame(self, name, pose):
        if name in self.frames:
            raise ModelError(f"body '{self.name}': duplicate frame name '{name}'")
        self._store("frames", {**self.frames, name: as_pose(pose, f"body '{self.name}' frame '{name}'")})

    @property
    def shapes(self):
        """The geometry as Shapes (modeling/geometry.py), in the body frame."""
        return self._shapes

    def resolve_frame(self, spec, what):
        """(position, rotation) in body coordinates of a frame name, position or (position, rotation)."""
        if isinstance(spec, str):
            if spec not in self.frames:
                raise ModelError(f"{what}: body '{self.name}' has no frame '{spec}' "
                                 f"(its frames: {sorted(self.frames) or 'none'})")
            return self.frames[spec]
        return as_pose(spec, what)
