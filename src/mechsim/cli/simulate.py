"""``mechsim simulate``: run a model and write, plot, animate or summarize the results."""
from contextlib import contextmanager

from ..viz.plot import MAX_PANELS, default_signals, draw_plot, plot_data
from ..viz.plot_worker import PlotWorker, wanted
from .animate import add_animation_options, check_animation, write_animation
from .common import (OUTPUT_SUFFIXES, PLOT_SUFFIXES, add_model_argument, add_simulate_options, check_target,
                     final_values, known_signals, load_model, names, plotting, realtime_summary, require_matplotlib,
                     run, simulate_options, wrote, writing)


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
                             "in the output file, every joint's .q in the plot and the summary; the plot gives "
                             f"{MAX_PANELS} axes at most, the signals past them drawn together)")
    parser.add_argument("--udp", metavar="PORT:HOST:PEER_PORT",
                        help="exchange with another program over UDP at every step: receive the model's inputs on "
                             "PORT, send every joint's .q and .v to HOST:PEER_PORT (packets: SPEC C13; use with "
                             "--realtime)")
    parser.add_argument("--animate", metavar="PATH", help="animate the run to this .html (.gif, .mp4) file")
    add_animation_options(parser)
    parser.set_defaults(run=simulate)


def udp_link(model, text):
    """The link of --udp PORT:HOST:PEER_PORT: the model's inputs in, every joint's .q and .v out; its packet
    layout said on the terminal."""
    import mechsim as ms
    parts = text.split(":")
    port, host, peer_port = parts if len(parts) == 3 else ("", "", "")
    if not (host and port.isdigit() and peer_port.isdigit()):
        raise ms.MechsimError(f"--udp {text!r}: expected PORT:HOST:PEER_PORT, e.g. 9000:127.0.0.1:9001")
    cm = model.compile()
    outputs = [f"{joint}.{k}" for joint in cm.joint_order if cm.joint_v[joint].stop > cm.joint_v[joint].start
               for k in ("q", "v")]
    link = ms.UDPLink("udp", port=int(port), peer=(host, int(peer_port)), inputs=list(model.inputs), outputs=outputs)
    where = f"port {port}" if int(port) else "a free port"
    print(f"link 'udp': sends [{', '.join(['t', *outputs])}] to {host}:{peer_port} at every step, receives "
          f"[{', '.join(['t', *link.inputs])}] on {where} (little-endian float64)")
    return link


def simulate(args):
    model = load_model(args)
    signals = known_signals(model, args.signals, args.model)
    check_target(args.output, OUTPUT_SUFFIXES, "--output")
    check_target(args.plot, PLOT_SUFFIXES, "--plot")
    check_animation(args.animate, "--animate")
    with plotter(args.plot) as draw:
        result = _run(model, signals, args)
        if args.plot:
            data = plot_data(result, signals)
            with writing(args.plot), plotting():
                draw(data, args.plot)
            notes = [f"plot: {panel.note}" for panel in data.panels if panel.note]
            print("\n".join([f"wrote {args.plot}", *notes]))
    if args.animate:
        write_animation(result, args.animate, args)


def _run(model, signals, args):
    """Run, and say what happened: events, pacing, links; the results written to --output, or summarized."""
    options = simulate_options(model, args)
    if args.udp:
        options["links"] = [udp_link(model, args.udp)]
    result = run(model, options, args.output, signals)
    shown = signals or default_signals(model)
    for record in result.events:
        print(f"event at t = {record.time:.9g}: {record.kind} {record.name}: {record.detail}")
    if "realtime" in result.stats:
        print(realtime_summary(result.stats["realtime"]))
    from ..simulation.run_inputs import run_links     # imported here, not at start-up: it imports numba
    links = {link.name: link for link in run_links(model, options.get("links"))}
    for name, stats in result.stats.get("links", {}).items():
        print(f"link '{name}': {type(links[name]).summary(stats)}")
    if args.output:
        with writing(args.output):
            result.save(args.output, signals)
        print(wrote(args.output, result))
    else:
        print("\n".join([f"{result.model.name}: {len(result)} samples, t = {result.t[0]:.6g} to {result.t[-1]:.6g}",
                         *final_values(result, shown)]))
    return result


@contextmanager
def plotter(path):
    """What draws the --plot: a PlotWorker, started now to import matplotlib on another core while the run
    computes, where one pays (viz/plot_worker.py), else draw_plot in this process; a plot that cannot be drawn
    fails now, not after a long run."""
    if path and wanted():
        with plotting():
            worker = PlotWorker()
        with worker:
            yield worker.draw
    else:
        if path:
            require_matplotlib()
        yield draw_plot
