"""Modular and distributed simulation (SPEC §3 C12): batch runs in threads, parameter sweeps on
processes, threads or a Dask cluster, co-simulation of subsystems in worker processes."""
from .batch import simulate_batch
from .cosim import cosimulate
from .sweeps import normal, sweep, uniform

__all__ = ["simulate_batch", "sweep", "normal", "uniform", "cosimulate"]
