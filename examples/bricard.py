"""Bricard's mechanism: an overconstrained spatial 6R loop that moves (IFToMM benchmark A04).

The MBS benchmark A04 of the IFToMM Technical Committee for Multibody Dynamics library
(https://www.iftomm-multibody.org/benchmark/, originally lim.ii.udc.es/mbsbenchmark, problem
A04, González, Dopico, Lugrís & Cuadrado, Multibody Syst. Dyn. 16 (2006) 179-190): five rods of
1 m with a uniformly distributed mass of 1 kg, joined to each other and to the ground by six
revolute joints; gravity 9.81 m/s² along -y; a 10 s dynamic simulation from the configuration
of the benchmark's figure, at rest.

The rods run between the points P1 = (0, 0, 0), P2 = (1, 0, 0), P3 = (1, -1, 0), P4 = (1, -1, 1),
P5 = (0, -1, 1) and P6 = (0, 0, 1); the ground closes the loop from P6 back to P1. Each joint
axis is perpendicular to the two links it joins: y at P1, z at P2, x at P3, y at P4, z at P5,
x at P6 (the geometry of the benchmark as implemented in its public OpenSim and simEngine3D
versions). Grübler's count for six links and six revolutes in space gives 6·5 − 6·5 = 0
degrees of freedom; the special axes give the mechanism one. In mechsim the chain
ground → rod1 → … → rod5 is the tree (five revolutes, ``j1`` … ``j5``) and ``j6`` (rod5 to ground
at P6) is cut: its five closure equations have rank four, so ``check()`` reports dof 1 and one
redundant equation.

Rods are slender (inertia m L²/12 about their transverse axes, none about their own axis).
Body frames sit at each rod's first joint, parallel to the world axes at q = 0, so every joint
angle is 0 in the initial configuration. Point P3 (``rod2`` tip, the benchmark's output) is
``res.point("rod2", (0, -1, 0))``.

Released at rest, the mechanism swings through its one-DOF motion from q = 0 to the far turning
point q = (pi, 0, pi, 0, pi) and back, a period of about 4.98 s. The closure Jacobian has rank 4
(never 5) everywhere on the way: the redundancy is permanent, which defeats multiplier solvers
that need a full-rank Jacobian. ``independent_reference`` computes the motion without mechsim
(the loop's own kinematics, the configuration curve traced and the one-DOF Lagrange equation along
it integrated by scipy); ``python examples/bricard.py --reference`` writes it to
``examples/reference/bricard.json``.

Same model as ``bricard.yaml``. Run: ``python examples/bricard.py``
(``MECHSIM_EXAMPLE_T_END`` shortens the run, ``MECHSIM_EXAMPLE_OUT`` moves the plot).
"""
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

MASS, LENGTH, G = 1.0, 1.0, 9.81
I_ROD = MASS * LENGTH ** 2 / 12
# rod: (its direction in its body frame, axis of the joint at its first end)
RODS = {
    "rod1": ((1, 0, 0), (0, 1, 0)),     # P1 -> P2, joint j1 at P1 about y
    "rod2": ((0, -1, 0), (0, 0, 1)),    # P2 -> P3, joint j2 at P2 about z
    "rod3": ((0, 0, 1), (1, 0, 0)),     # P3 -> P4, joint j3 at P3 about x
    "rod4": ((-1, 0, 0), (0, 1, 0)),    # P4 -> P5, joint j4 at P4 about y
    "rod5": ((0, 1, 0), (0, 0, 1)),     # P5 -> P6, joint j5 at P5 about z
}
CLOSING_AXIS = (1, 0, 0)                # j6 at P6 = (0, 0, 1), rod5 to ground
P6 = (0.0, 0.0, LENGTH)
T_END = common.t_end("10")
REFERENCE = Path(__file__).resolve().parent / "reference" / "bricard.json"


def rod_inertia(direction):
    return tuple(0.0 if d else I_ROD for d in np.abs(direction))


def build_model():
    m = ms.Model("bricard", gravity=(0, -G, 0))
    for name, (direction, _) in RODS.items():
        tip = tuple(LENGTH * c for c in direction)
        m.add_body(name, mass=MASS, com=tuple(c / 2 for c in tip), inertia=rod_inertia(direction),
                   frames={"tip": tip})
    parent = "ground"
    for i, (name, (_, axis)) in enumerate(RODS.items(), start=1):
        m.add_joint(f"j{i}", "revolute", parent=parent, child=name,
                    parent_frame=None if parent == "ground" else "tip", axis=axis, q0=0.0, v0=0.0)
        parent = name
    m.add_joint("j6", "revolute", parent="ground", child="rod5", parent_frame=P6, child_frame="tip",
                axis=CLOSING_AXIS, q0=0.0, cut=True)
    return m


def simulate(m, t_end=T_END, **options):
    options = {"rtol": 1e-10, "atol": 1e-12, **options}
    return m.simulate(t_end=t_end, t_eval=np.linspace(0, t_end, int(100 * t_end) + 1), **options)


def energy(m, res, names=tuple(RODS)):
    """Kinetic plus potential energy (J) at every sample, from the body signals."""
    return common.energy(m, res, names)


# ------------------------------------------------------------------------------ independent reference
# Not mechsim: the loop in its own words (numpy), the one-DOF motion on the traced configuration
# curve (scipy). Used to write examples/reference/bricard.json (python examples/bricard.py --reference).
_POINTS = np.array([(0, 0, 0), (1, 0, 0), (1, -1, 0), (1, -1, 1), (0, -1, 1), (0, 0, 1)], float) * LENGTH
_AXES = np.array([axis for _, axis in RODS.values()], float)


def _rotation(a, t):
    K = np.array([[0, -a[2], a[1]], [a[2], 0, -a[0]], [-a[1], a[0], 0]])
    return np.eye(3) + np.sin(t) * K + (1 - np.cos(t)) * K @ K


def _chain(q):
    """Rotations, joint positions and world joint axes of the open chain rod1..rod5 at angles q."""
    R, o, prev, Rs, os_, ws = np.eye(3), np.zeros(3), np.zeros(3), [], [], []
    for i in range(5):
        o = o + R @ (_POINTS[i] - prev)
        prev = _POINTS[i]
        ws.append(R @ _AXES[i])
        R = R @ _rotation(_AXES[i], q[i])
        Rs.append(R)
        os_.append(o)
    return Rs, os_, ws


def _closure(q):
    """Closure of the revolute at P6: rod5's end at P6 (3) and its x axis along the world x axis (2),
    with the Jacobian (5 x 5, rank 4 on the mechanism's motion)."""
    Rs, os_, ws = _chain(q)
    tip, e = os_[4] + Rs[4] @ (_POINTS[5] - _POINTS[4]), Rs[4][:, 0]
    J = np.zeros((5, 5))
    for j in range(5):
        J[:3, j] = np.cross(ws[j], tip - os_[j])
        J[3:, j] = np.cross(ws[j], e)[1:]
    return np.array([*(tip - _POINTS[5]), e[1], e[2]]), J


def _mass_and_potential(q):
    Rs, os_, ws = _chain(q)
    M, V = np.zeros((5, 5)), 0.0
    for i in range(5):
        c = os_[i] + Rs[i] @ ((_POINTS[i + 1] - _POINTS[i]) / 2)
        d = (_POINTS[i + 1] - _POINTS[i]) / LENGTH
        I_world = Rs[i] @ (I_ROD * (np.eye(3) - np.outer(d, d))) @ Rs[i].T
        Jv, Jw = np.zeros((3, 5)), np.zeros((3, 5))
        for j in range(i + 1):
            Jv[:, j], Jw[:, j] = np.cross(ws[j], c - os_[j]), ws[j]
        M += MASS * Jv.T @ Jv + Jw.T @ I_world @ Jw
        V += MASS * G * c[1]
    return M, V


def _trace(q, n, h, V_stop, max_steps):
    """Points of the configuration curve from q along the tangent n, step h (predictor, then Newton
    with the rank-4 pseudo-inverse), until the potential exceeds V_stop."""
    points = [q.copy()]
    for _ in range(max_steps):
        q = q + h * n
        for _ in range(30):
            g, J = _closure(q)
            if np.abs(g).max() < 1e-14:
                break
            U, S, Vt = np.linalg.svd(J)
            q = q - Vt[:4].T @ ((U[:, :4].T @ g) / S[:4])
        t = np.linalg.svd(_closure(q)[1])[2][-1]
        n = t if t @ n > 0 else -t
        points.append(q.copy())
        if _mass_and_potential(q)[1] > V_stop:
            break
    return np.array(points)


def independent_reference(t, h=1e-3):
    """Joint angles j1..j5 (N, 5) at times t, from rest at q = 0: the configuration curve traced with
    step h and splined in its parameter s, then Lagrange's equation of the one-DOF motion
    m(s) s'' + m'(s) s'^2 / 2 + V'(s) = 0 with m = q'(s)^T M q'(s), integrated by DOP853."""
    from scipy.integrate import solve_ivp
    from scipy.interpolate import CubicSpline
    q0 = np.zeros(5)
    V0 = _mass_and_potential(q0)[1]
    n0 = np.linalg.svd(_closure(q0)[1])[2][-1]
    if _mass_and_potential(q0 + 1e-6 * n0)[1] > V0:
        n0 = -n0                                        # downhill
    ahead = _trace(q0, n0, h, V0 + 0.05, 100000)        # to beyond the far turning point
    behind = _trace(q0, -n0, h, np.inf, 20)             # a little uphill, for the spline
    qs = np.vstack([behind[:0:-1], ahead])
    s = h * (np.arange(len(qs)) - (len(behind) - 1))
    Q = CubicSpline(s, qs, axis=0)
    dQ = Q.derivative()(s)
    mV = [_mass_and_potential(q) for q in qs]
    m = CubicSpline(s, [dQ[k] @ mV[k][0] @ dQ[k] for k in range(len(s))])
    V = CubicSpline(s, [x[1] for x in mV])
    dm, dV = m.derivative(), V.derivative()
    sol = solve_ivp(lambda _, y: [y[1], -(dV(y[0]) + 0.5 * dm(y[0]) * y[1] ** 2) / m(y[0])],
                    (0.0, float(t[-1])), [0.0, 0.0], t_eval=t, method="DOP853", rtol=1e-12, atol=1e-13)
    return Q(sol.y[0])


def point_p3(q):
    """P3 (end of rod2) for joint angles q (N, 5), from the same independent kinematics."""
    out = []
    for qi in np.atleast_2d(q):
        Rs, os_, _ = _chain(qi)
        out.append(os_[1] + Rs[1] @ (_POINTS[2] - _POINTS[1]))
    return np.array(out)


def write_reference(path=REFERENCE):
    import json
    t = np.linspace(0.0, 10.0, 201)
    q = independent_reference(t)
    data = {
        "problem": "Bricard's mechanism, IFToMM multibody benchmark A04 (5 slender rods 1 m / 1 kg, 6 revolutes, "
                   "gravity 9.81 m/s^2 along -y, released at rest at q = 0)",
        "source": "computed independently of mechsim by examples/bricard.py (independent_reference): "
                  "configuration curve traced in the five chain angles (closure at P6 in its own numpy "
                  "kinematics, step 1e-3, cubic spline), Lagrange's equation of the one-DOF motion along it "
                  "integrated by scipy DOP853 (rtol 1e-12); halving the step changes the angles by < 3e-8 rad",
        "benchmark": "https://www.iftomm-multibody.org/benchmark/ (A04; originally "
                     "http://lim.ii.udc.es/mbsbenchmark/dist/A04/A04_specification.xml)",
        "coordinates": ["j1.q", "j2.q", "j3.q", "j4.q", "j5.q"],
        "t": t.tolist(),
        "q": q.tolist(),
        "P3": point_p3(q).tolist(),
    }
    Path(path).write_text(json.dumps(data, indent=0))
    return Path(path)


def main(argv=()):
    if "--reference" in argv:
        print(f"wrote {write_reference()}")
        return None
    m = build_model()
    print(m.check())
    res, wall = common.timed(simulate, m)
    E = energy(m, res)
    p3 = res.point("rod2", (0, -LENGTH, 0))
    print(common.run_line(m, res, wall))
    print(f"j1.q in [{res['j1.q'].min():+.6f}, {res['j1.q'].max():+.6f}] rad; "
          f"P3 at t_end: ({p3[-1, 0]:+.6f}, {p3[-1, 1]:+.6f}, {p3[-1, 2]:+.6f}) m")
    print(f"{common.energy_line(E)}; loop-closure error max |g| = {np.max(res.constraint_error):.2e}")
    animate(res, "bricard", bodies="hull")
    plot(res, p3, E)
    return res


def plot(res, p3, E):
    fig = new_figure(figsize=(10, 4))
    if fig is None:
        return
    a1, a2 = fig.subplots(1, 2)
    for i, axis in enumerate("xyz"):
        draw(a1, res.t, p3[:, i], "m", label=f"P3 {axis}")
    a1.set_xlabel("t (s)")
    a1.set_ylabel("position of P3 (m)")
    a1.legend()
    a1.grid(True, alpha=0.3)
    draw(a2, res.t, E - E[0], "J")
    a2.set_xlabel("t (s)")
    a2.set_ylabel("E - E(0) (J)")
    a2.grid(True, alpha=0.3)
    fig.suptitle("Bricard's mechanism (IFToMM benchmark A04)")
    save(fig, "bricard")


if __name__ == "__main__":
    main(sys.argv[1:])
