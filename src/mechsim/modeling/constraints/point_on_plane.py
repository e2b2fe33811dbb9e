"""Point on plane (SPEC §3): a point of body_b stays on the plane through a point of body_a with unit
``normal`` (body_a's coordinates): x_b - x_a has no component along the normal, one row."""
from .base import BetweenPoints


class PointOnPlane(BetweenPoints):
    kind = "point_on_plane"
    axis = ("normal", (0, 0, 1))
