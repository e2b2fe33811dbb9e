"""A plot drawn in a forked child process, on another core (``mechsim simulate --plot``): the child imports
matplotlib (~0.25 s) while the run computes, then draws the plot the run sends it (plot.py PlotData) and
answers with the warnings it gave or the exception it raised, which the run gives or raises as its own.
The run waits only for the drawing itself, instead of importing matplotlib and drawing after it.
Forked, the child starts with what the run had imported (numpy, mechsim): it does no more work than the
run would have done itself."""
import builtins
import importlib.util
import os
import pickle
import signal
import sys
import warnings

from .._jit_cache import cores
from .plot import NO_MATPLOTLIB


def wanted():
    """Whether a plot is worth drawing in a PlotWorker: where processes fork, not on one core (the child would
    only compete with the run), nor in a process that has imported matplotlib already (a program calling the
    command line)."""
    return hasattr(os, "fork") and cores() >= 2 and "matplotlib" not in sys.modules


class PlotWorker:
    """The child process that draws one plot; a context manager, so that a run that fails ends it. ImportError
    at once, with the install hint, when matplotlib is not installed."""

    def __init__(self):
        import multiprocessing          # here: only a plot needs it
        if importlib.util.find_spec("matplotlib") is None:
            raise ImportError(NO_MATPLOTLIB)
        context = multiprocessing.get_context("fork")
        self.connection, child = context.Pipe()
        self.process = context.Process(target=serve, args=(child,), daemon=True)
        self.process.start()
        child.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        if self.process.is_alive():
            self.process.kill()
        self.process.join()

    def draw(self, data, path):
        """Draw PlotData ``data`` to ``path``: the child's warnings given here, its exception raised here."""
        self.connection.send((data, path))
        try:
            caught, error = pickle.loads(self.connection.recv_bytes())
        except EOFError:
            self.process.join()
            raise RuntimeError(f"the plot's process ended without drawing it (exit code {self.process.exitcode})") \
                from None
        for category, message in caught:
            warnings.warn(message, getattr(builtins, category))
        if error is not None:
            raise error


def serve(connection):
    """The child: import matplotlib, then draw the (PlotData, path) received on ``connection``; send back the
    pickled ([(warning category's built-in class name, message)], exception or None)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)        # Ctrl-C is the run's to report; the run ends this process
    error = None
    with warnings.catch_warnings(record=True) as records:
        try:
            from .plot import draw_plot, load_matplotlib
            load_matplotlib()
            data, path = connection.recv()
            draw_plot(data, path)
        except EOFError:                                # the run ended without a plot to draw
            return
        except Exception as exc:                        # noqa: BLE001 - the run raises it
            error = exc
    caught = [(_builtin_category(record.category), str(record.message)) for record in records]
    connection.send_bytes(_answer(caught, error))


def _builtin_category(category):
    """The name of a warning category's first built-in class: the run gives it without importing matplotlib."""
    return next(c.__name__ for c in category.__mro__ if getattr(builtins, c.__name__, None) is c)


def _answer(caught, error):
    """The pickled answer; an exception that pickle cannot carry as a RuntimeError naming it."""
    try:
        return pickle.dumps((caught, error))
    except Exception:                                   # noqa: BLE001
        return pickle.dumps((caught, RuntimeError(f"{type(error).__name__}: {error}")))
