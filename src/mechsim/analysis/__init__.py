"""Analyses: kinematics, trim, linearize, check; results (Result, the joined JoinedResult) and states."""
from .._lazy import export_lazily

# imported on first use: the package's light modules (state, check) come without result's numba and linearize's scipy
export_lazily(__name__, {"Linearization": "linearize", "Result": "result", "State": "state"})

__all__ = ["Linearization", "Result", "State"]
