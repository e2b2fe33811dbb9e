"""Analyses: kinematics, trim, linearize, check, and the joint forces of a motion (motion.py)."""
from .._lazy import export_lazily

# imported on first use: linearize's scipy comes only with it
export_lazily(__name__, {"Linearization": "linearize"})

__all__ = ["Linearization"]
