"""The closed-loop benchmark mechanisms as mechsim models, built with the public API from the same
published parameters as the peers' models (loops.py), so that the suite needs no file outside
the installed package. They are the models of examples/four_bar.yaml, andrews_squeezer.yaml,
n_four_bar.yaml and bricard.yaml (tests/bench check that the two give the same dynamics)."""
import mechsim as ms

Z = (0.0, 0.0, 1.0)


def _bar(length, mass):
    """(com, inertia) of a uniform slender bar along its body x axis from the body frame."""
    i = mass * length ** 2 / 12.0
    return (length / 2.0, 0.0, 0.0), (0.0, i, i)


def four_bar(p, initial):
    """Khan, Tang & Krovi (2006) §5.1, Table 1: crank, coupler and rocker on relative angles j1 = θ,
    j2 = α − θ, j4 = φ (rocker pivot at (l0, 0)); j3 = φ − α closes the loop (cut); ``initial`` = (θ, α, φ)."""
    theta, alpha, phi = initial
    m = ms.Model("four-bar", gravity=(0.0, -p["g"], 0.0))
    for name, length in (("crank", p["l1"]), ("coupler", p["l2"]), ("rocker", p["l3"])):
        com, inertia = _bar(length, p["m"])
        m.add_body(name, mass=p["m"], com=com, inertia=inertia, frames={"tip": (length, 0.0, 0.0)})
    m.add_joint("j1", "revolute", parent="ground", child="crank", axis=Z, q0=theta)
    m.add_joint("j2", "revolute", parent="crank", child="coupler", parent_frame="tip", axis=Z, q0=alpha - theta)
    m.add_joint("j4", "revolute", parent="ground", child="rocker", parent_frame=(p["l0"], 0.0, 0.0), axis=Z, q0=phi)
    m.add_joint("j3", "revolute", parent="coupler", child="rocker", parent_frame="tip", child_frame="tip", axis=Z,
                q0=phi - alpha, cut=True)
    m.add_force("motor", "joint_force", joint="j1", value=p["torque"])
    return m


def andrews(p, q0):
    """Andrews' squeezing mechanism (Hairer & Wanner 1996, §VII.7; the IVP test set's "andrews"): bodies
    k1 … k7 on the relative angles beta, theta, gamma, phi, delta, omega, epsilon (q0 in the test set's
    order β, Θ, γ, Φ, δ, Ω, ε), closed at E by three cut joints; spring c0 from C to D on k3, motor mom
    on beta. Out-of-plane inertias are half the in-plane one (never excited)."""
    beta, theta, gamma, phi, delta, omega, epsilon = q0
    m = ms.Model("andrews-squeezer", gravity=(0.0, 0.0, 0.0))
    bodies = (("k1", 1, (p["ra"], 0.0), {"P": (p["rr"], 0.0)}),
              ("k2", 2, (-p["da"], 0.0), {"E": (-p["d"], 0.0)}),
              ("k3", 3, (p["sa"], -p["sb"]), {"E": (0.0, -p["ss"]), "D": (p["sd"], -p["sc"])}),
              ("k4", 4, (0.0, -(p["e"] - p["ea"])), {"E": (0.0, -p["e"])}),
              ("k5", 5, (p["ta"], p["tb"]), {"H": (p["zt"], 0.0)}),
              ("k6", 6, (p["zf"] - p["fa"], 0.0), {"E": (p["zf"], 0.0)}),
              ("k7", 7, (p["ua"], p["ub"]), {"G": (0.0, -p["u"])}))
    for name, k, com, frames in bodies:
        i = p[f"i{k}"]
        m.add_body(name, mass=p[f"m{k}"], com=(*com, 0.0), inertia=(i / 2, i / 2, i),
                   frames={frame: (*xy, 0.0) for frame, xy in frames.items()})
    a, b = (p["xa"], p["ya"], 0.0), (p["xb"], p["yb"], 0.0)
    for name, parent, child, frame, q in (("beta", "ground", "k1", None, beta), ("theta", "k1", "k2", "P", theta),
                                          ("gamma", "ground", "k3", b, gamma), ("delta", "ground", "k5", a, delta),
                                          ("phi", "k5", "k4", "H", phi), ("epsilon", "ground", "k7", a, epsilon),
                                          ("omega", "k7", "k6", "G", omega)):
        m.add_joint(name, "revolute", parent=parent, child=child, parent_frame=frame, axis=Z, q0=q)
    for other in ("k3", "k4", "k6"):
        m.add_joint(f"e{other[1]}", "revolute", parent="k2", child=other, parent_frame="E", child_frame="E", axis=Z,
                    cut=True)
    m.add_force("spring", "spring_damper", body_a="ground", point_a=(p["xc"], p["yc"], 0.0), body_b="k3",
                point_b=(p["sd"], -p["sc"], 0.0), stiffness=p["c0"], damping=0.0, rest_length=p["l0"])
    m.add_force("motor", "joint_force", joint="beta", value=p["mom"])
    return m


def n_four_bar(p):
    """IFToMM benchmark A02 (González, Dopico, Lugrís & Cuadrado 2006): cranks crank0 … crankN upright on
    ground pivots (i, 0), couplers coupler1 … couplerN joining their tops; tree a<i>, h<i>, which keeps the loops
    apart (examples/n_four_bar.py); the coupler-to-crank pivots b1 … bN, each added after the joints that reach
    its bodies, close the loops and are cut; the top of crank0 starts along +x at ``speed``."""
    n, mass, length = p["n"], p["m"], p["length"]
    w = p["speed"] / length
    i = mass * length ** 2 / 12.0
    m = ms.Model(f"{n}-four-bar", gravity=(0.0, -p["g"], 0.0))
    for k in range(n + 1):
        m.add_body(f"crank{k}", mass=mass, com=(0.0, length / 2, 0.0), inertia=(i, 0.0, i),
                   frames={"top": (0.0, length, 0.0)})
    for k in range(1, n + 1):
        m.add_body(f"coupler{k}", mass=mass, com=(length / 2, 0.0, 0.0), inertia=(0.0, i, i),
                   frames={"end": (length, 0.0, 0.0)})
    m.add_joint("a0", "revolute", parent="ground", child="crank0", axis=Z, v0=-w)
    for k in range(1, n + 1):
        m.add_joint(f"h{k}", "revolute", parent=f"crank{k - 1}", child=f"coupler{k}", parent_frame="top", axis=Z, v0=w)
        m.add_joint(f"a{k}", "revolute", parent="ground", child=f"crank{k}", parent_frame=(k * length, 0.0, 0.0),
                    axis=Z, v0=-w)
        m.add_joint(f"b{k}", "revolute", parent=f"coupler{k}", child=f"crank{k}", parent_frame="end",
                    child_frame="top", axis=Z, v0=-w)
    return m


def bricard(p):
    """IFToMM benchmark A04 (González, Dopico, Lugrís & Cuadrado 2006): rods rod1 … rod5 from P_i to P_i+1 on the
    tree joints j1 … j5 at P1 … P5 (body frames at each rod's first joint, parallel to the world axes at q = 0,
    where every angle is 0), j6 (rod5 to ground at P6) cut; slender rods (no inertia about their own axis); at rest."""
    pts = [tuple(c * p["length"] for c in point) for point in p["points"]]
    m = ms.Model("bricard", gravity=(0.0, -p["g"], 0.0))
    parent = "ground"
    for i in range(5):
        d = tuple(b - a for a, b in zip(pts[i], pts[i + 1]))
        transverse = p["m"] * sum(c * c for c in d) / 12.0
        m.add_body(f"rod{i + 1}", mass=p["m"], com=tuple(c / 2.0 for c in d),
                   inertia=tuple(0.0 if c else transverse for c in d), frames={"tip": d})
        m.add_joint(f"j{i + 1}", "revolute", parent=parent, child=f"rod{i + 1}", parent_frame="tip" if i else pts[0],
                    axis=p["axes"][i], q0=0.0, v0=0.0)
        parent = f"rod{i + 1}"
    m.add_joint("j6", "revolute", parent="ground", child="rod5", parent_frame=pts[5], child_frame="tip",
                axis=p["axes"][5], q0=0.0, cut=True)
    return m
