"""Point on line (SPEC §3): a point of body_b stays on the line through a point of body_a along
``direction`` (body_a's coordinates)."""
from ..joints import plane_axes
from .base import BetweenPoints


class PointOnLine(BetweenPoints):
    """x_b - x_a has no component across the line: two rows, along two directions perpendicular to it."""
    kind = "point_on_line"
    options = ("body_a", "point_a", "direction", "body_b", "point_b")
    axis = ("direction", (1, 0, 0))

    def directions(self):
        return plane_axes(self.direction)
