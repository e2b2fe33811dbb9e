"""Joint limit (SPEC §3): a stop on one coordinate of a joint, rigid (a unilateral constraint row whose
modes the run switches, simulation/hybrid) or compliant (a force)."""
from ...errors import ModelError
from .base import MIN_BOUNCE_SPEED, ForceElement, ForceRow


class JointLimit(ForceElement):
    """A stop on one coordinate of a joint (R, P or H primitive): ``lower`` and/or ``upper``. Rigid
    (default): a unilateral constraint row; reaching a stop with approach speed v_n rebounds with
    ``restitution`` e (Newton's law, an impulse through Lambda = G M^-1 G^T), and the stop stays
    closed when e v_n < ``min_bounce_speed``, until its force would pull. Compliant (``stiffness``
    given): tau = -k d - c d' on the penetration d > 0, never pulling."""
    kind = "joint_limit"
    options = ("joint", "lower", "upper", "restitution", "stiffness", "damping", "coordinate", "min_bounce_speed")
    signals = ("force",)

    def _configure(self, model, opts):
        self._joint_coordinate(model, opts)
        what, number = self._what, lambda key, default: self._number(opts, key, default)
        self.lower = None if opts.get("lower") is None else number("lower", 0.0)
        self.upper = None if opts.get("upper") is None else number("upper", 0.0)
        if self.lower is None and self.upper is None:
            raise ModelError(f"{what}: give lower=, upper= or both")
        if self.lower is not None and self.upper is not None and not self.lower < self.upper:
            raise ModelError(f"{what}: lower ({self.lower:g}) must be below upper ({self.upper:g})")
        self.stiffness = None if opts.get("stiffness") is None else number("stiffness", 0.0)
        self.damping = number("damping", 0.0)
        self.restitution = number("restitution", 0.0)
        self.min_bounce_speed = number("min_bounce_speed", MIN_BOUNCE_SPEED)
        if self.stiffness is not None and not self.stiffness > 0:
            raise ModelError(f"{what}: stiffness must be positive, got {self.stiffness:g}")
        if self.damping < 0 or (self.stiffness is None and self.damping > 0):
            raise ModelError(f"{what}: damping must be >= 0 and needs stiffness= (a compliant stop)")
        if not 0 <= self.restitution <= 1:
            raise ModelError(f"{what}: restitution must be in [0, 1], got {self.restitution:g}")
        if self.stiffness is not None and "restitution" in opts:
            raise ModelError(f"{what}: restitution is for rigid stops; a compliant stop takes stiffness= and damping=")
        if self.min_bounce_speed < 0:
            raise ModelError(f"{what}: min_bounce_speed must be >= 0")

    @property
    def rigid(self):
        return self.stiffness is None

    def stops(self):
        """(side, value, sign) of each stop: sign +1 for lower (the stop pushes q up), -1 for upper."""
        return [(side, value, sign) for side, value, sign in (("lower", self.lower, 1.0), ("upper", self.upper, -1.0))
                if value is not None]

    def force_rows(self, cm):
        if not self.rigid:
            _, qi, vi = cm.coordinate_slot(self)
            yield ForceRow(vi, qi, (self.stiffness, self.damping, self.lower or 0.0, self.upper or 0.0,
                                    self.lower is not None, self.upper is not None), ())

    def constraint_rows(self, rows):
        if self.rigid:                                  # q = the stop's value, while closed
            for side, value, _ in self.stops():
                rows.coordinate_row(self, ("limit", self.name, side), C0=value)

    @staticmethod
    def kernel(inline, **tools):
        @inline
        def joint_stop(index, prm, u, q, v, R, p, vel, pA, tau):
            """A compliant stop, params (k, c, lower, upper, has lower, has upper): -k d - c d' on the
            penetration d past a stop, clipped so that the stop pushes and never pulls (Hunt & Crossley
            1975's requirement that the contact force vanish as it separates)."""
            a, qa = index[1], q[index[2]]
            k, c, va = prm[0], prm[1], v[a]
            if prm[5] != 0.0 and qa > prm[3]:
                tau[a] += min(0.0, -k * (qa - prm[3]) - c * va)
            elif prm[4] != 0.0 and qa < prm[2]:
                tau[a] += max(0.0, k * (prm[2] - qa) - c * va)
        return joint_stop

    def signal(self, result, quantity):
        """force: (N,) generalized force on its coordinate: a rigid stop's multipliers (its rows are
        q - value, G = +1 on the coordinate), a compliant stop's spring-damper force."""
        if self.rigid:
            return result.multipliers(("limit", self.name)).sum(axis=1)
        return result.element_forces(self)[1][:, result.compiled.coordinate_slot(self)[2]]
