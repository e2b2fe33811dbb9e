"""Point on plane (SPEC §3): a point of body_b stays on the plane through a point of body_a with unit
``normal`` (body_a's coordinates)."""
from .base import BetweenPoints


class PointOnPlane(BetweenPoints):
    """x_b - x_a has no component along the normal: one row."""
    kind = "point_on_plane"
    options = ("body_a", "point_a", "normal", "body_b", "point_b")
    axis = ("normal", (0, 0, 1))

    def directions(self):
        return (self.normal,)
