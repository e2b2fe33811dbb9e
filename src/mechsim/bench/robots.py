"""Real robots (example-robot-data URDFs shipped in robot_files/): warm loading time of PR2, and
``ms.forward_dynamics`` vs ``pin.aba`` per call on PR2 (fixed base) and Solo12 (free-flyer base),
after checking that both give the same accelerations at the timed state.
"""
import warnings
from pathlib import Path

import numpy as np

import mechsim as ms

from .targets import AGREEMENT_TOL, FD_TARGET, LOAD_TARGET_S
from .timing import best_seconds, best_us

ROBOT_FILES = Path(__file__).resolve().parent / "robot_files"

# (robot, ms.load options, free-flyer base); mimic=False keeps PR2 a tree, as Pinocchio's model is
FD_CASES = (("pr2", {"merge_fixed": True, "mimic": False}, False), ("solo12", {}, True))


def robot_path(name):
    """Path of robot_files/<name>.urdf."""
    return str(ROBOT_FILES / f"{name}.urdf")


def load_quiet(path, **options):
    """ms.load without the importer's warnings (the meshes are not shipped; limits are ignored)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return ms.load(path, **options)


# ------------------------------------------------------------------------------------------ Pinocchio's coordinates
def random_state(m, rng):
    """(q, v, tau) uniform in [-1, 1], a free joint's quaternion (q[3:7] = w x y z) normalised."""
    q_names, v_names = m.coordinates()
    q, v, tau = rng.uniform(-1, 1, len(q_names)), rng.uniform(-1, 1, len(v_names)), rng.uniform(-5, 5, len(v_names))
    if "root_joint.q[3]" in q_names:
        k = q_names.index("root_joint.q[3]")
        q[k:k + 4] /= np.linalg.norm(q[k:k + 4])
    return q, v, tau


def pinocchio_state(pin, m, pm, q, v):
    """Pinocchio's (q, v) for mechsim's, and P with v = P v_pin. Pinocchio orders the joints itself;
    a continuous joint's q is (cos, sin) of the angle; its free flyer has q = [x y z qx qy qz qw] and
    v = [linear, angular] both in the moving frame (mechsim: q = [x y z w qx qy qz], linear velocity
    in the fixed frame)."""
    q_names, v_names = m.coordinates()
    qi, vi = {n: i for i, n in enumerate(q_names)}, {n: i for i, n in enumerate(v_names)}
    qp, P = np.zeros(pm.nq), np.zeros((len(v), pm.nv))
    for j in range(1, pm.njoints):
        name, joint = pm.names[j], pm.joints[j]
        iq, iv = joint.idx_q, joint.idx_v
        if joint.shortname() == "JointModelFreeFlyer":
            a = [qi[f"{name}.q[{k}]"] for k in range(7)]
            b = [vi[f"{name}.v[{k}]"] for k in range(6)]
            w, x, y, z = q[a[3:]]
            qp[iq:iq + 7] = [*q[a[:3]], x, y, z, w]
            P[np.ix_(b[:3], range(iv, iv + 3))] = pin.Quaternion(w, x, y, z).matrix()
            P[np.ix_(b[3:], range(iv + 3, iv + 6))] = np.eye(3)
        else:
            angle = q[qi[f"{name}.q"]]
            qp[iq:iq + joint.nq] = (np.cos(angle), np.sin(angle)) if joint.nq == 2 else angle
            P[vi[f"{name}.v"], iv] = 1.0
    return qp, P.T @ v, P


def free_flyer_bias(m, P, vp):
    """c with a = P a_pin + c: mechsim's free-joint linear velocity R v_local changes also by R (w x v_local)."""
    c, v_names = np.zeros(P.shape[0]), m.coordinates()[1]
    if "root_joint.v[0]" in v_names:          # Pinocchio's free flyer comes first: v_pin[0:6]
        linear = [v_names.index(f"root_joint.v[{k}]") for k in range(3)]
        c[linear] = P[np.ix_(linear, range(3))] @ np.cross(vp[3:6], vp[0:3])
    return c


# ------------------------------------------------------------------------------------------ the group
def run(peers, repeats, min_time, seed=2):
    """{"load": best warm ms.load of PR2, "rows": one per FD_CASES robot, "notes": [...]}. Raises
    AssertionError when Pinocchio's accelerations differ from mechsim's by more than
    AGREEMENT_TOL (relative to max(1, max|a|)) — a wrong coordinate map is not timed."""
    out = {"load": None, "rows": [], "notes": [], "tolerance": AGREEMENT_TOL, "repeats": repeats}
    pr2 = robot_path("pr2")
    times, models = best_seconds({"load": lambda: load_quiet(pr2, merge_fixed=True)}, repeats)
    dof = len(models["load"].coordinates()[1])
    out["load"] = {"seconds": times["load"], "dof": dof, "target_s": LOAD_TARGET_S,
                   "met": bool(times["load"] < LOAD_TARGET_S)}

    rng = np.random.default_rng(seed)
    statements = {}
    for name, options, floating in FD_CASES:
        m = load_quiet(robot_path(name), floating_base=floating, **options)
        q, v, tau = random_state(m, rng)
        a = ms.forward_dynamics(m, q, v, tau)                              # compile the model, JIT the kernel
        row = {"robot": name, "dof": len(v), "base": "free flyer" if floating else "fixed"}
        statements[name, "mechsim"] = ("fd(m, q, v, tau)", dict(fd=ms.forward_dynamics, m=m, q=q, v=v, tau=tau))
        if peers.pin is not None:
            pin = peers.pin
            path = robot_path(name)
            pm = pin.buildModelFromUrdf(path, pin.JointModelFreeFlyer()) if floating else pin.buildModelFromUrdf(path)
            pd = pm.createData()
            qp, vp, P = pinocchio_state(pin, m, pm, q, v)
            taup = P.T @ tau - pm.damping * vp                             # pin.aba leaves URDF damping out
            expected = P @ pin.aba(pm, pd, qp, vp, taup) + free_flyer_bias(m, P, vp)
            row["error"] = float(np.max(np.abs(expected - a))) / max(1.0, float(np.max(np.abs(a))))
            if not row["error"] <= AGREEMENT_TOL:
                raise AssertionError(f"robots: mechsim and pin.aba disagree on {name}'s accelerations "
                                     f"({row['error']:.2e} > {AGREEMENT_TOL:g}); the timing would compare different physics")
            statements[name, "pin"] = ("aba(model, data, q, v, tau)",
                                       dict(aba=pin.aba, model=pm, data=pd, q=qp, v=vp, tau=taup))
        out["rows"].append(row)
    times = best_us(statements, repeats, min_time)
    for row in out["rows"]:
        row["mechsim_us"] = times[row["robot"], "mechsim"]
        if (row["robot"], "pin") in times:
            row["pin_us"] = times[row["robot"], "pin"]
            row["ratio_pin"] = row["mechsim_us"] / row["pin_us"]
            row["met"] = bool(row["ratio_pin"] <= FD_TARGET)
    return out
