"""Where numba keeps the compiled kernels on disk.

Numba's cache checks only the source file of the function it loads, not the kernels that
function calls or the constants it froze in: a cached caller can outlive an edited kernel
and then read a workspace laid out the old way. So the cache directory is keyed on the
source of every module whose code or constants end up compiled; an edit starts a fresh one.
A NUMBA_CACHE_DIR set by the user is respected as it is.

Compiling takes long the first time (SPEC §6: a first command must not sit silent), so the first
compilation of a mechsim kernel in a process says so on stderr, once. Numba reports a compilation only
when the kernel is not in the cache: a warm run prints nothing. A kernel needed later in a run (the
results' pass after the integration) is compiled aside, in another process on another core, while this
one compiles the integrator (compile_aside). Processes that compile at once share what they compile
(_kernel_cache.py): a kernel is compiled by one of them, the others wait for it and load it.
"""
import hashlib
import os
import pickle
import subprocess
import sys
from pathlib import Path

# packages and modules whose code or constants end up compiled (a package: every module in it)
COMPILED_SOURCES = ("spatial", "expressions", "dynamics", "integrators", "simulation/problem.py",
                    "modeling/primitives", "modeling/forces", "modeling/contacts",
                    "distributed/coupling.py", "distributed/shared_memory.py")   # the kinds' kernel cases

NOTICE = ("note: compiling mechsim's kernels for this machine, once (15-60 s for an open chain, 45-120 s "
          "for closed loops; later runs load them from {})")
_listener = None


def configure():
    """Point numba's cache at ~/.cache/mechsim/numba/<digest of the compiled sources>, without importing numba
    (``import mechsim`` and the light commands do without it): numba reads NUMBA_CACHE_DIR when first imported."""
    if os.environ.get("NUMBA_CACHE_DIR"):
        return
    root = Path(__file__).resolve().parent
    files = [path for name in COMPILED_SOURCES
             for path in (sorted((root / name).rglob("*.py")) if (root / name).is_dir() else [root / name])]
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
    """The listener that announces the first compilation of a mechsim kernel (NOTICE) and releases the cross-process
    lock of a kernel whose compile failed (_kernel_cache.py), registered with numba on the first call, which also
    gives the kernels defined from then on their shared cache. Every module that defines kernels calls it when
    imported, so both are in place before a kernel is defined, and numba is imported only by what compiles."""
    global _listener
    if _listener is None:
        from numba.core import event

        from ._kernel_cache import install, released_after_failure
        install()

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
                released_after_failure(ev)

        _listener = FirstCompileNotice()
        event.register("numba:compile", _listener)
    return _listener


class Aside:
    """Kernels compiling in other processes (compile_aside); ``wait`` before calling them, so that the calls
    load them from the cache instead of compiling them a second time. Threads may wait for one Aside together."""

    def __init__(self, *processes):
        self.processes = processes

    def wait(self):
        for process in self.processes:
            process.wait()          # Popen.wait may be called from several threads
        self.processes = ()


_ASIDES = {}        # (dispatcher, signature) -> the Aside compiling it, for the threads that ask again


def compile_aside(kernels):
    """Start compiling ``kernels``, (numba dispatcher, arguments) pairs, in order in a child process, those that
    are neither compiled here nor in the cache, when the machine has a second core; returns an Aside to ``wait``
    for. The child writes the kernels to the cache (the directory configure() chose, inherited); the numba types
    of the arguments are a kernel's signature (picklable: numba's cache index pickles them too). A kernel this
    process reaches while the child compiles it waits for the child's (_kernel_cache.py).
    Runs under numba's compiler lock: loading from the cache refreshes numba's typing registries, which
    must not happen while another thread compiles (a race seen as "generator already executing" or an
    unknown attribute in the other thread's typing), and a second thread joins the first one's Aside."""
    from numba import typeof
    from numba.core.compiler_lock import global_compiler_lock
    if cores() < 2:
        return Aside()
    with global_compiler_lock:
        tasks, earlier = [], []         # earlier: the processes of earlier Asides compiling some of the kernels
        for dispatcher, args in kernels:
            signature = tuple(typeof(a) for a in args)
            if signature in dispatcher.overloads or _load_cached(dispatcher, signature):
                continue
            if (dispatcher, signature) in _ASIDES:
                earlier += _ASIDES[dispatcher, signature].processes
                continue
            tasks.append((dispatcher, signature))
        if not tasks:
            return Aside(*dict.fromkeys(earlier))
        process = subprocess.Popen([sys.executable, "-c", "from mechsim._jit_cache import compile_task; "
                                    "compile_task()"], stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
                                   stderr=subprocess.DEVNULL)
        process.stdin.write(pickle.dumps([(d.py_func.__module__, d.py_func.__name__, sig) for d, sig in tasks]))
        process.stdin.close()
        aside = Aside(process)
        for task in tasks:
            _ASIDES[task] = aside
    return Aside(process, *dict.fromkeys(earlier))


def cores():
    """The cores this process may run on (all of the machine's where the system does not say)."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


def _load_cached(dispatcher, signature):
    """Load the kernel for ``signature`` from numba's cache into ``dispatcher`` (as its first call would);
    False if the cache does not have it."""
    cache = dispatcher._cache
    compiled = (cache.peek if hasattr(cache, "peek") else cache.load_overload)(signature, dispatcher.targetctx)
    if compiled is None:
        return False
    dispatcher.add_overload(compiled)
    return True


def compile_task():
    """The child of compile_aside: compile the (module, function name, signature)s read from stdin, in order,
    silently."""
    import importlib
    listen().printed = True
    for module, name, signature in pickle.load(sys.stdin.buffer):
        getattr(importlib.import_module(module), name).compile(signature)
