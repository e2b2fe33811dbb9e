"""Bushing (Simscape Multibody's Bushing Force, a spatial spring): a linear spring-damper on every one of
the six coordinates of frame B (on ``body_b``) relative to frame A (on ``body_a``), measured as the
bushing joint measures them (SPEC §2: its translation first, then rotations about x, y, z, each about
the axes the previous ones turned):

- the translation r = R_A^T (x_B - x_A), B's origin in A's axes;
- the angles theta = (theta_x, theta_y, theta_z) of R_A^T R_B = Rx(theta_x) Ry(theta_y) Rz(theta_z)
  (intrinsic X-Y-Z; singular where cos theta_y = 0, a gimbal's lock: a bushing's rotations stay small).

It is relaxed where the frames coincide. ``stiffness`` = (k_x, k_y, k_z, k_rx, k_ry, k_rz) and ``damping`` likewise
(N/m, N m/rad; N s/m, N m s/rad) give K_t, K_r, C_t, C_r. Its generalized forces f = -K_t r - C_t r' and
tau = -K_r theta - C_r theta' act on B, and their reaction on A, as a force and a torque in world axes:
F = R_A f at B's origin, and T = R_A E^-T tau, where E maps the angle rates to the relative angular
velocity in A's axes, omega_BA = E(theta) theta' (the torque whose power T . omega_BA is tau . theta').
With the damping zero it is conservative, V = 1/2 (r^T K_t r + theta^T K_r theta).
"""
import numpy as np

from ...errors import ModelError
from .base import ForceElement, ForceRow

FRAME_A, ORIGIN_A, FRAME_B, ORIGIN_B, K_T, C_T, K_R, C_R = 0, 9, 12, 21, 24, 27, 30, 33   # params' columns


def xyz_angles(R):
    """The angles (x, y, z) of R = Rx(x) Ry(y) Rz(z): R[0, 2] = sin y, R[1, 2] = -sin x cos y,
    R[2, 2] = cos x cos y, R[0, 1] = -cos y sin z, R[0, 0] = cos y cos z."""
    return (np.arctan2(-R[..., 1, 2], R[..., 2, 2]), np.arcsin(np.clip(R[..., 0, 2], -1.0, 1.0)),
            np.arctan2(-R[..., 0, 1], R[..., 0, 0]))


class Bushing(ForceElement):
    """A 6-DOF linear spring-damper between frame A on ``body_a`` and frame B on ``body_b`` (module
    docstring). One row, a and b the bodies' nodes, params: the frames in node coordinates (rotation row
    by row, origin) and the gains (columns above)."""
    kind = "bushing"
    options = ("body_a", "frame_a", "body_b", "frame_b", "stiffness", "damping")
    signals = ("translation", "angles", "force", "torque")

    def _configure(self, model, opts):
        what = self._what
        body_a, body_b = model.body(self._need(opts, "body_a"), what), model.body(self._need(opts, "body_b"), what)
        if body_a is body_b:
            raise ModelError(f"{what}: body_a and body_b are the same body '{body_a.name}'")
        self.body_a, self.body_b = body_a.name, body_b.name
        self.frame_a = body_a.resolve_frame(opts.get("frame_a"), f"{what} frame_a")
        self.frame_b = body_b.resolve_frame(opts.get("frame_b"), f"{what} frame_b")
        for key in ("stiffness", "damping"):
            try:
                gains = np.asarray(opts.get(key, (0.0,) * 6), dtype=float).reshape(6)
            except (TypeError, ValueError):
                gains = None
            if gains is None or not np.all(np.isfinite(gains)) or np.any(gains < 0):
                raise ModelError(f"{what}: {key} must be 6 numbers >= 0 (x, y, z, rx, ry, rz: translations along "
                                 f"frame_a's axes, then its angles), got {opts.get(key)!r}")
            setattr(self, key, gains)

    def force_rows(self, cm):
        (na, Ra, pa), (nb, Rb, pb) = (self._frame_in_node(cm, body, frame) for body, frame in
                                      ((self.body_a, self.frame_a), (self.body_b, self.frame_b)))
        yield ForceRow(na, nb, (*Ra.ravel(), *pa, *Rb.ravel(), *pb, *self.stiffness[:3], *self.damping[:3],
                                *self.stiffness[3:], *self.damping[3:]), ())

    @staticmethod
    def _frame_in_node(cm, body, frame):
        """(node, rotation, origin) of a body frame (position, rotation) in its node's coordinates."""
        position, rotation = frame
        node, origin = cm.body_point_in_node(body, position)
        return node, cm.body_direction_in_node(body, rotation), origin

    @staticmethod
    def kernel(inline, point_state, apply_point_force, material_velocity, frame_axes, node_omega, dot, sub, along,
               **tools):
        @inline
        def bushing_force(index, prm, u, q, v, R, p, vel, pA, tau):
            a, b = index[1], index[2]
            A = frame_axes(R, a, prm[FRAME_A:FRAME_A + 9])             # world axes of frames A and B
            B = frame_axes(R, b, prm[FRAME_B:FRAME_B + 9])
            xa, _ = point_state(R, p, vel, a, prm[ORIGIN_A:ORIGIN_A + 3])
            xb, vb = point_state(R, p, vel, b, prm[ORIGIN_B:ORIGIN_B + 3])
            dx = sub(xb, xa)
            dv = sub(vb, material_velocity(vel, a, xb))                # B's origin relative to A's material point
            dw = sub(node_omega(vel, vel, b)[0], node_omega(vel, vel, a)[0])
            # R_BA = A^T B: its entries (0,0), (0,1), (0,2), (1,2), (2,2) give the angles (xyz_angles)
            r00, r01, r02, r12, r22 = dot(A[0], B[0]), dot(A[0], B[1]), dot(A[0], B[2]), dot(A[1], B[2]), dot(A[2], B[2])
            tx, ty, tz = np.arctan2(-r12, r22), np.arcsin(min(1.0, max(-1.0, r02))), np.arctan2(-r01, r00)
            sx, cx, sy, cy = np.sin(tx), np.cos(tx), np.sin(ty), np.cos(ty)
            # theta' = E^-1 omega_BA, E = [e_x, Rx e_y, Rx Ry e_z] = [[1, 0, sy], [0, cx, -sx cy], [0, sx, cx cy]]
            w0, w1, w2 = dot(A[0], dw), dot(A[1], dw), dot(A[2], dw)
            dty, dtz = cx * w1 + sx * w2, (-sx * w1 + cx * w2) / cy
            dtx = w0 - sy * dtz
            g0 = -prm[K_R] * tx - prm[C_R] * dtx                          # the generalized torques on theta
            g1 = -prm[K_R + 1] * ty - prm[C_R + 1] * dty
            g2 = -prm[K_R + 2] * tz - prm[C_R + 2] * dtz
            h = (g2 - sy * g0) / cy                                      # T = E^-T g, in A's axes
            torque = along(A, (g0, cx * g1 - sx * h, sx * g1 + cx * h))
            force = along(A, (-prm[K_T] * dot(A[0], dx) - prm[C_T] * dot(A[0], dv),
                              -prm[K_T + 1] * dot(A[1], dx) - prm[C_T + 1] * dot(A[1], dv),
                              -prm[K_T + 2] * dot(A[2], dx) - prm[C_T + 2] * dot(A[2], dv)))
            apply_point_force(pA, b, xb, force, 1.0)                     # on B at its origin, the reaction on A
            apply_point_force(pA, a, xb, force, -1.0)
            for i in range(3):
                if b >= 0:
                    pA[b, i] -= torque[i]
                if a >= 0:
                    pA[a, i] += torque[i]
        return bushing_force

    def signal(self, result, quantity):
        """translation (N, 3): r in A's axes; angles (N, 3): theta (rad); force and torque (N, 3): what it
        exerts on body_b, world axes, the torque about frame B's origin."""
        (Ra, xa), (Rb, xb) = (result.frame(body, frame) for body, frame in
                              ((self.body_a, self.frame_a), (self.body_b, self.frame_b)))
        if quantity == "translation":
            return np.einsum("nji,nj->ni", Ra, xb - xa)
        if quantity == "angles":
            return np.stack(xyz_angles(np.einsum("nji,njk->nik", Ra, Rb)), axis=1)
        pA = result.element_forces(self)[0]
        node, sign = result.compiled.body_node_of(self.body_b), -1.0
        if node < 0:                                           # B on the ground: A feels the reaction
            node, sign = result.compiled.body_node_of(self.body_a), 1.0
        moment, force = sign * pA[:, node, :3], sign * pA[:, node, 3:]
        if quantity == "force":
            return force
        return moment - np.cross(result.relative(xb), force)      # about B's origin, not the reference point
