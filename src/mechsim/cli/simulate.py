"""``mechsim simulate``: run a model and write, plot, animate or summarize the results."""
from ..viz.plot import plot
from .animate import add_animation_options, check_animation, write_animation
from .common import (OUTPUT_SUFFIXES, PLOT_SUFFIXES, add_model_argument, add_simulate_options, check_target,
                     final_values, known_signals, load_model, names, realtime_summary, require_matplotlib, run,
                     simulate_options, wrote, writing)


def add_parser(commands):
    parser = commands.add_parser("simulate", help="simulate a model; write, plot or summarize the results",
                                 description="Simulate a model. Options not given come from the file's "
                                 "simulation: section.")
    add_model_argument(parser)
    parser.add_argument("-o", "--output", help="write the signals to this .csv or .npz file")
    add_simulate_options(parser)
    parser.add_argument("--plot", metavar="PATH", help="plot the signals to this .png (.pdf, .svg) file")
    parser.add_argument("--signals", type=names, metavar="NAMES",
                        help="comma-separated signals to write, plot and summarize (default: all signals "
                             "in the output file, every joint's .q in the plot and the summary)")
    parser.add_argument("--animate", metavar="PATH", help="animate the run to this .html (.gif, .mp4) file")
    add_animation_options(parser)
    parser.set_defaults(run=simulate)


def simulate(args):
    model = load_model(args)
    signals = known_signals(model, args.signals, args.model)
    check_target(args.output, OUTPUT_SUFFIXES, "--output")
    check_target(args.plot, PLOT_SUFFIXES, "--plot")
    check_animation(args.animate, "--animate")
    if args.plot:
        require_matplotlib()
    result = run(model, simulate_options(model, args), args.output, signals)
    shown = signals or [name for name in model.signals() if name.endswith(".q")]
    for record in result.events:
        print(f"event at t = {record.time:.9g}: {record.kind} {record.name}: {record.detail}")
    if "realtime" in result.stats:
        print(realtime_summary(result.stats["realtime"]))
    if args.output:
        with writing(args.output):
            result.save(args.output, signals)
        print(wrote(args.output, result))
    else:
        print("\n".join([f"{result.model.name}: {len(result)} samples, t = {result.t[0]:.6g} to {result.t[-1]:.6g}",
                         *final_values(result, shown)]))
    if args.plot:
        with writing(args.plot):
            plot(result, shown, args.plot)
        print(f"wrote {args.plot}")
    if args.animate:
        write_animation(result, args.animate, args)
