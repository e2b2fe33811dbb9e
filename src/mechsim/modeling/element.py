"""What ``Model.add_*`` returns: a body, joint, force element, constraint or driver that knows its model.

Once added, setting a parameter (an argument of the add_* call, e.g. ``body.mass = 2``) changes the
model's record of the arguments and rebuilds the model from it (``Model._change``): the value is
checked exactly as add_* checks it, every element that depends on it (a joint on a body's frame, a
driver on a joint's q0) follows, ``to_yaml`` writes it and the next run recompiles. Arguments that
fix the model's structure (names, kinds, the bodies and joints an element connects) cannot change,
nor can values computed from the arguments; either, or an unknown name, raises ModelError.
Stored arrays are read-only and lists and dicts are stored as tuples and read-only dicts, so an
in-place write (``body.com[0] = 1``) raises too instead of going stale.
"""
import difflib

import numpy as np

from ..errors import ModelError


class ReadOnlyDict(dict):
    """A dict that refuses changes."""

    def _refuse(self, *args, **kwargs):
        raise TypeError("this mapping is read-only; change the model through the element's attributes "
                        "(or Model.add_frame / Model.set_input_default)")

    __setitem__ = __delitem__ = __ior__ = clear = pop = popitem = setdefault = update = _refuse

    def __reduce__(self):
        return ReadOnlyDict, (dict(self),)


def frozen(value):
    """``value`` with its arrays as read-only copies, lists and tuples as tuples, dicts as ReadOnlyDicts."""
    if isinstance(value, np.ndarray):
        value = value.copy()
        value.flags.writeable = False
    elif type(value) in (list, tuple):
        value = tuple(frozen(v) for v in value)
    elif isinstance(value, dict):
        value = ReadOnlyDict((k, frozen(v)) for k, v in value.items())
    return value


class Element:
    """Base of bodies, joints, force elements, constraints and drivers."""
    _noun = _section = None
    _structural = ()       # arguments of add_* that cannot change once added (besides name and kind)
    _model = None          # set by Model when the element is added

    def _arguments(self):
        """The names of the add_* arguments this element takes (its name excluded)."""
        raise NotImplementedError

    def _fixed(self):
        return {"name", "kind", *self._structural}

    def _rebuild_hint(self):
        return f"build the model again with the {self._noun} as you want it"

    def __setattr__(self, attr, value):
        if attr.startswith("_"):
            return object.__setattr__(self, attr, value)
        if self._model is None:                       # being built
            return self._store(attr, value)
        what, fixed = f"{self._noun} '{self.name}'", self._fixed()
        parameters = sorted(set(self._arguments()) - fixed)
        if attr in parameters:
            return self._model._change(self, attr, value)
        if attr in fixed or attr in self._arguments():
            raise ModelError(f"{what}: {attr} cannot change once the {self._noun} is added (it sets the model's "
                             f"structure); {self._rebuild_hint()}")
        if attr in vars(self) or hasattr(type(self), attr):
            raise ModelError(f"{what}: {attr} is computed from the arguments of add_{self._noun}; set one of "
                             f"{parameters or 'none'} instead")
        close = difflib.get_close_matches(attr, parameters, n=1)
        raise ModelError(f"{what} has no parameter {attr!r}" + (f" (did you mean {close[0]!r}?)" if close else "")
                         + f"; its parameters are {parameters or 'none'}")

    def _store(self, attr, value):
        object.__setattr__(self, attr, frozen(value))

    def __getattr__(self, attr):
        """An argument of add_* not stored under its own name (joint.axis, force.value, driver.position)."""
        spec = {} if attr.startswith("_") or self._model is None else \
            self._model.specs[self._section].get(vars(self).get("name"), {})
        if attr not in spec:
            raise AttributeError(f"{type(self).__name__!r} object has no attribute {attr!r}")
        return frozen(spec[attr])
