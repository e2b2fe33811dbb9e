"""``mechsim cosimulate``: run a co-simulation file (io/cosim_file.py) — open-chain subsystems in
worker processes or on a Dask cluster — and write its signals."""
from ..io.cosim_file import load_cosimulation
from .common import OUTPUT_SUFFIXES, check_target, final_values, names, realtime_summary, wrote, writing


def add_parser(commands):
    parser = commands.add_parser(
        "cosimulate", help="co-simulate subsystems coupled at points, each in its own worker process",
        description="Co-simulate the subsystems of a co-simulation file (subsystems: {name: model file}, "
        "couplings:, method:, h:, t_end: ...); options given here override the file's.")
    parser.add_argument("file", help="co-simulation file (.yaml, .yml or .json)")
    parser.add_argument("-o", "--output", help="write the signals to this .csv or .npz file")
    parser.add_argument("--signals", type=names, metavar="NAMES",
                        help="comma-separated signals to write and summarize (default: all in the output file, "
                             "every coordinate and coupling violation in the summary)")
    parser.add_argument("--method", choices=("projection", "compliance"), help="coupling method")
    parser.add_argument("--h", type=float, help="macro step [s], the subsystems' fixed step")
    parser.add_argument("--t-end", type=float, help="end time [s]")
    parser.add_argument("--stiffness", type=float, help="compliance: the virtual springs' stiffness")
    parser.add_argument("--damping", type=float, help="compliance: the virtual dampers' coefficient")
    parser.add_argument("--baumgarte", type=float, help="projection: Baumgarte's rate sigma [1/s]")
    parser.add_argument("--exchange", choices=("stage", "step"), help="exchange at every stage or once per macro step")
    parser.add_argument("--ordering", choices=("jacobi", "gauss-seidel"), help="order of a step exchange")
    parser.add_argument("--transport", choices=("auto", "shared_memory", "connections"),
                        help="how local workers exchange: shared memory inside their compiled runs (auto, wherever "
                             "possible) or through the coordinator")
    parser.add_argument("--realtime", type=float, nargs="?", const=True, metavar="FACTOR",
                        help="pace the subsystems to the wall clock (or at a factor of it: 0.5, half speed)")
    parser.add_argument("--scheduler", metavar="ADDRESS",
                        help="run the subsystems on the Dask cluster of this scheduler (needs mechsim[cluster])")
    parser.set_defaults(run=cosimulate)


def cosimulate(args):
    import mechsim as ms
    from .sweep import connect
    arguments = load_cosimulation(args.file)
    for key in ("method", "h", "t_end", "stiffness", "damping", "baumgarte", "exchange", "ordering", "transport",
                "realtime"):
        if getattr(args, key) is not None:
            arguments[key] = getattr(args, key)
    check_target(args.output, OUTPUT_SUFFIXES, "--output")
    client = connect(args.scheduler) if args.scheduler else None
    try:
        result = ms.cosimulate(**arguments, workers=client)
    finally:
        if client is not None:
            client.close()
    for name, stats in result.stats.items():
        if "realtime" in stats:
            print(f"{name}: {realtime_summary(stats['realtime'])}")
    signals = args.signals
    if signals:
        unknown = [s for s in signals if s not in result.signals]
        if unknown:
            raise ms.MechsimError(f"unknown signal {unknown[0]!r}; the signals are {', '.join(result.signals)}")
    if args.output:
        with writing(args.output):
            result.save(args.output, signals)
        print(wrote(args.output, result))
    else:
        shown = signals or [s for s in result.signals if s.endswith(".q") or s.endswith(".violation")]
        print("\n".join([f"{', '.join(result.parts)}: {len(result)} samples, t = {result.t[0]:.6g} to "
                         f"{result.t[-1]:.6g}", *final_values(result, shown)]))
