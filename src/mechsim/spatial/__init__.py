"""Spatial algebra in [angular; linear] Plücker form (Featherstone, RBDA ch. 2) and rotation parsing."""
from .rotations import as_rotation, as_pose, quat_to_matrix, matrix_to_quat

__all__ = ["as_rotation", "as_pose", "quat_to_matrix", "matrix_to_quat"]
