"""Modeling layer: plain Python objects for bodies, joints, force elements and the model."""
from .body import Body
from .joints import Joint, JOINT_KINDS
from .forces import FORCE_KINDS
from .model import Model

__all__ = ["Body", "Joint", "Model", "JOINT_KINDS", "FORCE_KINDS"]
