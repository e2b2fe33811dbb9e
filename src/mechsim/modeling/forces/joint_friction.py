"""Joint friction (SPEC §3): Coulomb friction on one coordinate of a joint, exact (stick and slip, a
lock row whose modes the run switches, simulation/hybrid) or regularized (a smooth force)."""
import numpy as np

from ...errors import ModelError
from ..primitives import PRIMITIVES
from .base import ForceElement, ForceRow, finite_number


class JointFriction(ForceElement):
    """Coulomb friction on one coordinate of a joint (force or torque levels): stuck, the coordinate is
    held by a constraint row while its force stays within ``static``; slipping, ``kinetic`` opposes
    the slip (Wood & Kennedy 2003 §6: joints that lock and unlock, resolved by a mode iteration).
    ``model="regularized"``: the smooth -kinetic v / sqrt(v^2 + slip_tolerance^2) instead, a force with
    no modes (it creeps under a load below the static level: at v = v_s r / sqrt(1 - r^2), r = load /
    kinetic).

    Friction from the joint's load, ``mu`` (mu_s = mu_k, or [mu_s, mu_k]): the levels grow by mu times
    the reaction the joint transmits across its axis, |F_perp| for a prismatic guide and ``radius`` x
    |F_perp| for a revolute pin of that radius (the radial load on the pin; its axial load and the
    reaction moments are left out), on top of the constant ``static`` and ``kinetic``. The reaction
    depends on the friction itself while slipping: the dynamics solve the two together (a fixed-point
    iteration, dynamics/multipliers.py)."""
    kind = "joint_friction"
    options = ("joint", "static", "kinetic", "coordinate", "model", "slip_tolerance", "mu", "radius")
    signals = ("force", "mode")

    def _configure(self, model, opts):
        self._joint_coordinate(model, opts)
        what = self._what
        self.static, self.kinetic = self._number(opts, "static", 0.0), self._number(opts, "kinetic", opts.get("static", 0.0))
        if not 0 <= self.kinetic <= self.static:
            raise ModelError(f"{what}: need 0 <= kinetic <= static, got static={self.static:g}, kinetic={self.kinetic:g}")
        self.model = opts.get("model", "exact")
        if self.model not in ("exact", "regularized"):
            raise ModelError(f"{what}: model must be 'exact' (stick and slip) or 'regularized', got {self.model!r}")
        self._friction_from_load(model, opts)
        self.slip_tolerance = self._number(opts, "slip_tolerance", 1e-3)
        if self.model == "exact" and "slip_tolerance" in opts or not self.slip_tolerance > 0:
            raise ModelError(f"{what}: slip_tolerance (> 0) is for model='regularized'")

    def _friction_from_load(self, model, opts):
        """mu_static, mu_kinetic and radius (the class docstring)."""
        what = self._what
        mu = opts.get("mu", 0.0)
        mu = list(mu) if isinstance(mu, (list, tuple, np.ndarray)) else [mu, mu]
        if len(mu) != 2:
            raise ModelError(f"{what}: mu must be one coefficient or [static, kinetic], got {opts.get('mu')!r}")
        self.mu_static, self.mu_kinetic = (finite_number({"mu": x}, "mu", 0.0, what) for x in mu)
        if not 0 <= self.mu_kinetic <= self.mu_static:
            raise ModelError(f"{what}: need 0 <= kinetic <= static friction coefficients, got mu={opts.get('mu')!r}")
        load_friction = PRIMITIVES[model.joint(self.joint, what).primitives[self.primitive][0]].load_friction
        rotational = load_friction == "pin"
        self.radius = self._number(opts, "radius", 0.0) if rotational else 1.0
        if "radius" in opts and not rotational:
            raise ModelError(f"{what}: radius= is the pin radius of a revolute coordinate; a prismatic guide's "
                             "friction is mu times its transverse load")
        if self.mu_static > 0 and rotational and not self.radius > 0:
            raise ModelError(f"{what}: mu= on a revolute coordinate needs the pin's radius= (> 0)")
        if self.mu_static > 0 and not (self.exact and load_friction):
            raise ModelError(f"{what}: mu= (friction from the joint's load) needs model='exact' on a revolute or "
                             "prismatic coordinate")

    @property
    def exact(self):
        return self.model == "exact"

    @property
    def loaded(self):
        """Whether its levels grow with the joint's reaction (``mu`` given)."""
        return self.mu_static > 0

    def force_rows(self, cm):
        if not self.exact:
            yield ForceRow(cm.coordinate_slot(self)[2], -1, (self.kinetic, self.slip_tolerance), ())

    def constraint_rows(self, rows):
        if self.exact:                                  # q = where it stuck (a target), while stuck
            rows.coordinate_row(self, ("lock", self.name, "lock"))

    @staticmethod
    def kernel(inline, **tools):
        @inline
        def regularized_friction(index, prm, u, q, v, R, p, vel, pA, tau):
            """Params (F_k, v_s): Coulomb's -F_k sign(v), smoothed over the slip tolerance v_s:
            -F_k v / sqrt(v^2 + v_s^2)."""
            a = index[1]
            tau[a] += -prm[0] * v[a] / np.sqrt(v[a] * v[a] + prm[1] * prm[1])
        return regularized_friction

    def signal(self, result, quantity):
        """force: (N,) friction force on its coordinate (the lock row's multiplier while stuck, the kinetic
        force the run applied while slipping; a regularized friction's smooth force); mode: 1 slipping,
        2 stuck (its lock row takes part; a regularized friction: slower than its slip tolerance)."""
        vi = result.compiled.coordinate_slot(self)[2]
        if not self.exact:
            if quantity == "mode":
                return np.where(np.abs(result.v[:, vi]) > self.slip_tolerance, 1, 2)
            return result.element_forces(self)[1][:, vi]
        if quantity == "mode":
            return np.full(len(result.t), 2 if result.holds(("lock", self.name, "lock")) else 1)
        return result.multipliers(("lock", self.name))[:, 0] + result.tau[:, vi]
