"""Packages whose names are imported on first use (PEP 562's lazy attributes, as a module subclass):
``import mechsim`` and the command line's light commands then import neither numba nor scipy, which
took most of their start-up (about 2 s)."""
import importlib
import sys
import types


def export_lazily(package, exports):
    """Make the package named ``package`` import its names ``exports`` ({name: submodule}) and its
    submodules on first use; ``dir()`` lists them."""
    module = sys.modules[package]
    module._exports = exports
    module.__class__ = _LazyPackage


class _LazyPackage(types.ModuleType):

    def __getattr__(self, name):
        if name in self._exports:
            value = getattr(importlib.import_module(f"{self.__name__}.{self._exports[name]}"), name)
        elif not name.startswith("__"):          # a submodule, as when the package imported it eagerly
            try:
                value = importlib.import_module(f"{self.__name__}.{name}")
            except ModuleNotFoundError as exc:
                if exc.name != f"{self.__name__}.{name}":
                    raise
                raise AttributeError(f"module {self.__name__!r} has no attribute {name!r}") from None
        else:
            raise AttributeError(f"module {self.__name__!r} has no attribute {name!r}")
        setattr(self, name, value)
        return value

    def __dir__(self):
        return sorted({*self.__dict__, *self._exports})

    def __setattr__(self, name, value):
        # importing a submodule sets the package's attribute of that name; a function exported under the
        # same name (simulation.simulate) keeps it, as it did when the package imported it eagerly
        if isinstance(value, types.ModuleType) and self._exports.get(name) == name:
            value = getattr(value, name)
        super().__setattr__(name, value)
