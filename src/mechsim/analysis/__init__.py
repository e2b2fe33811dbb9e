"""Analyses: simulate (forward dynamics), kinematics, trim, linearize, check; results and states."""
from .linearize import Linearization
from .result import Result
from .state import State

__all__ = ["Linearization", "Result", "State"]
