"""Integrators: explicit Runge–Kutta methods as data (tableaux.py), one compiled loop running them
on any registered problem (problem.py, explicit.py), and scipy's solvers behind the same stepper
protocol (base.py, scipy_adapter.py).

The old entry points (adaptive.py, dopri.py, fixed_step.py) stay until the run driver moves to
the steppers.
"""
from .adaptive import ADAPTIVE_METHODS, integrate_adaptive
from .base import Stepper, StepperFailure
from .dopri import integrate_compiled
from .explicit import CompiledStepper, RKState, crossing, new_state, rk_advance, rk_dense, rk_start, rk_step
from .fixed_step import FIXED_METHODS, integrate_fixed
from .problem import PROBLEMS, correct, event_values, register_problem, rhs
from .scipy_adapter import FixedStep, ScipyStepper
from .tableaux import TABLEAUX, Tableau

COMPILED_METHODS = tuple(TABLEAUX)                 # Euler, RK4, RK23, RK45, DOP853: compiled or through scipy
SCIPY_METHODS = ("Radau", "BDF", "LSODA")          # through ScipyStepper only
METHODS = COMPILED_METHODS + SCIPY_METHODS

SOLVERS = tuple(ADAPTIVE_METHODS) + tuple(FIXED_METHODS)

__all__ = ["ADAPTIVE_METHODS", "FIXED_METHODS", "SOLVERS", "integrate_adaptive", "integrate_compiled",
           "integrate_fixed", "COMPILED_METHODS", "SCIPY_METHODS", "METHODS", "TABLEAUX", "Tableau", "PROBLEMS",
           "register_problem", "rhs", "correct", "event_values", "Stepper", "StepperFailure", "CompiledStepper",
           "ScipyStepper", "FixedStep", "RKState", "new_state", "rk_start", "rk_step", "rk_dense", "rk_advance",
           "crossing"]
