"""Where numba keeps the compiled kernels on disk.

Numba's cache checks only the source file of the function it loads, not the kernels that
function calls or the constants it froze in: a cached caller can outlive an edited kernel
and then read a workspace laid out the old way. So the cache directory is keyed on the
source of every module whose code or constants end up compiled; an edit starts a fresh one.
A NUMBA_CACHE_DIR set by the user is respected as it is.

Compiling takes long the first time (SPEC §6: a first command must not sit silent), so the first
compilation of a mechsim kernel in a process says so on stderr, once. Numba reports a compilation only
when the kernel is not in the cache: a warm run prints nothing.
"""
import hashlib
import os
import sys
from pathlib import Path

# packages and modules whose code or constants end up compiled (a package: every module in it)
COMPILED_SOURCES = ("spatial", "dynamics", "integrators", "simulation/problem.py", "modeling/joints.py",
                    "io/expressions.py")       # the expressions' opcodes are frozen into the evaluator

NOTICE = ("note: compiling mechsim's kernels for this machine, once (about a minute for an open chain, several "
          "minutes for closed loops; later runs load them from {})")
_listener = None


def configure():
    """Point numba's cache at ~/.cache/mechsim/numba/<digest of the compiled sources>, without importing numba
    (``import mechsim`` and the light commands do without it): numba reads NUMBA_CACHE_DIR when first imported."""
    if os.environ.get("NUMBA_CACHE_DIR"):
        return
    root = Path(__file__).resolve().parent
    files = [path for name in COMPILED_SOURCES
             for path in (sorted((root / name).glob("*.py")) if (root / name).is_dir() else [root / name])]
    digest = hashlib.sha1(b"".join(path.read_bytes() for path in files)).hexdigest()[:16]
    base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    directory = base / "mechsim" / "numba" / digest
    try:
        directory.mkdir(parents=True, exist_ok=True)
    except OSError:
        return                                   # unwritable home: numba's own default applies
    os.environ["NUMBA_CACHE_DIR"] = str(directory)    # for numba's first import, and processes started from this one
    if "numba.core.config" in sys.modules:            # numba was imported already: it read its configuration then
        sys.modules["numba.core.config"].CACHE_DIR = str(directory)


def listen():
    """The listener that announces the first compilation of a mechsim kernel (NOTICE), registered with numba on
    the first call. Every module that defines kernels calls it when imported, so it is in place before a kernel
    can compile, and numba is imported only by what compiles."""
    global _listener
    if _listener is None:
        from numba.core import event

        class FirstCompileNotice(event.Listener):
            """Prints NOTICE when a mechsim kernel starts compiling, the first time in the process."""
            printed = False

            def on_start(self, ev):
                py_func = getattr(ev.data.get("dispatcher"), "py_func", None)
                if not self.printed and getattr(py_func, "__module__", "").startswith("mechsim."):
                    self.printed = True
                    print(NOTICE.format(os.environ.get("NUMBA_CACHE_DIR") or "numba's cache"), file=sys.stderr,
                          flush=True)

            def on_end(self, ev):
                pass

        _listener = FirstCompileNotice()
        event.register("numba:compile", _listener)
    return _listener
