"""Visualization of results: signal plots (matplotlib, optional dependency ``mechsim[plot]``) and
animations (web page, GIF, MP4)."""
from .animate import animate
from .plot import plot

__all__ = ["animate", "plot"]
