"""Analyses: kinematics, trim, linearize, check; results (Result, the joined JoinedResult) and states."""
from .linearize import Linearization
from .result import Result
from .state import State

__all__ = ["Linearization", "Result", "State"]
