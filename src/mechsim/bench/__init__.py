"""`mechsim bench`: the speed suite of SPEC §6 (forward dynamics vs Pinocchio and MuJoCo, a whole
fixed-step run vs a Python loop around pin.aba, CLI start-up, closed loops and real robots against
Exudyn, MuJoCo, Drake and Pinocchio), written to benchmarks/RESULTS.md. It uses mechsim's public API only
and ships the models it needs (models.py, robot_files/), so it runs from an installed package;
nothing in mechsim imports it but the ``mechsim bench`` command.

    import mechsim.bench
    numbers = mechsim.bench.run(quick=False, output="benchmarks/RESULTS.md", engines=("pin", "mujoco", "exudyn", "drake"))

Peers are optional: install them with ``pip install "mechsim[bench]"``.
"""
import argparse
import importlib
import sys

import mechsim as ms

__all__ = ["run", "main", "mechsim_chain", "pinocchio_chain", "mujoco_chain", "mujoco_xml"]
LAZY = {"run": "suite", "mechsim_chain": "chains", "pinocchio_chain": "chains", "mujoco_chain": "chains",
        "mujoco_xml": "chains"}


def __getattr__(name):
    """The suite's functions, imported on first use (PEP 562): the command line builds this package's parser
    for every command."""
    if name not in LAZY:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = globals()[name] = getattr(importlib.import_module(f".{LAZY[name]}", __name__), name)
    return value


def build_parser(parser=None):
    """Options of ``mechsim bench`` (added to ``parser`` when given, e.g. a CLI sub-parser)."""
    parser = parser or argparse.ArgumentParser(
        prog="mechsim bench", description="Run the mechsim speed suite (SPEC §6) and write a Markdown report.")
    parser.add_argument("--quick", action="store_true", help="fewer chain sizes and repeats (a smoke run)")
    parser.add_argument("--output", "-o", default="benchmarks/RESULTS.md", metavar="PATH",
                        help="where to write the Markdown report (default: benchmarks/RESULTS.md)")
    parser.add_argument("--engines", default="pin,mujoco,exudyn,drake",
                        help="comparison engines, comma-separated (default: pin,mujoco,exudyn,drake; exudyn and drake "
                             "take part in the loops group only; empty for none)")
    parser.add_argument("--no-startup", action="store_true", help="skip the CLI start-up measurement")
    parser.add_argument("--groups", default=None, metavar="NAMES",
                        help="sections to run, comma-separated (default: all; see mechsim.bench.targets.GROUPS)")
    return parser


def run_from_args(args):
    """Run the suite with parsed ``build_parser`` options; MechsimError if the engines disagree."""
    engines = tuple(e.strip() for e in args.engines.split(",") if e.strip())
    groups = None if args.groups is None else tuple(g.strip() for g in args.groups.split(",") if g.strip())
    from .suite import run
    try:
        run(quick=args.quick, output=args.output, engines=engines, startup_check=not args.no_startup, groups=groups)
    except (AssertionError, ValueError) as exc:
        raise ms.MechsimError(str(exc)) from None


def main(argv=None):
    """Entry point of ``python -m mechsim.bench``; returns the exit code (0; 1 with an ``error:`` line if the
    engines disagree)."""
    try:
        run_from_args(build_parser().parse_args(argv))
    except ms.MechsimError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    return 0
