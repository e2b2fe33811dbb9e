"""The problem registry: how compiled integrators call a right-hand side passed as data.

A *problem* is an instance of a registered ``collections.namedtuple`` class, e.g. the mechanics'
``System`` or a test's ``Decay(k)``. Its class is registered with up to four compiled
(``@njit``) functions::

    rhs(problem, t, y, dy) -> status          dy = f(t, y); OK (-1) or a failure code
    correct(problem, t, y) -> status          projects y in place (default: leaves it, OK)
    event_values(problem, t, y, g) -> status  fills g (n_events,) (default: no events)
    jump(problem, t, y, k, dy) -> (status, t_stop)
                                              event k's action at (t, y), compiled: OK with y changed
                                              in place, dy = f(t, y) after it, and a time steps must end
                                              at (inf: none), or UNHANDLED, y and dy undefined: the action
                                              runs in Python (default: every event is Python's)

Compiled code calls the stubs ``rhs``, ``correct``, ``event_values`` and ``jump`` below; a numba
``@overload`` picks the registered function from the problem's type while compiling, so the call
is direct (inlinable) and the integrator stays cacheable although it takes the functions "as
arguments". Called from Python, ``correct`` and ``event_values`` call the methods of the same names of a
*Python problem*, any object that has them: the event locator runs on one interpreted (locator.py).

Numba's on-disk cache keys a specialization on the argument types and pickles them in one index
per kernel. So that (a) a problem class that cannot be imported elsewhere (a test, ``__main__``)
does not break loading that index in another process, and (b) an edited problem function is not
answered by a stale cached kernel, numba sees a registered class as a stand-in namedtuple class
of this module named after a digest of the class's fields and its functions' source. Functions
those call are not part of the digest: mechsim's own kernels are covered by _jit_cache.py.
"""
import hashlib
import inspect
import re

import numpy as np
from numba import njit, types
from numba.core.errors import TypingError
from numba.extending import overload, typeof_impl
from numba.core.typing.typeof import typeof

from .._jit_cache import listen
from ..status import OK, UNHANDLED

listen()        # the first compile is announced (_jit_cache.py); this module does not import spatial/algebra.py

# The registered functions themselves are the overloads' implementations (numba compiles their
# Python source into the integrator, inlined by LLVM): an overload wrapping them in a lambda costs a
# further call level that LLVM does not flatten, ~0.3 us an evaluation for the mechanics (measured).
# They are compiled with error_model="numpy": a division by zero gives inf or nan, which the
# integrators report as NON_FINITE, instead of raising inside a compiled loop. Like the integrators,
# they run without reference counting (spatial/algebra.py: JIT), so they must not allocate arrays:
# scratch belongs in the problem tuple. strict=False: their parameters need not be named as the stubs'.
INLINED = dict(forceinline=True, error_model="numpy", _nrt=False)
PROBLEMS = {}            # registered namedtuple class -> (rhs, correct, events, jump) compiled functions
_STAND_INS = {}          # the class numba sees for a registered class -> its functions
_STAND_IN_NAME = re.compile(r"\w+_[0-9a-f]{16}")


def register_problem(cls, rhs, correct=None, events=None, jump=None):
    """Register the compiled functions of problem class ``cls`` (a collections.namedtuple class).
    Registering a class again replaces its functions."""
    if not (isinstance(cls, type) and issubclass(cls, tuple) and hasattr(cls, "_fields")):
        raise TypeError("a problem class must be a collections.namedtuple class")
    functions = (rhs, _no_correction if correct is None else correct, _no_events if events is None else events,
                 _no_jump if jump is None else jump)
    text = cls.__module__ + cls.__qualname__ + repr(cls._fields) + "".join(map(_source, functions))
    name = f"{cls.__name__}_{hashlib.sha1(text.encode()).hexdigest()[:16]}"
    stand_in = globals().get(name) or __getattr__(name)
    stand_in._fields = cls._fields
    PROBLEMS[cls] = functions
    _STAND_INS[stand_in] = functions

    @typeof_impl.register(cls)
    def _typeof(value, context):
        field_types = [typeof(v, context) for v in value]
        if field_types and all(t == field_types[0] for t in field_types):
            return types.NamedUniTuple(field_types[0], len(field_types), stand_in)
        return types.NamedTuple(field_types, stand_in)
    return cls


def __getattr__(name):
    """The stand-in class ``name``, made on first use: also when an index of numba's cache names a
    class this process has not registered (it then never matches a live type, and is kept so that
    the index can be written back)."""
    if not _STAND_IN_NAME.fullmatch(name):
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    stand_in = globals()[name] = type(name, (tuple,), {"__module__": __name__, "__qualname__": name, "_fields": ()})
    return stand_in


def _source(function):
    py_func = getattr(function, "py_func", function)
    try:
        return inspect.getsource(py_func)
    except (OSError, TypeError):
        code = py_func.__code__
        return code.co_code.hex() + repr(code.co_consts) + repr(code.co_names)


@njit
def _no_correction(problem, t, y):
    return OK


@njit
def _no_events(problem, t, y, g):
    return OK


@njit
def _no_jump(problem, t, y, k, dy):
    return UNHANDLED, np.inf


# ------------------------------------------------------------------- stubs, implemented by overloads
def rhs(problem, t, y, dy):
    """dy = f(t, y) for a registered problem; returns OK or a failure code (compiled code only)."""
    raise NotImplementedError("rhs is callable from compiled code only")


def correct(problem, t, y):
    """Project y in place (onto the problem's manifold); returns OK or a failure code. From Python: the method
    of a Python problem (the event locator runs on one interpreted, locator.py)."""
    return problem.correct(t, y)


def event_values(problem, t, y, g):
    """g = the problem's event functions at (t, y); returns OK or a failure code. From Python: the method of a
    Python problem, as ``correct``."""
    return problem.event_values(t, y, g)


def jump(problem, t, y, k, dy):
    """Event k's action at (t, y) compiled, dy = f(t, y) after it: (OK, a time steps must end at) or
    (UNHANDLED, inf)."""
    raise NotImplementedError("jump is callable from compiled code only")


def _functions(problem):
    functions = _STAND_INS.get(getattr(problem, "instance_class", None))
    if functions is None:
        raise TypingError(f"{problem} is not a registered problem: see integrators.problem.register_problem")
    return functions


def _implementation(problem, index):
    function = _functions(problem)[index]
    return getattr(function, "py_func", function)


@overload(rhs, jit_options=INLINED, strict=False)
def _rhs(problem, t, y, dy):
    return _implementation(problem, 0)


@overload(correct, jit_options=INLINED, strict=False)
def _correct(problem, t, y):
    return _implementation(problem, 1)


@overload(event_values, jit_options=INLINED, strict=False)
def _event_values(problem, t, y, g):
    return _implementation(problem, 2)


@overload(jump, jit_options=INLINED, strict=False)
def _jump(problem, t, y, k, dy):
    return _implementation(problem, 3)
