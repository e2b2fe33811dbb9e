"""Distance (SPEC §3): two body points at a distance, a number or a motion of time."""
from ...errors import ModelError
from ..forces.base import Source
from .base import BetweenPoints
from .motion import Motion


class Distance(BetweenPoints):
    """|x_b - x_a| = length(t): one row."""
    kind = "distance"
    options = (*BetweenPoints.options, "length")

    def _configure(self, model, opts):
        super()._configure(model, opts)
        if "length" not in opts:
            raise ModelError(f"{self.what}: missing length= (a number, a function of t or an expression)")
        self.length = Motion(Source(opts["length"], f"{self.what} length"), None, None, self.what,
                             quantities=("length", "rate of the length", "second derivative of the length"))
        if self.length.is_constant and not self.length.constant > 0:
            raise ModelError(f"{self.what}: length must be positive (for coincident points use point_coincident)")

    def constraint_rows(self, rows):
        (na, PA), (nb, PB) = self.points_in_nodes(rows.cm)
        rows.distance(na, nb, self.owner(0), PA, PB, self.length)
