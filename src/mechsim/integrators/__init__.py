"""Integrators: scipy's adaptive family (one OdeSolver class each) and compiled fixed-step Euler/RK4."""
from .adaptive import ADAPTIVE_METHODS, integrate_adaptive
from .fixed_step import FIXED_METHODS, integrate_fixed

SOLVERS = tuple(ADAPTIVE_METHODS) + tuple(FIXED_METHODS)

__all__ = ["ADAPTIVE_METHODS", "FIXED_METHODS", "SOLVERS", "integrate_adaptive", "integrate_fixed"]
