"""Fixed tendon (MuJoCo's ``<tendon><fixed>``, XML reference "tendon/fixed"): a spring-damper on the length
L = sum_i c_i q_i, a linear combination of the coordinates of one-coordinate joints (``joints``: joint name
-> coefficient c_i). Its tension

    f = -k x - b L',   x = L - high if L > high, L - low if L < low, else 0

(``stiffness`` k, ``damping`` b; ``rest_length`` one length, or (low, high): a dead band where the spring is
slack, MuJoCo's ``springlength``) acts on every joint as the generalized force tau_i = c_i f, the tendon's
Jacobian transposed (MuJoCo documentation, Computation: passive forces; engine_passive.c mj_springdamper)."""
import numpy as np

from ...errors import ModelError
from ..joints import combination_terms, linear_combination
from .base import ForceElement, ForceRow

STIFFNESS, DAMPING, LOW, HIGH, COUNT, TERMS = 0, 1, 2, 3, 4, 5       # params' columns; TERMS: (q, v, c) per joint


class FixedTendon(ForceElement):
    """A spring-damper on a linear combination of joint coordinates (module docstring); one row, params
    (k, b, low, high, number of joints, then q index, v index and coefficient of each)."""
    kind = "fixed_tendon"
    options = ("joints", "stiffness", "damping", "rest_length")
    _structural = (*ForceElement._structural, "joints")
    signals = ("length", "force")

    def _configure(self, model, opts):
        what = self._what
        self.joints = linear_combination(model, self._need(opts, "joints"), what, "joints")
        self.stiffness, self.damping = self._number(opts, "stiffness", 0.0), self._number(opts, "damping", 0.0)
        if self.stiffness < 0 or self.damping < 0:
            raise ModelError(f"{what}: stiffness and damping must be >= 0")
        rest = opts.get("rest_length")
        if rest is None:                                        # the length at q0
            rest = sum(c * model.joints[name].q0[0] for name, c in self.joints.items())
        try:
            band = np.atleast_1d(np.asarray(rest, dtype=float)).ravel()
        except (TypeError, ValueError):
            band = np.array([np.nan])
        if band.size not in (1, 2) or not np.all(np.isfinite(band)) or band[0] > band[-1]:
            raise ModelError(f"{what}: rest_length must be a length or (low, high) with low <= high, got {rest!r}")
        self.rest_length = (float(band[0]), float(band[-1]))

    @property
    def joints_used(self):
        return tuple(self.joints)

    def force_rows(self, cm):
        yield ForceRow(-1, -1, (self.stiffness, self.damping, *self.rest_length, len(self.joints),
                                *combination_terms(cm, self.joints)), ())

    @staticmethod
    def kernel(inline, **tools):
        @inline
        def fixed_tendon(index, prm, u, q, v, R, p, vel, pA, tau):
            length = rate = 0.0
            n = int(prm[COUNT])
            for k in range(n):
                c = prm[TERMS + 3 * k + 2]
                length += c * q[int(prm[TERMS + 3 * k])]
                rate += c * v[int(prm[TERMS + 3 * k + 1])]
            stretch = length - prm[HIGH] if length > prm[HIGH] else length - prm[LOW] if length < prm[LOW] else 0.0
            tension = -prm[STIFFNESS] * stretch - prm[DAMPING] * rate
            for k in range(n):
                tau[int(prm[TERMS + 3 * k + 1])] += prm[TERMS + 3 * k + 2] * tension
        return fixed_tendon

    def signal(self, result, quantity):
        """length (N,): L = sum c_i q_i; force (N,): the tension f (N for lengths in m)."""
        cm = result.compiled
        length = sum(c * result.q[:, cm.joint_q[name].start] for name, c in self.joints.items())
        if quantity == "length":
            return length
        rate = sum(c * result.v[:, cm.joint_v[name].start] for name, c in self.joints.items())
        low, high = self.rest_length
        return -self.stiffness * (length - np.clip(length, low, high)) - self.damping * rate
