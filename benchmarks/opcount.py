"""Operation counts per link of mechsim's forward dynamics, measured, against Pinocchio's ABA, counted from its
source: CPU-independent evidence for issue 15 (mechsim faster per link than Pinocchio on an AMD EPYC, about 2x
slower on an Intel Xeon).

mechsim is measured. The kernel of ms.forward_dynamics (dynamics/kernels.py aba_packed) runs as plain Python
(NUMBA_DISABLE_JIT=1, so every @njit function is the function it decorates; this script re-runs itself so) on
numpy object arrays of Counted, a float that tallies every +, -, *, /, comparison and negation done on it and
every np.sqrt, np.sin, np.cos applied to it (through __array_ufunc__). Every array is a Tracked ndarray that
tallies element reads and writes (8 bytes each) and the addresses they touch. Each operation is charged to the
kernel step it runs in: the function a pass calls, or the commented loop of the pass it is written in. The
benchmark chain (mechsim.bench.chains.mechsim_chain) is counted at several N; the per-link slope must be exact
(counts linear in N), and the counted accelerations must equal those of the compiled ms.forward_dynamics.

What is counted is the source's arithmetic, which the compiled code executes: the kernels are compiled with
fastmath=False (spatial/algebra.py JIT), so LLVM may not reassociate, contract to FMA, or drop x + 0.0 and
x * 0.0; it may still merge a repeated identical subexpression (e.g. m * c[k], computed twice in
body_inertia_world), so the mechsim counts are an upper bound by those few. Loads and stores are the element
accesses the source writes, an upper bound on what the compiled code does (LLVM keeps some in registers); the
footprint, the distinct bytes touched, is exact.

Pinocchio is counted by hand from its source (PIN_STEPS: file and function of every step), for the algorithm
pin.aba runs: abaLocalConvention (the default Convention::LOCAL) with a revolute joint about a body axis
(JointModelRY / RZ, the benchmark chain's pinocchio_chain), per link that has a parent link.

    PYTHONPATH=src python benchmarks/opcount.py                  # the tables of benchmarks/README.md
    PYTHONPATH=src python benchmarks/opcount.py --json --sizes 1 2 3 4 5
"""
import argparse
import ast
import functools
import inspect
import json
import math
import os
import subprocess
import sys
from collections import Counter, namedtuple
from pathlib import Path

import numpy as np

SIZES = (1, 2, 5, 10, 20)
TOLERANCE = 1e-12            # counted against compiled accelerations, relative to max(1, |qdd|)
KINDS = ("add", "mul", "div", "sqrt", "sin", "cos", "cmp", "neg", "load", "store")
ELEMENT_BYTES = 8            # float64, int64 and object pointers alike

# mechsim's steps: the functions a pass calls (or the commented loops written in a pass), in execution order
FORWARD, BACKWARD, FORWARD2, SETUP = "forward pass", "backward pass", "second forward pass", "call set-up"
MECHSIM_STEPS = {
    "coordinate_counts": (SETUP, "sizes of q and v (index reads)"),
    "aba_tables": (SETUP, "tau copied into qdd"),
    "reference_point": (SETUP, "the point spatial quantities are referred to (node 0's joint frame)"),
    "node_pose": (FORWARD, "node origin p = p_F + axis * shift (shift = 0 for R)"),
    "joint_frame": (FORWARD, "joint frame R_F = R_parent R_tree, its origin, the axis in world"),
    "axis_angle_matrix": (FORWARD, "joint rotation R_J (Rodrigues)"),
    "matmul3": (FORWARD, "node rotation R = R_F R_J"),
    "turn_columns": (FORWARD, "node rotation R = R_F R_J, R_J about a coordinate axis"),
    "motion_subspace": (FORWARD, "S = (axis, p x axis + pitch axis)"),
    "node_velocity": (FORWARD, "v = v_parent + S qd, c = v_parent x v"),
    "body_inertia": (FORWARD, "body inertia about the node's origin in node axes (the model's table)"),
    "aba_first_pass": (FORWARD, "pA zeroed before the force elements add theirs (index reads)"),
    "node_bias_force": (FORWARD, "pA = v x* I v - f_ext in node axes, c = v x S qd (index reads, stores)"),
    "to_node": (FORWARD, "v in node axes at the node's origin"),
    "bias_force": (FORWARD, "v x* I v from mass, COM and inertia about the COM"),
    "force_to_node": (FORWARD, "the force elements' wrench in node axes at the node's origin (none here)"),
    "subspace_times": (FORWARD, "S qd in node axes"),
    "crm": (FORWARD, "c = v x S qd"),
    "aba_passes": (BACKWARD, "index reads"),
    "articulated_node": (BACKWARD, "index reads"),
    "U = IA S (IA symmetric; S: node axes, origin), u = tau - S^T pA": (BACKWARD, "U = IA S, u = tau - S^T pA"),
    "subspace_dot": (BACKWARD, "U = IA S, D = S^T U, S^T pA with S in node axes"),
    "D = S^T U, inverted in place": (BACKWARD, "D = S^T U"),
    "invert_joint_inertia": (BACKWARD, "D^-1"),
    "articulate": (BACKWARD, "IA_parent += X^T (IA - U D^-1 U^T) X, pA_parent += X^T (pA + Ia c + U D^-1 u)"),
    "joint_force_columns": (BACKWARD, "U in world axes at the reference point, for the second forward pass"),
    "bias_acceleration": (FORWARD2, "a = a_parent + c"),
    "joint_acceleration": (FORWARD2, "qdd = D^-1 (u - U^T a)"),
    "add_joint_acceleration": (FORWARD2, "a += S qdd"),
}
# functions whose callees are steps of their own; the operations written in them are charged to their commented
# loops (e.g. "# U = IA S" in aba_passes), or else to themselves
CONTAINERS = {"aba_packed", "aba_tables", "aba_first_pass", "node_bias_force", "forward_kinematics", "node_pose",
              "applied_forces", "aba_passes", "articulated_node"}

# Pinocchio 4.1.0 (pip package "pin"), headers under include/pinocchio/src/ as installed; the same code sits in
# include/pinocchio/ of the GitHub tag v3.7.0. Per revolute link with a parent link, LOCAL convention.
PinStep = namedtuple("PinStep", "phase step add mul div trig source")
ABA, REV, SE3, MOT, FRC, INE, SYM = ("algorithm/aba.hxx", "multibody/joint/joint-revolute.hxx",
                                     "spatial/se3-tpl.hxx", "spatial/motion-dense.hxx", "spatial/force-dense.hxx",
                                     "spatial/inertia.hxx", "spatial/symmetric3.hxx")
PIN_BYPRODUCT = "data.a, data.f (not needed for qdd)"
PIN_STEPS = (
    PinStep(FORWARD, "joint calc: sincos(q)", 0, 0, 0, 2, f"{REV} JointModelRevoluteTpl::calc (SINCOS)"),
    PinStep(FORWARD, "liMi = jointPlacement * M(q)", 6, 12, 0, 0,
            f"{ABA} AbaLocalConventionForwardStep1; {REV} TransformRevoluteTpl::se3Action: a column 2 axpy, "
            "a cross product"),
    PinStep(FORWARD, "v = liMi^-1 v_parent + S qd", 24, 24, 0, 0,
            f"{MOT} se3ActionInverse_impl: t x w, 2 R^T products; += 6"),
    PinStep(FORWARD, "c = v x S qd", 0, 4, 0, 0, f"{REV} MotionRevoluteTpl::motionAction: 2 alphaCross"),
    PinStep(FORWARD, "Yaba = I (6x6 from mass, lever, Symmetric3)", 9, 18, 0, 0,
            f"{INE} InertiaTpl::matrix_impl: alphaSkew (3 mul), {SYM} operator-(AlphaSkewSquare)"),
    PinStep(FORWARD, "h = I v", 18, 24, 0, 0, f"{INE} InertiaTpl::__mult__: 2 cross products, rhsMult"),
    PinStep(FORWARD, "pA = v x* h", 12, 18, 0, 0, f"{FRC} ForceDense::motionAction: 3 cross products"),
    PinStep(BACKWARD, "u -= S^T pA", 1, 0, 0, 0, f"{ABA} AbaLocalConventionBackwardStep (S^T f: a coefficient)"),
    PinStep(BACKWARD, "U, D^-1, U D^-1, Ia = IA - U D^-1 U^T", 37, 42, 1, 0,
            f"{REV} JointModelRevoluteTpl::calc_aba (armature added to D; U a column of IA)"),
    PinStep(BACKWARD, "pa = pA + Ia c + U D^-1 u", 42, 42, 0, 0, f"{ABA} AbaLocalConventionBackwardStep"),
    PinStep(BACKWARD, "Yaba_parent += liMi Ia liMi^T", 198, 216, 0, 0,
            f"{ABA} internal::SE3actOn::run: six 3x3 products, nine cross products; += 36"),
    PinStep(BACKWARD, "f_parent += liMi pa", 24, 24, 0, 0, f"{FRC} se3Action_impl: 2 R products, t x f; += 6"),
    PinStep(FORWARD2, "a = liMi^-1 a_parent + c", 24, 24, 0, 0, f"{ABA} AbaLocalConventionForwardStep2; {MOT}"),
    PinStep(FORWARD2, "qdd = D^-1 u - (U D^-1)^T a", 6, 7, 0, 0, f"{ABA} AbaLocalConventionForwardStep2"),
    PinStep(FORWARD2, "a += S qdd", 1, 0, 0, 0, f"{REV} MotionRevoluteTpl::addTo"),
    PinStep(PIN_BYPRODUCT, "data.a = a + oMi.R^T g", 9, 9, 0, 0, f"{ABA} AbaLocalConventionForwardStep2"),
    PinStep(PIN_BYPRODUCT, "data.f = I a + v x* h", 36, 42, 0, 0, f"{ABA} AbaLocalConventionForwardStep2; {INE}"),
    PinStep(PIN_BYPRODUCT, "f_parent += liMi f", 24, 24, 0, 0, f"{ABA} abaLocalConvention, last loop; {FRC}"),
)
# Pinocchio's per-link footprint, derived from its data layout (doubles, 8 bytes): the arrays a link's steps
# read or write. Model: jointPlacements (SE3: 3x3 + 3), inertias (mass, lever 3, Symmetric3 6), armature.
# Data: liMi, v, a_gf, Yaba (6x6), h, f, u, ddq, the revolute joint data (q, v, sin, cos, w, U, Dinv, UDinv),
# and for the by-products a and the rotation of oMi. Indices (parents, idx_q, idx_v) are left out.
PIN_FOOTPRINT = {"model": 8 * (12 + 10 + 1), "data": 8 * (12 + 6 + 6 + 36 + 6 + 6 + 1 + 1 + 1 + 1 + 2 + 1 + 6 + 1 + 6),
                 "state": 8 * 3, "by-products": 8 * (6 + 9)}


class Counted(float):
    """A float whose arithmetic is tallied: +, - (add), *, / and comparisons; np.sqrt, np.sin, np.cos and
    np.negative through __array_ufunc__. Any other operation raises, so none goes uncounted."""
    __slots__ = ()

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        if method != "__call__" or kwargs or ufunc.__name__ not in UFUNCS:
            raise TypeError(f"uncounted operation: np.{ufunc.__name__}")
        kind, function = UFUNCS[ufunc.__name__]
        charge(kind)
        return Counted(function(*map(float, inputs)))

    def __neg__(self):
        charge("neg")
        return Counted(-float(self))

    def __pos__(self):
        return self

    def _uncounted(self, *_):
        raise TypeError("uncounted operation on a Counted")

    __pow__ = __rpow__ = __mod__ = __rmod__ = __floordiv__ = __rfloordiv__ = __divmod__ = __abs__ = _uncounted


def _binary(kind, function):
    def operation(a, b):
        if not isinstance(b, (int, float)):
            return NotImplemented
        charge(kind)
        return function(float(a), float(b))
    return operation


for _name, _kind, _function in (
        ("add", "add", lambda a, b: Counted(a + b)), ("radd", "add", lambda a, b: Counted(b + a)),
        ("sub", "add", lambda a, b: Counted(a - b)), ("rsub", "add", lambda a, b: Counted(b - a)),
        ("mul", "mul", lambda a, b: Counted(a * b)), ("rmul", "mul", lambda a, b: Counted(b * a)),
        ("truediv", "div", lambda a, b: Counted(a / b)), ("rtruediv", "div", lambda a, b: Counted(b / a)),
        ("lt", "cmp", float.__lt__), ("le", "cmp", float.__le__), ("gt", "cmp", float.__gt__),
        ("ge", "cmp", float.__ge__)):
    setattr(Counted, f"__{_name}__", _binary(_kind, _function))

UFUNCS = {"sqrt": ("sqrt", math.sqrt), "sin": ("sin", math.sin), "cos": ("cos", math.cos),
          "negative": ("neg", lambda a: -a), "add": ("add", lambda a, b: a + b),
          "subtract": ("add", lambda a, b: a - b), "multiply": ("mul", lambda a, b: a * b),
          "true_divide": ("div", lambda a, b: a / b)}


class Tracked(np.ndarray):
    """An ndarray whose element reads and writes are tallied, with the address each touches; floats written
    into it become Counted. ``part`` names the array a view belongs to (workspace, model or state)."""

    def __array_finalize__(self, obj):
        self.part = getattr(obj, "part", None)

    def __getitem__(self, key):
        item = super().__getitem__(key)
        if not isinstance(item, np.ndarray):
            self._touch(key, "load")
        return item

    def __setitem__(self, key, value):
        if isinstance(value, float) and not isinstance(value, Counted):
            value = Counted(value)
        super().__setitem__(key, value)
        self._touch(key, "store")

    def _touch(self, key, kind):
        key = key if isinstance(key, tuple) else (key,)
        if len(key) != self.ndim or not all(isinstance(k, (int, np.integer)) for k in key):
            raise TypeError(f"uncounted array access {key!r}")
        offset = sum(int(k) % n * s for k, n, s in zip(key, self.shape, self.strides))
        TOUCHED[self.__array_interface__["data"][0] + offset] = self.part
        charge(kind)


TALLY = Counter()            # (step, kind) -> count
TOUCHED = {}                 # address -> part of every element read or written


def charge(kind):
    TALLY[current_step(), kind] += 1


def current_step():
    """The step of the innermost mechsim kernel frame on the stack: the outermost called function that is
    not a container, or the commented loop of the container the operation is written in."""
    package = str(Path(sys.modules["mechsim"].__file__).parent)
    frames, frame = [], sys._getframe(2)
    while frame is not None:
        if frame.f_code.co_filename.startswith(package):
            frames.append(frame)
        frame = frame.f_back
    if not frames:
        raise RuntimeError("an operation outside mechsim's kernels was counted")
    for frame in reversed(frames):
        name = frame.f_code.co_name
        if name not in CONTAINERS:
            return name
        if frame is frames[0]:
            return loop_label(frame.f_code, frame.f_lineno)


def loop_label(code, line):
    """The comment of the innermost commented for loop of ``code`` holding ``line``, else the function's name."""
    inside = [(first, text) for first, last, text in commented_loops(code) if first <= line <= last]
    return max(inside)[1] if inside else code.co_name


@functools.cache
def commented_loops(code):
    """(first line, last line, comment) of every for loop of a function whose first line has a comment."""
    lines, start = inspect.getsourcelines(code)
    loops = []
    for node in ast.walk(ast.parse("".join(lines))):
        if isinstance(node, ast.For) and "#" in lines[node.lineno - 1]:
            loops.append((start + node.lineno - 1, start + node.end_lineno - 1,
                          lines[node.lineno - 1].split("#", 1)[1].strip()))
    return loops


def chain_state(n):
    """The state every size is counted at: q in [-pi, pi], v and tau standard normal (seeded by n)."""
    rng = np.random.default_rng(n)
    return rng.uniform(-np.pi, np.pi, n), rng.normal(size=n), rng.normal(size=n)


def tracked(array, part):
    """A Tracked copy of a float array holding Counted (integer arrays: a Tracked view)."""
    out = array if array.dtype.kind == "i" else np.array([Counted(x) for x in array.ravel()],
                                                         dtype=object).reshape(array.shape)
    out = out.view(Tracked)
    out.part = part
    return out


def count_chain(n):
    """Tallies of one aba_packed call on the n-link chain: {"step|kind": count}, the footprint in bytes per
    part, and the accelerations."""
    from mechsim.bench.chains import mechsim_chain
    from mechsim.dynamics.kernels import aba_packed, new_workspace
    from mechsim.status import OK
    cm = mechsim_chain(n).compile()
    model_i, model_f = cm.packed_tables()
    q, v, tau = chain_state(n)
    args = [tracked(model_i, "model"), tracked(model_f, "model"), tracked(new_workspace(cm.n_nodes), "workspace"),
            tracked(q, "state"), tracked(v, "state"), tracked(tau, "state"), tracked(np.zeros(n), "state")]
    TALLY.clear()
    TOUCHED.clear()
    if aba_packed(*args) != OK:
        raise RuntimeError(f"aba_packed failed on the {n}-link chain")
    footprint = Counter(TOUCHED.values())
    return {"counts": {f"{step}|{kind}": c for (step, kind), c in TALLY.items()},
            "footprint": {part: ELEMENT_BYTES * c for part, c in footprint.items()},
            "qdd": [float(x) for x in args[6].view(np.ndarray)]}


def compiled_accelerations(n):
    import mechsim as ms
    from mechsim.bench.chains import mechsim_chain
    return ms.forward_dynamics(mechsim_chain(n), *chain_state(n))


def slope_and_constant(values):
    """(per-link slope, per-call constant) of counts {n: c} exactly linear in n; None if they are not."""
    sizes = sorted(values)
    first, last = sizes[0], sizes[-1]
    slope = (values[last] - values[first]) // (last - first)
    constant = values[first] - slope * first
    return (slope, constant) if all(values[n] == constant + slope * n for n in sizes) else None


def derive(runs):
    """Per-link slopes and per-call constants of every tally of the counted runs {n: count_chain(n)}."""
    keys = {key for run in runs.values() for key in run["counts"]}
    fits = {key: slope_and_constant({n: run["counts"].get(key, 0) for n, run in runs.items()}) for key in keys}
    parts = {part for run in runs.values() for part in run["footprint"]}
    footprint = {part: slope_and_constant({n: run["footprint"].get(part, 0) for n, run in runs.items()})
                 for part in parts}
    linear = all(fit is not None for fit in (*fits.values(), *footprint.values()))
    order = list(runs[max(runs)]["counts"])         # execution order of the largest run
    steps = list(dict.fromkeys(key.split("|")[0] for key in order))
    return {"linear": linear, "steps": steps,
            "per_link": {key: fit[0] for key, fit in fits.items() if fit},
            "per_call": {key: fit[1] for key, fit in fits.items() if fit},
            "footprint_per_link": {part: fit[0] for part, fit in footprint.items() if fit}}


def measure(sizes):
    """Counts every size in a child process with NUMBA_DISABLE_JIT=1, checks its accelerations against the
    compiled ms.forward_dynamics and derives the per-link numbers."""
    env = dict(os.environ, NUMBA_DISABLE_JIT="1")
    out = subprocess.run([sys.executable, __file__, "--child", "--sizes", *map(str, sizes)], env=env,
                         capture_output=True, text=True, check=True).stdout
    runs = {int(n): run for n, run in json.loads(out).items()}
    errors = []
    for n, run in runs.items():
        reference = compiled_accelerations(n)
        errors.append(float(np.max(np.abs(np.array(run["qdd"]) - reference)) / max(1.0, np.max(np.abs(reference)))))
    result = derive(runs)
    result.update(sizes=sorted(runs), max_error=max(errors),
                  totals={n: {kind: sum(c for key, c in run["counts"].items() if key.endswith("|" + kind))
                              for kind in KINDS} for n, run in runs.items()})
    return result


def step_row(counts, step):
    """(add, mul, div, transcendental, load bytes, store bytes) of one step in {"step|kind": count}."""
    get = lambda kind: counts.get(f"{step}|{kind}", 0)                                  # noqa: E731
    return (get("add"), get("mul"), get("div"), get("sqrt") + get("sin") + get("cos"),
            ELEMENT_BYTES * get("load"), ELEMENT_BYTES * get("store"))


def mechsim_phases(result, counts):
    """Sums of step_row over each phase of MECHSIM_STEPS."""
    sums = {}
    for step in result["steps"]:
        phase = MECHSIM_STEPS.get(step, ("unlisted",))[0]
        sums[phase] = tuple(a + b for a, b in zip(sums.get(phase, (0,) * 6), step_row(counts, step)))
    return sums


def pin_phases():
    sums = {}
    for s in PIN_STEPS:
        sums[s.phase] = tuple(a + b for a, b in zip(sums.get(s.phase, (0,) * 4), (s.add, s.mul, s.div, s.trig)))
    return sums


def total(rows):
    return tuple(map(sum, zip(*rows)))


def markdown(result):
    """The three tables of benchmarks/README.md's section on operation counts, from measure()'s result."""
    per_link, per_call = result["per_link"], result["per_call"]
    lines = ["| pass | mechsim step (kernels.py) | adds | muls | divs | sqrt/sin/cos | loads B | stores B |",
             "|---|---|---:|---:|---:|---:|---:|---:|"]
    for step in result["steps"]:
        phase, what = MECHSIM_STEPS.get(step, ("unlisted", step))
        lines.append(f"| {phase} | `{step}`: {what} | " + " | ".join(map(str, step_row(per_link, step))) + " |")
    link = total(step_row(per_link, step) for step in result["steps"])
    call = total(step_row(per_call, step) for step in result["steps"])
    lines.append("| **per link** | | " + " | ".join(f"**{x}**" for x in link) + " |")
    lines.append("| per-call constant | | " + " | ".join(map(str, call)) + " |")
    kind_total = lambda kind: sum(c for key, c in per_link.items() if key.endswith("|" + kind))   # noqa: E731
    lines += ["", f"Not in the columns, per link: comparisons {kind_total('cmp')}, negations (sign flips) "
                  f"{kind_total('neg')}."]
    lines += ["", "| pass | Pinocchio step (pin.aba, LOCAL convention) | adds | muls | divs | sin/cos | source |",
              "|---|---|---:|---:|---:|---:|---|"]
    for s in PIN_STEPS:
        lines.append(f"| {s.phase} | {s.step} | {s.add} | {s.mul} | {s.div} | {s.trig} | {s.source} |")
    core = total((s.add, s.mul, s.div, s.trig) for s in PIN_STEPS if s.phase != PIN_BYPRODUCT)
    whole = total((s.add, s.mul, s.div, s.trig) for s in PIN_STEPS)
    lines.append("| **per link, for qdd** | | " + " | ".join(f"**{x}**" for x in core) + " | |")
    lines.append("| per link, all of pin.aba | | " + " | ".join(map(str, whole)) + " | |")
    ours, theirs = mechsim_phases(result, per_link), pin_phases()
    lines += ["", "| per link | mechsim adds | muls | divs | sqrt/sin/cos | Pinocchio adds | muls | divs | sin/cos |",
              "|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for phase in (SETUP, FORWARD, BACKWARD, FORWARD2, PIN_BYPRODUCT):
        mine, pins = ours.get(phase, (0,) * 6)[:4], theirs.get(phase, (0,) * 4)
        lines.append(f"| {phase} | " + " | ".join(map(str, mine + pins)) + " |")
    lines.append("| **total, for qdd** | " + " | ".join(f"**{x}**" for x in link[:4] + core) + " |")
    lines.append("| total, all of pin.aba | " + " | ".join(map(str, link[:4] + whole)) + " |")
    footprint = result["footprint_per_link"]
    lines += ["", "| distinct bytes touched per link | mechsim (measured) | Pinocchio (derived from its layout) |",
              "|---|---:|---:|"]
    for part in ("model", "state", "workspace", "data", "by-products"):
        lines.append(f"| {part} | {footprint.get(part, 0)} | {PIN_FOOTPRINT.get(part, 0)} |")
    lines.append(f"| **total** | **{sum(footprint.values())}** | **{sum(PIN_FOOTPRINT.values())}** |")
    return "\n".join(lines) + "\n"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=SIZES, help="chain lengths N to count")
    parser.add_argument("--json", action="store_true", help="print the derived counts as JSON")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        if os.environ.get("NUMBA_DISABLE_JIT") != "1":
            raise SystemExit("--child needs NUMBA_DISABLE_JIT=1 (the kernels must run as Python)")
        print(json.dumps({n: count_chain(n) for n in args.sizes}))
        return 0
    result = measure(args.sizes)
    if args.json:
        print(json.dumps(result))
    else:
        print(markdown(result))
        print(f"N = {result['sizes']}: counts exactly linear in N: {result['linear']}; counted accelerations against "
              f"the compiled ms.forward_dynamics: max relative difference {result['max_error']:.1e}")
    return 0 if result["linear"] and result["max_error"] <= TOLERANCE else 1


if __name__ == "__main__":
    sys.exit(main())
