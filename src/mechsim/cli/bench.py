"""``mechsim bench``: the speed suite (SPEC §6), mechsim.bench, which only this command imports."""


def add_parser(commands):
    from ..bench import build_parser
    parser = commands.add_parser("bench", help="run the speed suite against Pinocchio and MuJoCo (SPEC §6)")
    build_parser(parser)
    parser.set_defaults(run=bench)


def bench(args):
    from ..bench import run_from_args
    run_from_args(args)
