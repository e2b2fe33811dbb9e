"""Where numba keeps the compiled kernels on disk.

Numba's cache checks only the source file of the function it loads, not the kernels that
function calls or the constants it froze in: a cached caller can outlive an edited kernel
and then read a workspace laid out the old way. So the cache directory is keyed on the
source of every module whose code or constants end up compiled; an edit starts a fresh one.
A NUMBA_CACHE_DIR set by the user is respected as it is.
"""
import hashlib
import os
from pathlib import Path

COMPILED_SOURCES = ("spatial/algebra.py", "dynamics/layout.py", "dynamics/kernels.py", "dynamics/constraints.py",
                    "dynamics/multipliers.py", "dynamics/projection.py", "dynamics/system.py",
                    "integrators/dopri.py", "integrators/fixed_step.py", "integrators/problem.py",
                    "integrators/explicit.py", "modeling/joints.py",
                    "dynamics/time_functions.py", "io/expressions.py")   # the opcodes are frozen into the evaluator


def configure():
    """Point numba's cache at ~/.cache/mechsim/numba/<digest of the compiled sources>."""
    if os.environ.get("NUMBA_CACHE_DIR"):
        return
    root = Path(__file__).resolve().parent
    digest = hashlib.sha1(b"".join((root / name).read_bytes() for name in COMPILED_SOURCES)).hexdigest()[:16]
    base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    directory = base / "mechsim" / "numba" / digest
    try:
        directory.mkdir(parents=True, exist_ok=True)
    except OSError:
        return                                   # unwritable home: numba's own default applies
    os.environ["NUMBA_CACHE_DIR"] = str(directory)
    import sys
    if "numba" in sys.modules:                   # numba read its config already: tell it directly
        from numba.core import config
        config.CACHE_DIR = str(directory)
