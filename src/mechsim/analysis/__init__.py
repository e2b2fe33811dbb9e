"""Analyses: simulate (forward dynamics), check (topology report); results and states."""
from .result import EventRecord, Result
from .state import State

__all__ = ["EventRecord", "Result", "State"]
