"""Fluid drag: the forces of a still or steadily blowing fluid on bodies moving through it, MuJoCo's
inertia-based model (MuJoCo documentation, Computation: Fluid forces, inertia-based model; mjModel's
``<option density viscosity wind>``).

Each body is taken as its equivalent inertia box: a box of the body's mass M with its principal moments
I_x, I_y, I_z about the principal axes has the half-sizes

    r_x = sqrt(3 / (2 M) (I_y + I_z - I_x)),  r_y, r_z likewise

(MuJoCo clamps each difference of moments to at least mjMINVAL = 1e-15, engine_passive.c). With v the
velocity of the body's COM relative to the wind and omega its angular velocity, both along the principal
axes, the fluid exerts at the COM, per axis i (j, k the other two):

    f_i = -6 pi beta r_eq v_i - 2 rho r_j r_k |v_i| v_i                        (force)
    g_i = -8 pi beta r_eq^3 omega_i - 1/2 rho r_i (r_j^4 + r_k^4) |omega_i| omega_i   (torque)

the viscous terms of the equivalent sphere r_eq = (r_x + r_y + r_z) / 3 at low Reynolds numbers (Stokes'
drag) plus the quadratic drag of the box at high ones; rho is the fluid's ``density`` (kg/m^3), beta its
dynamic ``viscosity`` (Pa s) and ``wind`` its velocity (m/s, world axes).

Where principal moments are equal the principal axes are not unique, and the quadratic terms depend on
the ones chosen: ``axes`` fixes them per body (the MJCF importer gives MuJoCo's ``body_iquat``).
"""
import numpy as np

from ...errors import ModelError
from ...spatial.rotations import as_rotation, as_vector3
from .base import ForceElement, ForceRow

MIN_DIFFERENCE = 1e-15       # kg m^2: MuJoCo's mjMINVAL, the least difference of moments in a half-size
COM, AXES, HALF, DENSITY, VISCOSITY, WIND = 0, 3, 12, 15, 16, 17      # params' columns


class FluidDrag(ForceElement):
    """Drag of a fluid of ``density`` and ``viscosity``, blowing at ``wind``, on ``bodies`` (default: every body
    of positive mass) (module docstring). One row per body that moves, a = its node, params: its COM and
    principal axes (rotation row by row) in node coordinates, its box's half-sizes, rho, beta and the wind."""
    kind = "fluid_drag"
    options = ("density", "viscosity", "wind", "bodies", "axes")
    _structural = (*ForceElement._structural, "bodies", "axes")

    def _configure(self, model, opts):
        what = self._what
        self.density, self.viscosity = self._number(opts, "density", 0.0), self._number(opts, "viscosity", 0.0)
        if self.density < 0 or self.viscosity < 0 or not (self.density > 0 or self.viscosity > 0):
            raise ModelError(f"{what}: density and viscosity must be >= 0 and one of them positive, got "
                             f"density={self.density:g}, viscosity={self.viscosity:g}")
        self.wind = as_vector3(opts.get("wind", (0, 0, 0)), f"{what} wind")
        bodies = opts.get("bodies")
        if bodies is not None:
            if isinstance(bodies, str) or not len(bodies) or len(set(bodies)) != len(bodies):
                raise ModelError(f"{what}: bodies must be a list of distinct body names, got {bodies!r}")
            for name in bodies:
                if model.body(name, what).mass <= 0:
                    raise ModelError(f"{what}: body '{name}' has no mass; a fluid acts on bodies of positive mass")
        self.bodies = None if bodies is None else tuple(bodies)
        axes = opts.get("axes") or {}
        if not isinstance(axes, dict):
            raise ModelError(f"{what}: axes must map body names to rotations (columns: the principal axes)")
        self.axes = {name: self._principal_axes(model.body(name, what), axes[name]) for name in axes}

    def _principal_axes(self, body, value):
        """The rotation ``value`` whose columns are principal axes of the body's inertia (body coordinates)."""
        R = as_rotation(value, f"{self._what} axes of '{body.name}'")
        J = R.T @ body.inertia @ R
        if np.abs(J - np.diag(np.diag(J))).max() > 1e-9 * max(np.trace(J), 1e-300):
            raise ModelError(f"{self._what}: the axes given for body '{body.name}' are not principal axes of its "
                             f"inertia (off-diagonal moments {J[0, 1]:.3g}, {J[0, 2]:.3g}, {J[1, 2]:.3g})")
        return R

    def moving_bodies(self, model):
        """The bodies it acts on."""
        return self.bodies or tuple(name for name, body in model.bodies.items() if body.mass > 0)

    def box(self, body):
        """(principal axes (columns, body coordinates), half-sizes r) of a body's equivalent inertia box."""
        if body.name in self.axes:
            R = self.axes[body.name]
            moments = np.diag(R.T @ body.inertia @ R)
        else:
            moments, R = np.linalg.eigh(body.inertia)
        differences = np.maximum(MIN_DIFFERENCE, moments.sum() - 2 * moments)       # I_y + I_z - I_x, ...
        return R, np.sqrt(1.5 / body.mass * differences)

    def force_rows(self, cm):
        for name in self.moving_bodies(cm.model):
            node, com = cm.body_point_in_node(name, cm.model.bodies[name].com)
            if node >= 0:
                R, half = self.box(cm.model.bodies[name])
                yield ForceRow(node, -1, (*com, *cm.body_direction_in_node(name, R).ravel(), *half,
                                          self.density, self.viscosity, *self.wind), ())

    @staticmethod
    def kernel(inline, point_state, apply_point_force, frame_axes, node_omega, dot, sub, along, **tools):
        @inline
        def fluid_drag(index, prm, u, q, v, R, p, vel, pA, tau):
            node = index[1]
            A = frame_axes(R, node, prm[AXES:AXES + 9])               # the principal axes, world
            x, xd = point_state(R, p, vel, node, prm[COM:COM + 3])
            rel, omega = sub(xd, prm[WIND:WIND + 3]), node_omega(vel, vel, node)[0]
            r, rho, beta = prm[HALF:HALF + 3], prm[DENSITY], prm[VISCOSITY]
            r_eq = (r[0] + r[1] + r[2]) / 3.0
            viscous_f, viscous_g = 6.0 * np.pi * beta * r_eq, 8.0 * np.pi * beta * r_eq ** 3
            v0, v1, v2 = dot(A[0], rel), dot(A[1], rel), dot(A[2], rel)              # along the principal axes
            w0, w1, w2 = dot(A[0], omega), dot(A[1], omega), dot(A[2], omega)
            f = (-(viscous_f + 2.0 * rho * r[1] * r[2] * abs(v0)) * v0,
                 -(viscous_f + 2.0 * rho * r[0] * r[2] * abs(v1)) * v1,
                 -(viscous_f + 2.0 * rho * r[0] * r[1] * abs(v2)) * v2)
            g = (-(viscous_g + 0.5 * rho * r[0] * (r[1] ** 4 + r[2] ** 4) * abs(w0)) * w0,
                 -(viscous_g + 0.5 * rho * r[1] * (r[0] ** 4 + r[2] ** 4) * abs(w1)) * w1,
                 -(viscous_g + 0.5 * rho * r[2] * (r[0] ** 4 + r[1] ** 4) * abs(w2)) * w2)
            apply_point_force(pA, node, x, along(A, f), 1.0)                       # at the COM
            torque = along(A, g)
            for i in range(3):
                pA[node, i] -= torque[i]
        return fluid_drag
