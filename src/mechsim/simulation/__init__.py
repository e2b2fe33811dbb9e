"""Simulation: the run driver, its options, events and the mechanics as an integrator problem."""
from .._lazy import export_lazily

# imported on first use: the options registry (options.py) is read without the kernels (numba) and scipy
export_lazily(__name__, {"Event": "events", "EventRecord": "events", "simulate": "simulate"})

__all__ = ["Event", "EventRecord", "simulate"]
