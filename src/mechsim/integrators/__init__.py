"""Integrators: scipy's adaptive family (one OdeSolver class each), the compiled adaptive
Dormand–Prince loop and compiled fixed-step Euler/RK4."""
from .adaptive import ADAPTIVE_METHODS, integrate_adaptive
from .dopri import integrate_compiled
from .fixed_step import FIXED_METHODS, integrate_fixed

SOLVERS = tuple(ADAPTIVE_METHODS) + tuple(FIXED_METHODS)

__all__ = ["ADAPTIVE_METHODS", "FIXED_METHODS", "SOLVERS", "integrate_adaptive", "integrate_compiled",
           "integrate_fixed"]
