"""Andrews' squeezing mechanism: seven bodies, three kinematic loops, a spring and a motor torque.

The benchmark of Schiehlen (1990, "Multibody Systems Handbook") as given by Hairer & Wanner,
*Solving Ordinary Differential Equations II*, §VII.7, and by the Bari "Test Set for IVP Solvers"
(problem ``andrews``, https://archimede.uniba.it/~testset/, Mazzia & Magherini), whose
parameters, consistent initial values and high-accuracy reference solution at t = 0.03 s (PSIDE,
rtol = atol = 1e-14) are copied into ``examples/reference/andrews_squeezer.json``.

Planar mechanism in the world x-y plane (every joint a revolute about z, no gravity). Bodies,
in the names of Hairer & Wanner (K1…K7) and the points of their figure (O, A, B, C, P, E, H, G,
D — H and G are our names for the joints K5–K4 and K7–K6):

* K1, the crank, turns about O = (0, 0) by beta; it carries P at distance rr and its centre of
  mass at ra on the line O→P.
* K2 hangs on K1 at P (relative angle Theta, absolute beta + Theta); E lies at -d along its
  axis, its centre of mass at -da.
* K3 turns about B = (xb, yb) by gamma; E at (0, -ss) and the spring point D at (sd, -sc) in
  its frame. The spring (c0, rest length l0) pulls D towards C = (xc, yc) on the ground.
* K5 turns about A = (xa, ya) by delta, with the joint H at (zt, 0); K4 hangs on K5 at H
  (relative angle Phi), E at (0, -e), centre of mass at (0, -(e - ea)).
* K7 turns about A by epsilon, with the joint G at (0, -u); K6 hangs on K7 at G (relative angle
  Omega), E at (zf, 0), centre of mass at (zf - fa, 0).
* K2, K3, K4 and K6 meet at E: the three joints K2–K3, K2–K4, K2–K6 close the three loops
  (``cut=True`` keeps the seven benchmark angles as tree coordinates).

mechsim's seven tree joint angles *are* the benchmark's coordinates, same zero, same sign:
beta = ``beta.q``, Theta = ``theta.q``, gamma = ``gamma.q``, Phi = ``phi.q``, delta = ``delta.q``,
Omega = ``omega.q``, epsilon = ``epsilon.q`` (each about +z; Theta, Phi, Omega relative to
the parent body, as in the benchmark's equations). A motor torque mom = 0.033 N m drives beta.

The test set's equations fix only the distance of the centres of mass of K3, K5 and K7 from
their pivots (sqrt(sa² + sb²), sqrt(ta² + tb²), sqrt(ua² + ub²)); without gravity the direction
does not enter the dynamics, we place them at (sa, -sb), (ta, tb) and (ua, ub). Out-of-plane
inertias (never excited) are half the given Izz.

Same model as ``andrews_squeezer.yaml``. Run: ``python examples/andrews_squeezer.py``
(``MECHSIM_EXAMPLE_T_END`` shortens the run, ``MECHSIM_EXAMPLE_OUT`` moves the plot).
"""
import json
import sys
from pathlib import Path

import numpy as np

try:
    import mechsim as ms
except ImportError:                      # running from a source checkout without installing
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))
    import mechsim as ms
from _figures import animate, draw, new_figure, save  # noqa: E402  (examples/_figures.py)
import _common as common  # noqa: E402  (examples/_common.py)

REFERENCE = Path(__file__).resolve().parent / "reference" / "andrews_squeezer.json"
# parameters of the test set (SI units)
P = dict(m1=0.04325, m2=0.00365, m3=0.02373, m4=0.00706, m5=0.07050, m6=0.00706, m7=0.05498,
         xa=-0.06934, ya=-0.00227, xb=-0.03635, yb=0.03273, xc=0.014, yc=0.072, c0=4530.0,
         i1=2.194e-6, i2=4.410e-7, i3=5.255e-6, i4=5.667e-7, i5=1.169e-5, i6=5.667e-7, i7=1.912e-5,
         d=28e-3, da=115e-4, e=2e-2, ea=1421e-5, rr=7e-3, ra=92e-5, l0=7785e-5,
         ss=35e-3, sa=1874e-5, sb=1043e-5, sc=18e-3, sd=2e-2, ta=2308e-5, tb=916e-5,
         u=4e-2, ua=1228e-5, ub=449e-5, zf=2e-2, zt=4e-2, fa=1421e-5, mom=33e-3)
ANGLES = ("beta", "theta", "gamma", "phi", "delta", "omega", "epsilon")   # benchmark order
Q0 = (-0.0617138900142764496358948458001, 0.0, 0.455279819163070380255912382449,
      0.222668390165885884674473185609, 0.487364979543842550225598953530,
      -0.222668390165885884674473185609, 1.23054744454982119249735015568)
T_REF = 0.03
T_END = common.t_end(T_REF)


def planar_inertia(izz):
    return (izz / 2, izz / 2, izz)


def build_model():
    p = P
    m = ms.Model("andrews-squeezer", gravity=(0, 0, 0))
    m.add_body("k1", mass=p["m1"], com=(p["ra"], 0, 0), inertia=planar_inertia(p["i1"]),
               frames={"P": (p["rr"], 0, 0)})
    m.add_body("k2", mass=p["m2"], com=(-p["da"], 0, 0), inertia=planar_inertia(p["i2"]),
               frames={"E": (-p["d"], 0, 0)})
    m.add_body("k3", mass=p["m3"], com=(p["sa"], -p["sb"], 0), inertia=planar_inertia(p["i3"]),
               frames={"E": (0, -p["ss"], 0), "D": (p["sd"], -p["sc"], 0)})
    m.add_body("k4", mass=p["m4"], com=(0, -(p["e"] - p["ea"]), 0), inertia=planar_inertia(p["i4"]),
               frames={"E": (0, -p["e"], 0)})
    m.add_body("k5", mass=p["m5"], com=(p["ta"], p["tb"], 0), inertia=planar_inertia(p["i5"]),
               frames={"H": (p["zt"], 0, 0)})
    m.add_body("k6", mass=p["m6"], com=(p["zf"] - p["fa"], 0, 0), inertia=planar_inertia(p["i6"]),
               frames={"E": (p["zf"], 0, 0)})
    m.add_body("k7", mass=p["m7"], com=(p["ua"], p["ub"], 0), inertia=planar_inertia(p["i7"]),
               frames={"G": (0, -p["u"], 0)})
    z = (0, 0, 1)
    A, B = (p["xa"], p["ya"], 0), (p["xb"], p["yb"], 0)
    q = dict(zip(ANGLES, Q0))
    m.add_joint("beta", "revolute", parent="ground", child="k1", axis=z, q0=q["beta"])
    m.add_joint("theta", "revolute", parent="k1", child="k2", parent_frame="P", axis=z, q0=q["theta"])
    m.add_joint("gamma", "revolute", parent="ground", child="k3", parent_frame=B, axis=z, q0=q["gamma"])
    m.add_joint("delta", "revolute", parent="ground", child="k5", parent_frame=A, axis=z, q0=q["delta"])
    m.add_joint("phi", "revolute", parent="k5", child="k4", parent_frame="H", axis=z, q0=q["phi"])
    m.add_joint("epsilon", "revolute", parent="ground", child="k7", parent_frame=A, axis=z, q0=q["epsilon"])
    m.add_joint("omega", "revolute", parent="k7", child="k6", parent_frame="G", axis=z, q0=q["omega"])
    # the three loops close at E; the joint angle there is the difference of the absolute angles
    k2 = q["beta"] + q["theta"]
    m.add_joint("e3", "revolute", parent="k2", child="k3", parent_frame="E", child_frame="E", axis=z,
                q0=q["gamma"] - k2, cut=True)
    m.add_joint("e4", "revolute", parent="k2", child="k4", parent_frame="E", child_frame="E", axis=z,
                q0=q["phi"] + q["delta"] - k2, cut=True)
    m.add_joint("e6", "revolute", parent="k2", child="k6", parent_frame="E", child_frame="E", axis=z,
                q0=q["omega"] + q["epsilon"] - k2, cut=True)
    m.add_force("spring", "spring_damper", body_a="ground", point_a=(p["xc"], p["yc"], 0),
                body_b="k3", point_b=(p["sd"], -p["sc"], 0), stiffness=p["c0"], damping=0.0, rest_length=p["l0"])
    m.add_force("motor", "joint_force", joint="beta", value=p["mom"])
    return m


def simulate(m, t_end=T_END, **options):
    options = {"solver": "DOP853", "rtol": 1e-10, "atol": 1e-12, **options}
    return m.simulate(t_end=t_end, t_eval=np.linspace(0, t_end, 301), **options)


def reference():
    """The test set's reference solution (dict from examples/reference/andrews_squeezer.json)."""
    return json.loads(REFERENCE.read_text())


def coordinates(res, i=-1):
    """The benchmark's seven angles and their rates at sample i, in the benchmark's order."""
    return (np.array([res[f"{a}.q"][i] for a in ANGLES]), np.array([res[f"{a}.v"][i] for a in ANGLES]))


def main():
    m = build_model()
    print(m.check())
    res, wall = common.timed(simulate, m)
    print(common.run_line(m, res, wall))
    print(f"loop-closure error: max |g| = {np.max(res.constraint_error):.2e}")
    q, v = coordinates(res)
    if abs(res.t[-1] - T_REF) < 1e-12:
        ref = reference()["t=0.03"]
        print(f"{'':8s} {'mechsim':>22s} {'reference':>22s} {'error':>9s}")
        for name, a, b in zip(ANGLES, q, ref["q"]):
            print(f"{name:8s} {a:22.15e} {b:22.15e} {abs(a - b):9.2e}")
        print(f"max |q - q_ref| = {np.abs(q - ref['q']).max():.2e} rad, "
              f"max |v - v_ref| / max |v_ref| = {np.abs(v - ref['v']).max() / np.abs(ref['v']).max():.2e}")
    animate(res, "andrews_squeezer", bodies="hull", fps=2000)          # 0.03 s in 60 frames
    plot(res)
    return res


def plot(res):
    fig = new_figure(figsize=(10, 4))
    if fig is None:
        return
    a1, a2 = fig.subplots(1, 2)
    for name in ANGLES:
        draw(a1, res.t * 1e3, np.mod(res[f"{name}.q"] + np.pi, 2 * np.pi) - np.pi, "rad", x_unit="ms", label=name)
    a1.set_xlabel("t (ms)")
    a1.set_ylabel("angle mod 2π (rad)")
    a1.legend(fontsize=7, ncol=2)
    a1.grid(True, alpha=0.3)
    draw(a2, res.t * 1e3, np.maximum(res.constraint_error, 1e-17), "m", x_unit="ms")
    a2.set_yscale("log")
    a2.set_xlabel("t (ms)")
    a2.set_ylabel("max |g| (m)")
    a2.set_title("loop-closure error")
    a2.grid(True, alpha=0.3)
    fig.suptitle("Andrews' squeezing mechanism (Hairer & Wanner VII.7)")
    save(fig, "andrews_squeezer")


if __name__ == "__main__":
    main()
