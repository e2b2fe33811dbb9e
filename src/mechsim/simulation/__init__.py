"""Simulation: the run driver, its options, events and the mechanics as an integrator problem."""
from .events import Event, EventRecord
from .simulate import simulate

__all__ = ["Event", "EventRecord", "simulate"]
