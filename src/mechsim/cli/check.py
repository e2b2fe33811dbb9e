"""``mechsim check``: degrees of freedom, topology (loops, redundant equations), bodies and joints."""
from .common import add_model_argument, load_model, table


def add_parser(commands):
    parser = commands.add_parser("check", help="print the degrees of freedom, topology, bodies and joints")
    add_model_argument(parser)
    parser.set_defaults(run=check)


def check(args):
    model = load_model(args)
    print(model.check())
    bodies = [[name, f"{body.mass:g}"] for name, body in model.bodies.items() if name != "ground"]
    joints = [[name, joint.kind, f"{joint.parent} -> {joint.child}", ", ".join(joint.coordinate_names()[0]) or "-"]
              for name, joint in model.joints.items()]
    print("\nbodies:")
    print(table(["name", "mass"], bodies))
    print("\njoints:")
    print(table(["name", "kind", "parent -> child", "coordinates"], joints))
