"""Packages whose names are imported on first use (PEP 562's module ``__getattr__``): ``import mechsim``
and the command line's light commands then import neither numba nor scipy, which took most of their
start-up (about 2 s)."""
import importlib
import sys
import types


def export_lazily(package, exports):
    """Make the package named ``package`` import its names ``exports`` ({name: submodule}) and its
    submodules on first use; ``dir()`` lists them. The lookup sits in the module's own ``__getattr__``
    (PEP 562), not in a ``__getattr__`` of its class: that would make every later ``ms.name`` go
    through Python (~60 ns instead of ~20 ns, on the path of ``ms.forward_dynamics``)."""
    module = sys.modules[package]

    def __getattr__(name):
        if name in exports:
            value = getattr(importlib.import_module(f"{package}.{exports[name]}"), name)
        elif not name.startswith("__"):          # a submodule, as when the package imported it eagerly
            try:
                value = importlib.import_module(f"{package}.{name}")
            except ModuleNotFoundError as exc:
                if exc.name != f"{package}.{name}":
                    raise
                raise AttributeError(f"module {package!r} has no attribute {name!r}") from None
        else:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        setattr(module, name, value)
        return value

    module.__getattr__ = __getattr__
    module.__dir__ = lambda: sorted({*vars(module), *exports})
    module._exports = exports
    module.__class__ = _LazyPackage


class _LazyPackage(types.ModuleType):

    def __setattr__(self, name, value):
        # importing a submodule sets the package's attribute of that name; a function exported under the
        # same name (simulation.simulate) keeps it, as it did when the package imported it eagerly
        if isinstance(value, types.ModuleType) and self._exports.get(name) == name:
            value = getattr(value, name)
        super().__setattr__(name, value)
