"""What runs and analyses return: a State (q, v at an instant) and a Result (the signals of sampled states,
computed on demand), their files, and a Result at other times (resample)."""
from .._lazy import export_lazily

# imported on first use: a State comes without the Result's kernels (numba)
export_lazily(__name__, {"EventRecord": "result", "Result": "result", "State": "state"})

__all__ = ["EventRecord", "Result", "State"]
