"""Numba's on-disk cache of mechsim's kernels, shared by processes that compile at the same time.

A run compiles its integrator while another process compiles the kernel of its results (_jit_cache.compile_aside);
the workers of a sweep, or several commands started together, compile the same kernels on an empty cache. Without
coordination each compiles every kernel it misses, and the two processes of a closed loop's first run compiled
the same constraint kernels side by side on the two cores they share. Here a process that misses a kernel takes
a lock on it (a file beside the cache's index, one per kernel and signature, ``fcntl.flock``) until it has saved
the kernel; a process that misses the same kernel meanwhile waits for the lock, then loads what the first saved.

The locks follow the kernels' call graph, which has no cycles: a process holds the locks of the kernels it is
compiling, each a caller of the next, and waits only for a kernel it calls, so two processes never wait for each
other. The operating system releases the locks of a process that ends; a compile that fails releases its lock
(released_after_failure, from _jit_cache's compile listener). Where the system has no flock (Windows) or the
cache's file system refuses it, kernels compile as numba alone would.
"""
import hashlib
import os

from numba.core import dispatcher
from numba.core.caching import FunctionCache

try:
    import fcntl
except ImportError:              # Windows
    fcntl = None

SHARED_PACKAGES = {"mechsim"}    # the packages whose kernels get a SharedCompileCache


class SharedCompileCache(FunctionCache):
    """A FunctionCache whose misses are compiled by one process at a time (module docstring)."""

    def __init__(self, py_func):
        super().__init__(py_func)
        self._locks = {}         # lock file path -> the open file whose lock this process holds

    def load_overload(self, sig, target_context):
        """The cached kernel for ``sig``; on a miss, after the lock is held: what another process saved meanwhile,
        or None, and this process compiles it holding the lock until save_overload."""
        kernel = super().load_overload(sig, target_context)
        if kernel is not None or fcntl is None or not self._enabled:
            return kernel
        path = self._lock_path(sig, target_context.codegen())
        if path in self._locks:
            return None
        try:
            self._impl.locator.ensure_cache_path()
            lock = open(path, "a")
        except OSError:
            return None
        try:
            fcntl.flock(lock, fcntl.LOCK_EX)            # waits while another process compiles this kernel
        except OSError:                                 # a file system without locks
            lock.close()
            return None
        kernel = super().load_overload(sig, target_context)
        if kernel is None:
            self._locks[path] = lock
        else:
            lock.close()
        return kernel

    def peek(self, sig, target_context):
        """The cached kernel for ``sig`` or None, taking no lock (a process about to compile it elsewhere)."""
        return super().load_overload(sig, target_context)

    def save_overload(self, sig, data):
        try:
            super().save_overload(sig, data)
        finally:
            lock = self._locks.pop(self._lock_path(sig, data.codegen), None)
            if lock is not None:
                lock.close()

    def release(self):
        """Release every lock this process holds on this function's kernels (a compile that failed)."""
        for lock in self._locks.values():
            lock.close()
        self._locks.clear()

    def _lock_path(self, sig, codegen):
        key = hashlib.sha1(repr(self._index_key(sig, codegen)).encode()).hexdigest()[:16]
        return os.path.join(self._cache_path, f"{self._impl.filename_base}{key}.lock")


def function_cache(py_func):
    """The cache numba gives a function compiled with cache=True: the kernels of SHARED_PACKAGES get a
    SharedCompileCache, any other function numba's own."""
    if (getattr(py_func, "__module__", None) or "").split(".")[0] in SHARED_PACKAGES:
        return SharedCompileCache(py_func)
    return FunctionCache(py_func)


def install():
    """Make numba give mechsim's kernels a SharedCompileCache from now on (numba's Dispatcher.enable_caching looks
    FunctionCache up in its module when a kernel is decorated)."""
    dispatcher.FunctionCache = function_cache


def released_after_failure(ev):
    """Release the locks of a kernel whose compile ended with an error (a numba:compile end event; not by
    Event.is_failed, which is True for a compile that succeeded, numba 0.68)."""
    cache = getattr(ev.data.get("dispatcher"), "_cache", None)
    if getattr(ev, "_exc_details", None) is not None and isinstance(cache, SharedCompileCache):
        cache.release()
