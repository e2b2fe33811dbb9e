"""The ``mechsim`` command line (SPEC §3, C11): one module per subcommand, each with ``add_parser``
(its options, and the function that runs it); what they share is in ``common``.

Exit codes: 0 on success; 1 on a user error, reported as one line ``error: ...`` on stderr
(``MECHSIM_DEBUG=1`` re-raises it with its traceback instead); 2 on bad command-line usage. An
option's destination is the keyword argument it sets, so an error about a keyword given on the command
line, or asked for, names the option (errors.py: ``for_command_line``).
matplotlib is imported only when a plot is asked for, and the compiled kernels are compiled
only by the subcommands that integrate. The parser imports neither numba nor scipy (about 1 s of
start-up): each subcommand module imports at the top what its parser needs, the rest where it is
used; numba comes with a model's compiled form (check, signals, runs and analyses).
"""
import argparse
import gc
import os
import sys
import warnings
from contextlib import contextmanager

from .. import __version__
from ..errors import MechsimError
from . import (animate, assemble, bench, check, cosimulate, fmu, inverse, linearize, signals, simulate, sweep, trim,
               warmup)

COMMANDS = (simulate, animate, check, assemble, signals, inverse, trim, linearize, sweep, cosimulate, fmu, bench,
            warmup)   # in --help's order
UNUSED_NUMPY_MODULES = ("numpy.f2py", "numpy.testing")
MAX_ERROR = 2000        # characters of an error line (a value quoted in it may be huge)


def main(argv=None):
    """Run the command line on ``argv`` (default ``sys.argv[1:]``); return the exit code."""
    if argv is None:
        _defer_unused_numpy_modules()
    try:
        return _run(argv)
    finally:
        if argv is None:    # the program's own command line: the process exits next
            # its objects frozen, the interpreter's last garbage collections at exit skip the ~100,000 that
            # numba made (0.3-0.6 s); the operating system frees them, atexit handlers still run
            gc.freeze()


def _run(argv):
    try:
        args = parser().parse_args(argv)
    except SystemExit as exc:          # --help, --version (0) and usage errors (2)
        return exc.code
    try:
        with _warnings_as_lines():
            args.run(args)
    except MechsimError as exc:
        if os.environ.get("MECHSIM_DEBUG", "") not in ("", "0"):
            raise
        given = {name for name in args.options if getattr(args, name, None) is not None}
        line = ' '.join(exc.for_command_line(args.options, given).splitlines())
        print(f"error: {line if len(line) <= MAX_ERROR else line[:MAX_ERROR] + ' ...'}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("error: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:                # the reader (| head) stopped reading: not an error
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    return 0


def _defer_unused_numpy_modules():
    """numpy.f2py and numpy.testing, which no command uses, loaded on first use (importlib's LazyLoader) instead of
    when imported: numba imports scipy.linalg when it loads its first kernel, and scipy's array-API layer copies
    numpy's namespace, importing every submodule numpy would load on first use (these two: ~0.07 s of a run)."""
    import importlib.util

    import numpy
    for name in UNUSED_NUMPY_MODULES:
        if name in sys.modules:
            continue
        spec = importlib.util.find_spec(name)
        spec.loader = importlib.util.LazyLoader(spec.loader)
        module = sys.modules[name] = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        setattr(numpy, name.rpartition(".")[2], module)     # as an import sets it; numpy would import it again


def parser():
    """The argument parser of every subcommand."""
    top = argparse.ArgumentParser(prog="mechsim", description="Simulate and analyse mechanisms described in model "
                                  "files (.yaml, .yml or .json) or robot descriptions (.urdf, .sdf, MJCF .xml).")
    top.add_argument("--version", action="version", version=f"mechsim {__version__}")
    commands = top.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for command in COMMANDS:
        command.add_parser(commands)
    for subcommand in commands.choices.values():
        subcommand.set_defaults(options=_options(subcommand))
    return top


def _options(subcommand):
    """{destination: option} of a subcommand's options (the longest spelling: --output, not -o)."""
    return {action.dest: max(action.option_strings, key=len) for action in subcommand._actions if action.option_strings}


@contextmanager
def _warnings_as_lines():
    """Warnings printed as one line ``warning: ...`` each on stderr, without Python's source line; numpy's
    RuntimeWarnings (overflow, invalid value) are dropped when the command then fails: its error line says it."""
    held = []

    def show(message, category, filename, lineno, file=None, line=None):
        line = f"warning: {' '.join(str(message).splitlines())}"
        if issubclass(category, RuntimeWarning):
            held.append(line)
        else:
            print(line, file=sys.stderr)
    previous, warnings.showwarning = warnings.showwarning, show
    try:
        yield
        for line in held:
            print(line, file=sys.stderr)
    finally:
        warnings.showwarning = previous
