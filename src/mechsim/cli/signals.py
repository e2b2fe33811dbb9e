"""``mechsim signals``: the signal names of a model, one per line."""
from .common import add_model_argument, load_model


def add_parser(commands):
    parser = commands.add_parser("signals", help="list the signal names of a model, one per line")
    add_model_argument(parser)
    parser.set_defaults(run=signals)


def signals(args):
    print("\n".join(load_model(args).signals()))
