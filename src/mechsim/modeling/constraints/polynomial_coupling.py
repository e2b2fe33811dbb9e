"""Polynomial coupling (MuJoCo's ``<equality joint>`` and ``<equality tendon>``, XML reference "equality/joint",
"equality/tendon"): two linear combinations of joint coordinates y and x related by a quartic,

    y - y0 = a0 + a1 (x - x0) + a2 (x - x0)^2 + a3 (x - x0)^3 + a4 (x - x0)^4,

where ``y`` and ``x`` are each a joint name (its coordinate) or {joint name: coefficient} (a fixed tendon's
length sum c_i q_i), ``coefficients`` = (a0, ..., a4) (fewer: the rest 0; default (0, 1)) and ``y0``, ``x0`` the
reference values (default: y and x at the joints' q0). Without ``x``, y = y0 + a0. One row (dynamics/constraints.py
polynomial_row): its velocity term is exact, hddot = G qdd - P''(x - x0) xdot^2."""
import numpy as np

from ...errors import ModelError
from ..joints import combination_terms, linear_combination
from .base import Constraint, finite


class PolynomialCoupling(Constraint):
    """y - y0 = a0 + a1 (x - x0) + ... + a4 (x - x0)^4 over linear combinations of joint coordinates (module
    docstring): one row."""
    kind = "polynomial_coupling"
    options = ("y", "x", "coefficients", "y0", "x0")
    _structural = ("y", "x")

    def _configure(self, model, opts):
        if "y" not in opts:
            raise ModelError(f"{self.what}: missing y= (a joint name, or {{joint name: coefficient}})")
        self.y = linear_combination(model, opts["y"], self.what, "y")
        self.x = {} if opts.get("x") is None else linear_combination(model, opts["x"], self.what, "x")
        try:
            a = np.asarray(opts.get("coefficients", (0.0, 1.0)), dtype=float).ravel()
        except (TypeError, ValueError):
            a = np.array([np.nan])
        if not 1 <= a.size <= 5 or not np.all(np.isfinite(a)):
            raise ModelError(f"{self.what}: coefficients must be 1 to 5 finite numbers (a0, ..., a4), "
                             f"got {opts.get('coefficients')!r}")
        self.coefficients = tuple(np.pad(a, (0, 5 - a.size)).tolist())
        at_q0 = lambda combination: sum(c * model.joints[name].q0[0] for name, c in combination.items())
        self.y0 = at_q0(self.y) if opts.get("y0") is None else finite(opts["y0"], f"{self.what} y0")
        self.x0 = at_q0(self.x) if opts.get("x0") is None else finite(opts["x0"], f"{self.what} x0")

    @property
    def joints_used(self):
        return (*self.y, *(name for name in self.x if name not in self.y))

    def constraint_rows(self, rows):
        rows.polynomial(self.owner(0), combination_terms(rows.cm, self.y), combination_terms(rows.cm, self.x),
                        self.coefficients, self.y0, self.x0)
