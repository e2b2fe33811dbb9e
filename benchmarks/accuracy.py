"""Accuracy of forward dynamics on ill-conditioned trees (issue 45): mechsim's and Pinocchio's ABA (its body-frame
Convention.LOCAL, the default, and Convention.WORLD) at random states, errors |qdd - qdd_ref| / |qdd_ref| (2-norms)
against two references:

- "pin M": M qdd = tau - h solved in 40 digits (mpmath), M (crba) and h (rnea at qdd = 0) Pinocchio's in float64.
  This favours Pinocchio: its crba, rnea and aba round the same local 6x6 inertias, a perturbation of the model
  that cond(M) amplifies in all three alike.
- "exact": mechsim's recursions (dynamics/kernels.py) run as Python on 40-digit mpmath numbers, the model's float64
  data taken as exact: the dynamics of the model as given (a process of its own: NUMBA_DISABLE_JIT=1).

    python benchmarks/accuracy.py                  # iCub on a fixed base and the synthetic arms
    python benchmarks/accuracy.py --samples 5

The synthetic arm (``arm_urdf``): six 10 kg links 0.5 m long on revolute joints carry a wrist of three joints
with intersecting axes on massless links and a light hand of mass ``light``, its COM 0.1 m out along the last
axis (iCub's head on its neck): cond(M) grows as 1 / light. Two kinds of tau: uniform in [-5, 5] (as
tests/io/robot_files.py), which gives the light joints the largest accelerations, and tau = M a + h with a uniform
in [-1, 1], accelerations of order 1 at every joint. Needs the bench extra (Pinocchio, example-robot-data).
"""
import argparse
import importlib.metadata
import os
import subprocess
import sys
import tempfile
import types
import warnings
from pathlib import Path

import numpy as np

DIGITS = 40


def arm_urdf(light, links=6):
    """URDF of the heavy arm with the light hand on a wrist (module docstring)."""
    def link(name, mass, com, radius):
        i = mass * radius ** 2
        return (f'<link name="{name}"><inertial><origin xyz="{com[0]} {com[1]} {com[2]}"/><mass value="{mass}"/>'
                f'<inertia ixx="{i}" iyy="{i}" izz="{i}" ixy="0" ixz="0" iyz="0"/></inertial></link>')

    def joint(name, parent, child, offset, axis):
        return (f'<joint name="{name}" type="revolute"><parent link="{parent}"/><child link="{child}"/>'
                f'<origin xyz="{offset} 0 0"/><axis xyz="{axis}"/>'
                f'<limit lower="-10" upper="10" effort="1" velocity="1"/></joint>')

    parts, parent = ['<robot name="arm"><link name="base"/>'], "base"
    for k in range(links):
        parts += [link(f"l{k}", 10.0, (0.25, 0, 0), 0.15), joint(f"j{k}", parent, f"l{k}", 0.5 if k else 0.0,
                                                                  ("0 1 0", "0 0 1")[k % 2])]
        parent = f"l{k}"
    for k, axis in enumerate(("0 1 0", "1 0 0", "0 0 1")):
        hand = k == 2
        parts += [link(f"w{k}", light if hand else 0.0, (0, 0, 0.1) if hand else (0, 0, 0), 0.02 if hand else 0.0),
                  joint(f"wj{k}", parent, f"w{k}", 0.5 if k == 0 else 0.0, axis)]
        parent = f"w{k}"
    return "".join(parts) + "</robot>"


def icub():
    root = Path(importlib.metadata.distribution("example-robot-data").locate_file(
        "cmeel.prefix/share/example-robot-data/robots"))
    return root / "icub_description" / "robots" / "icub.urdf"


def load(path):
    import mechsim as ms
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return ms.load(path, mimic=False, limits=False)


def random_state(m, rng):
    """Random (q, v) of model m in [-1, 1] (tests/io/robot_files.py)."""
    q_names, v_names = m.coordinates()
    return rng.uniform(-1, 1, len(q_names)), rng.uniform(-1, 1, len(v_names))


def exact_forward_dynamics(path, q, v, tau):
    """Rows of qdd for the rows of q, v, tau: mechsim's ABA in DIGITS-digit arithmetic (exact_worker)."""
    with tempfile.TemporaryDirectory() as folder:
        states = Path(folder) / "states.npz"
        np.savez(states, q=q, v=v, tau=tau)
        subprocess.run([sys.executable, __file__, "--exact", str(path), str(states)], check=True,
                       env=dict(os.environ, NUMBA_DISABLE_JIT="1"))
        return np.load(states)["qdd"]


def exact_worker(path, states):
    """Under NUMBA_DISABLE_JIT=1 the kernels are Python: run aba_packed on object arrays of mpmath numbers (the
    model's tables too, so that products of its data are not rounded), with the spatial helpers' sin, cos and
    sqrt taken from mpmath."""
    import mpmath

    from mechsim.dynamics import kernels
    from mechsim.dynamics.compiled import node_axes_columns
    from mechsim.dynamics.layout import PTYPE
    from mechsim.spatial import algebra
    from mechsim.status import OK
    assert os.environ.get("NUMBA_DISABLE_JIT") == "1"
    mpmath.mp.dps = DIGITS
    algebra.np = types.SimpleNamespace(sin=mpmath.sin, cos=mpmath.cos, sqrt=mpmath.sqrt, ndindex=np.ndindex)
    exact = np.vectorize(mpmath.mpf, otypes=[object])
    m = load(path)
    model_i, model_f, ws, _, nv = m.compile().fd_tables
    model_f, n = exact(model_f), ws.shape[0] - 1
    for f, ptype in zip(model_f[:n], model_i[:n, PTYPE]):    # the node-axes inertias from the exact mass properties,
        node_axes_columns(f, ptype)                          # not the float64 ones compiled.py tabled
    data = dict(np.load(states))
    data["qdd"] = np.zeros_like(data["tau"])
    for k, (q, v, tau) in enumerate(zip(data["q"], data["v"], data["tau"])):
        qdd = exact(np.zeros(nv))
        assert kernels.aba_packed(model_i, model_f, exact(ws), exact(q), exact(v), exact(tau), qdd) == OK
        data["qdd"][k] = qdd.astype(float)
    np.savez(states, **data)


def errors(path, rng, samples):
    """{(reference, tau kind): [(cond(M), error of pin LOCAL, pin WORLD, mechsim), ...]} at random states of the
    URDF ``path`` on a fixed base."""
    import mpmath
    import pinocchio as pin

    import mechsim as ms
    from mechsim.bench import robots as bench_robots
    m, pm = load(path), pin.buildModelFromUrdf(str(path))
    pd = pm.createData()
    rows, runs = {}, []
    for _ in range(samples):
        q, v = random_state(m, rng)
        qp, vp, P = bench_robots.pinocchio_state(pin, m, pm, q, v)
        M = pin.crba(pm, pd, qp)
        M = np.triu(M) + np.triu(M, 1).T
        h = pin.rnea(pm, pd, qp, vp, np.zeros(pm.nv))
        for kind, tau_p in (("random tau", rng.uniform(-5, 5, pm.nv)), ("tau = M a + h", M @ rng.uniform(-1, 1, pm.nv) + h)):
            tau = P @ (tau_p + pm.damping * vp)            # Pinocchio's aba leaves damping out; P is orthogonal
            with mpmath.workdps(DIGITS):
                x = mpmath.lu_solve(mpmath.matrix(M.tolist()), mpmath.matrix((tau_p - h).tolist()))
            computed = [P @ pin.aba(pm, pd, qp, vp, tau_p), P @ pin.aba(pm, pd, qp, vp, tau_p, pin.Convention.WORLD),
                        ms.forward_dynamics(m, q, v, tau)]
            runs.append((kind, np.linalg.cond(M), q, v, tau, P @ np.array(x.tolist(), dtype=float).ravel(), computed))
    exact = exact_forward_dynamics(path, *(np.array([run[k] for run in runs]) for k in (2, 3, 4)))
    for (kind, cond, _, _, _, pin_ref, computed), exact_ref in zip(runs, exact):
        for name, ref in (("pin M", pin_ref), ("exact", exact_ref)):
            rows.setdefault((name, kind), []).append(
                (cond, *(np.linalg.norm(a - ref) / np.linalg.norm(ref) for a in computed)))
    return rows


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=3)
    parser.add_argument("--exact", nargs=2, help=argparse.SUPPRESS)       # exact_worker's process
    args = parser.parse_args()
    if args.exact:
        return exact_worker(*args.exact)
    rng = np.random.default_rng(1)
    print(f"{'case':24s} {'reference':9s} {'tau':13s} {'cond(M)':>8s} {'pin':>8s} {'pinWORLD':>8s} {'mechsim':>8s} "
          f"{'ms/pin':>7s}")

    def show(name, rows):
        for (reference, kind), values in rows.items():
            for cond, e_pin, e_world, e_ms in values:
                print(f"{name:24s} {reference:9s} {kind:13s} {cond:8.1e} {e_pin:8.1e} {e_world:8.1e} {e_ms:8.1e} "
                      f"{e_ms / e_pin:7.1f}")

    show("icub, fixed base", errors(icub(), rng, args.samples))
    with tempfile.TemporaryDirectory() as folder:
        for light in (1.0, 1e-2, 1e-4, 1e-6, 1e-8):
            path = Path(folder) / "arm.urdf"
            path.write_text(arm_urdf(light))
            show(f"arm, hand {light:g} kg", errors(path, rng, args.samples))


if __name__ == "__main__":
    main()
