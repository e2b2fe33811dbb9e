"""Dynamics: the compiled model (flat arrays) and the numba kernels (aba, rnea, crba)."""
