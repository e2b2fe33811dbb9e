"""Simulation: the run driver, its options, the events it watches and the mechanics as an integrator problem."""
from .._lazy import export_lazily

# imported on first use: the options registry (options.py) is read without the kernels (numba) and scipy
export_lazily(__name__, {"simulate": "simulate"})

__all__ = ["simulate"]
