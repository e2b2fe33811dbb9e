"""A point of the body (shape="point", the default): one contact point at ``point``."""
from .base import Shape


class Point(Shape):
    kind = "point"
