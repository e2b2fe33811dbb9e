"""Point on line (SPEC §3): a point of body_b stays on the line through a point of body_a along
``direction`` (body_a's coordinates): x_b - x_a has no component across the line, two rows, along two
directions perpendicular to it."""
from ..joints import plane_axes
from .base import BetweenPoints


class PointOnLine(BetweenPoints):
    kind = "point_on_line"
    axis = ("direction", (1, 0, 0))

    def directions(self):
        return plane_axes(self.direction)
