"""Visualization of results: signal plots (matplotlib, optional dependency ``mechsim[plot]``)."""
from .plot import plot

__all__ = ["plot"]
