"""Integrators, independent of the mechanics: explicit Runge–Kutta methods as data (tableaux.py),
one compiled loop running them on any registered problem (problem.py, explicit.py), scipy's
solvers behind the same stepper protocol (base.py, scipy_adapter.py), and one event locator for
every stepper's steps (locator.py) on their dense output as data (dense.py)."""
from .._lazy import export_lazily
from .tableaux import TABLEAUX, Tableau

COMPILED_METHODS = tuple(TABLEAUX)                 # Euler, RK4, RK23, RK45, DOP853: compiled or through scipy
SCIPY_METHODS = ("Radau", "BDF", "LSODA")          # through ScipyStepper only
METHODS = COMPILED_METHODS + SCIPY_METHODS
STEP_CONTROLS = ("standard", "predictive")        # the compiled loop's step-size controls (explicit.py)

# imported on first use: the method names above are read without numba (the compiled loop) or scipy.integrate
export_lazily(__name__, {
    "Stepper": "base", "CompiledStepper": "explicit", "RKState": "explicit",
    "new_state": "explicit", "rk_advance": "explicit", "rk_dense": "explicit", "rk_start": "explicit",
    "rk_step": "explicit", "Interpolant": "dense", "interpolate": "dense", "SIMULTANEOUS": "locator",
    "Watcher": "locator", "crossing": "locator", "PROBLEMS": "problem", "correct": "problem",
    "event_values": "problem", "register_problem": "problem", "rhs": "problem", "FixedStep": "scipy_adapter",
    "ScipyStepper": "scipy_adapter"})

__all__ = ["COMPILED_METHODS", "SCIPY_METHODS", "METHODS", "STEP_CONTROLS", "TABLEAUX", "Tableau", "PROBLEMS",
           "register_problem", "rhs", "correct", "event_values", "Stepper", "CompiledStepper",
           "ScipyStepper", "FixedStep", "RKState", "new_state", "rk_start", "rk_step", "rk_dense", "rk_advance",
           "Interpolant", "interpolate", "Watcher", "crossing", "SIMULTANEOUS"]
