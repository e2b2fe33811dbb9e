"""``mechsim warmup``: compile the kernels ahead of the first run, in parallel.

numba compiles a kernel the first time a run needs it and caches it on disk (_jit_cache.py). A run
compiles only the machinery it uses (dynamics/system.py): an open chain the tree dynamics, a closed
loop the multipliers and the projection, the null-space formulation its own; events and load frictions
compile their code where a run has them (simulation/problem.py). ``warmup`` runs short simulations of each
kind, without and with an event, with a signal of its Result and the dynamics functions of the API, one kind
per process, so that on a machine with several cores the kinds compile side by side; later runs load
them from the cache.
"""
import os
import time

LINK = {"mass": 1.0, "com": [0.5, 0, 0], "inertia": [0.0, 0.0833, 0.0833], "frames": {"tip": [1.0, 0, 0]}}
OPEN_CHAIN = {
    "name": "warmup chain", "gravity": [0, -9.81, 0],
    "bodies": [dict(LINK, name="upper"), dict(LINK, name="lower")],
    "joints": [{"name": "j1", "kind": "revolute", "parent": "ground", "child": "upper", "axis": [0, 0, 1], "q0": 1.0},
               {"name": "j2", "kind": "revolute", "parent": "upper", "child": "lower", "parent_frame": "tip",
                "axis": [0, 0, 1]}],
}
# a parallelogram four-bar: crank and rocker 1 m, coupler and ground 2 m; j3 closes the loop
CLOSED_LOOP = {
    "name": "warmup loop", "gravity": [0, -9.81, 0],
    "bodies": [dict(LINK, name="crank"), dict(LINK, name="rocker"),
               dict(LINK, name="coupler", com=[1.0, 0, 0], frames={"tip": [2.0, 0, 0]})],
    "joints": [{"name": "j1", "kind": "revolute", "parent": "ground", "child": "crank", "axis": [0, 0, 1], "q0": 1.0},
               {"name": "j2", "kind": "revolute", "parent": "crank", "child": "coupler", "parent_frame": "tip",
                "axis": [0, 0, 1], "q0": -1.0},
               {"name": "j4", "kind": "revolute", "parent": "ground", "child": "rocker", "parent_frame": [2.0, 0, 0],
                "axis": [0, 0, 1], "q0": 1.0},
               {"name": "j3", "kind": "revolute", "parent": "coupler", "child": "rocker", "parent_frame": "tip",
                "child_frame": "tip", "axis": [0, 0, 1], "q0": 1.0, "cut": True}],
}
# a ball dropped 0.1 m onto the floor, thrown sideways: a bounce (compiled) and a sliding landing (the modes)
CONTACTS = {
    "name": "warmup ball", "gravity": [0, 0, -9.81],
    "bodies": [{"name": "ball", "mass": 1.0, "inertia": [0.004, 0.004, 0.004]}],
    "joints": [{"name": "free", "kind": "free", "parent": "ground", "child": "ball", "q0": [0, 0, 0.2, 1, 0, 0, 0],
                "v0": [1.0, 0, 0, 0, 0, 0]}],
    "contacts": [{"name": "floor", "body": "ball", "shape": "sphere", "radius": 0.1, "restitution": 0.5,
                  "static": 0.3, "kinetic": 0.3, "min_bounce_speed": 0.5}],
}
# a wheel on a pin with load-dependent friction, turned by a growing torque: it breaks away at ~0.12 s and slips
LOAD_FRICTION = {
    "name": "warmup wheel", "gravity": [0, -9.81, 0],
    "bodies": [{"name": "wheel", "mass": 3.0, "inertia": [0.025, 0.025, 0.05]}],
    "joints": [{"name": "axle", "kind": "revolute", "parent": "ground", "child": "wheel", "axis": [0, 0, 1]}],
    "forces": [{"name": "drive", "kind": "joint_force", "joint": "axle", "value": "2*t"},
               {"name": "pin", "kind": "joint_friction", "joint": "axle", "mu": [0.4, 0.3], "radius": 0.02}],
}
# kind: (model, simulate options, its hybrid run: (t_end, a signal of its Result), or None for short runs without and
# with an event, a signal and the API's dynamics functions)
KINDS = {"open chains": (OPEN_CHAIN, {}, None), "closed loops": (CLOSED_LOOP, {}, None),
         "the null-space formulation": (CLOSED_LOOP, {"formulation": "nullspace"}, None),
         "contacts": (CONTACTS, {}, (0.6, "floor.normal_force")),
         "load frictions": (LOAD_FRICTION, {}, (0.2, "pin.force"))}


def add_parser(commands):
    parser = commands.add_parser("warmup", help="compile the kernels ahead of the first run (once per machine)")
    parser.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 1,
                        help="processes compiling side by side (default: the number of CPUs)")
    parser.set_defaults(run=warmup)


def warmup(args):
    from concurrent.futures import ProcessPoolExecutor    # imported here: multiprocessing, not at start-up
    from ..errors import MechsimError
    if args.jobs < 1:
        raise MechsimError(f"--jobs must be at least 1, got {args.jobs}")
    print(f"compiling mechsim's kernels for {', '.join(KINDS)} in {min(args.jobs, len(KINDS))} process(es) ...",
          flush=True)
    start = time.perf_counter()
    with ProcessPoolExecutor(max_workers=min(args.jobs, len(KINDS))) as pool:
        for kind, seconds in zip(KINDS, pool.map(compile_kind, KINDS)):
            print(f"  {kind}: {seconds:.0f} s", flush=True)
    print(f"done in {time.perf_counter() - start:.0f} s; runs load them from the cache now")


def compile_kind(kind):
    """Seconds taken by a short run of ``kind`` (KINDS), its Result's signals and the dynamics functions."""
    from .. import _jit_cache
    _jit_cache.listen().printed = True               # warmup says what it compiles itself
    import numpy as np
    import mechsim as ms
    start = time.perf_counter()
    data, options, hybrid_run = KINDS[kind]
    model = ms.load_dict(data)
    if hybrid_run is not None:
        t_end, signal = hybrid_run
        model.simulate(t_end=t_end, **options)[signal]
        return time.perf_counter() - start
    model.simulate(t_end=0.01, **options)       # a run without events compiles no event code (simulation/problem.py)
    # an event that fires (j1 falls from 1 rad, past 0.99999 at ~2 ms): its compiled location compiles too
    result = model.simulate(t_end=0.01, events=[ms.Event("j1.q", value=0.99999)], **options)
    state = model.initial_state()
    q, v = state.q, np.zeros_like(state.v)
    a = ms.forward_dynamics(model, q, v)
    if data is OPEN_CHAIN:                       # inverse dynamics and the mass matrix are a tree's
        result["upper.position"]
        ms.inverse_dynamics(model, q, v, a)
        ms.mass_matrix(model, q)
    else:
        result["j3.reaction"], result["j3.q"]     # a cut joint's signals: their own pass (dynamics/cut_joints.py)
    return time.perf_counter() - start
