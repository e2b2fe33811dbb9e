"""Closed-loop whole-run benchmarks (SPEC §6, second bullet): mechsim vs Exudyn and MuJoCo at equal accuracy.

Each mechanism is built in every engine from the same published parameters (mechsim's in models.py), run over the
benchmark horizon, and measured by (wall time, error against the independent reference
solution at t_end, maximal loop-closure error over the run). Every engine is run on a ladder
of settings (step sizes / tolerances); the comparison at "equal accuracy" pairs each peer
setting with the cheapest mechsim setting whose error is no larger, so a ratio is never taken
between a coarse peer run and a fine mechsim run or vice versa.

Mechanisms
----------
four-bar  Khan, Tang & Krovi (2006, §5.1, Table 1): ground l0 = 3, crank l1 = 1, coupler
          l2 = 4, rocker l3 = 2.5 m; 1 kg links, COM at mid-length, I = m l²/12; absolute angles
          θ (crank), α (coupler), φ (rocker) from +x; θ(0) = 1.5708 with α(0), φ(0) solved from the
          loop (the paper's 0.3533, 1.2649 are 4-digit roundings), at rest; 6 N·m on the crank;
          g = 9.81 m/s² along -y; 10 s. Reference: FOUR_BAR_REFERENCE (1-DOF Lagrange
          ODE, DOP853 rtol 1e-12; crank good to ~2e-9 rad at 10 s).
andrews   Andrews' squeezing mechanism, Hairer & Wanner II §VII.7 / the IVP test set "andrews"
          problem (7 bodies, 7 relative angles β, Θ, γ, Φ, δ, Ω, ε, 6 loop constraints, no
          gravity, motor torque mom, spring c0 between D on body 3 and the fixed point C), 0.03 s;
          reference: the test set's PSIDE solution at rtol = atol = 1e-14 (ANDREWS_REFERENCE).
n_four_bar IFToMM A02 with N = 40 (see N_FOUR_BAR), 10 s; reference: the exact parallelogram motion.

Peers
-----
Exudyn    redundant coordinates: NodeRigidBody2D + ObjectRigidBody2D per body (node at the COM),
          RevoluteJoint2D per joint (closing joints included: the loop is a set of joints like any
          other), gravity by LoadMassProportional, its implicit index-3 generalized-α solver with
          fixed step h (its explicit solvers refuse algebraic constraints). Sensors record the
          closing points every ``sample`` s (storeInternal, no files).
MuJoCo    hinge joints in a tree, the loop closed by ``equality connect`` between two sites;
          constraint made as stiff as MuJoCo allows (solimp d0 = dmax = 0.9999, solref time
          constant 2 h with refsafe on, the smallest it accepts), Newton solver tolerance 1e-10,
          integrator RK4 (the most accurate; Euler/implicitfast at equal h are listed in the ladder);
          ``mj_step(m, d, nstep)`` in chunks of ``sample`` s, closure read between chunks.
"""
import math
import time
import warnings

import numpy as np

from . import chains, models
from .targets import INSTALL_HINT

# ------------------------------------------------------------------------------------------ four-bar
FOUR_BAR = dict(l0=3.0, l1=1.0, l2=4.0, l3=2.5, m=1.0, g=9.81, torque=6.0, theta0=1.5708, t_end=10.0,
                alpha_paper=0.3533, phi_paper=1.2649)


def four_bar_assemble(theta, p=FOUR_BAR):
    """(α, φ) closing the loop at crank angle θ: C = circle(B, l2) ∩ circle(D, l3), the branch with C
    on the left of B → D (the paper's Fig. 1)."""
    bx, by = p["l1"] * math.cos(theta), p["l1"] * math.sin(theta)
    dx, dy = p["l0"] - bx, -by
    dist = math.hypot(dx, dy)
    a = (p["l2"] ** 2 - p["l3"] ** 2 + dist ** 2) / (2.0 * dist)
    h = math.sqrt(max(p["l2"] ** 2 - a * a, 0.0))
    cx = bx + (a * dx - h * dy) / dist                    # left of B -> D: + h * (-dy, dx) / dist
    cy = by + (a * dy + h * dx) / dist
    return math.atan2(cy - by, cx - bx), math.atan2(cy, cx - p["l0"])


def four_bar_initial(p=FOUR_BAR):
    alpha, phi = four_bar_assemble(p["theta0"], p)
    return p["theta0"], alpha, phi


# The crank angle θ(t) at t = 0, 1, …, 10 s: Lagrange's equation in θ alone (loop closed by circle
# intersection), DOP853 at rtol = atol = 1e-12, good to ~2e-9 rad at 10 s (examples/reference/
# four_bar_reference.py writes it with the whole motion to examples/reference/four_bar.json).
FOUR_BAR_REFERENCE = (1.5708, 2.828172012035428, 10.384872235944469, 21.33903511972772, 36.997701315522896,
                      56.21555647912501, 80.05269067903492, 107.31609904379145, 139.0102090146521,
                      174.961469203243, 214.55641512380086)
FOUR_BAR_SOURCE = "Lagrange's equation in the crank angle, DOP853 rtol = atol = 1e-12 (examples/reference/four_bar.json)"


def four_bar_reference_at(t):
    """θ(t) of the reference, at a whole second t in 0 … 10."""
    k = round(t)
    if abs(t - k) > 1e-12 or not 0 <= k < len(FOUR_BAR_REFERENCE):
        raise ValueError(f"the four-bar reference has θ at t = 0, 1, …, 10 s only, not at t = {t:g}")
    return FOUR_BAR_REFERENCE[k]


# --- Exudyn
def exudyn_four_bar(h, t_end=FOUR_BAR["t_end"], spectral_radius=0.9, newton_rtol=1e-10, sample=0.01, p=FOUR_BAR):
    """Build the four-bar in Exudyn (redundant 2-D rigid bodies + RevoluteJoint2D); returns run() ->
    {"t": final time, "crank": θ(t_end), "closure": max |C_coupler − C_rocker| over the samples}."""
    import exudyn as exu
    from exudyn.itemInterface import (LoadMassProportional, MarkerBodyMass, MarkerBodyPosition, MarkerBodyRigid,
                                      NodeRigidBody2D, ObjectGround, ObjectRigidBody2D, RevoluteJoint2D,
                                      SensorMarker, SensorNode, Torque)
    theta, alpha, phi = four_bar_initial(p)
    sc = exu.SystemContainer()
    mbs = sc.AddSystem()
    ground = mbs.AddObject(ObjectGround())

    def body(length, angle, com):
        node = mbs.AddNode(NodeRigidBody2D(referenceCoordinates=[com[0], com[1], angle]))
        obj = mbs.AddObject(ObjectRigidBody2D(mass=p["m"], inertia=p["m"] * length ** 2 / 12.0, nodeNumber=node))
        left = mbs.AddMarker(MarkerBodyRigid(bodyNumber=obj, localPosition=[-length / 2, 0, 0]))
        right = mbs.AddMarker(MarkerBodyRigid(bodyNumber=obj, localPosition=[length / 2, 0, 0]))
        mbs.AddLoad(LoadMassProportional(markerNumber=mbs.AddMarker(MarkerBodyMass(bodyNumber=obj)),
                                         loadVector=[0, -p["g"], 0]))
        return node, left, right

    e = lambda a: np.array([math.cos(a), math.sin(a)])                                  # noqa: E731
    b = p["l1"] * e(theta)
    crank, crank_a, crank_b = body(p["l1"], theta, 0.5 * b)
    _, coupler_b, coupler_c = body(p["l2"], alpha, b + 0.5 * p["l2"] * e(alpha))
    _, rocker_d, rocker_c = body(p["l3"], phi, np.array([p["l0"], 0.0]) + 0.5 * p["l3"] * e(phi))
    pivot_a = mbs.AddMarker(MarkerBodyPosition(bodyNumber=ground, localPosition=[0, 0, 0]))
    pivot_d = mbs.AddMarker(MarkerBodyPosition(bodyNumber=ground, localPosition=[p["l0"], 0, 0]))
    for m1, m2 in ((pivot_a, crank_a), (crank_b, coupler_b), (pivot_d, rocker_d), (coupler_c, rocker_c)):
        mbs.AddObject(RevoluteJoint2D(markerNumbers=[m1, m2]))
    mbs.AddLoad(Torque(markerNumber=crank_a, loadVector=[0, 0, p["torque"]]))
    position, coords = exu.OutputVariableType.Position, exu.OutputVariableType.Coordinates
    s_c1 = mbs.AddSensor(SensorMarker(markerNumber=coupler_c, outputVariableType=position, storeInternal=True,
                                      writeToFile=False))
    s_c2 = mbs.AddSensor(SensorMarker(markerNumber=rocker_c, outputVariableType=position, storeInternal=True,
                                      writeToFile=False))
    s_th = mbs.AddSensor(SensorNode(nodeNumber=crank, outputVariableType=coords, storeInternal=True, writeToFile=False))
    mbs.Assemble()
    settings = _exudyn_settings(exu, h, t_end, spectral_radius, newton_rtol, sample)

    def run():
        exu.SolveDynamic(mbs, settings)
        c1, c2, th = mbs.GetSensorStoredData(s_c1), mbs.GetSensorStoredData(s_c2), mbs.GetSensorStoredData(s_th)
        return {"t": float(th[-1, 0]), "crank": float(th[-1, 3] + theta),
                "closure": float(np.max(np.linalg.norm(c1[:, 1:3] - c2[:, 1:3], axis=1)))}
    return run


def _exudyn_settings(exu, h, t_end, spectral_radius, newton_rtol, sample):
    """Implicit generalized-α (index 3) with ρ∞ = spectral_radius; spectral_radius=None: Newmark
    (trapezoidal) with index-2 constraints instead (no numerical damping, velocity-level constraints)."""
    settings = exu.SimulationSettings()
    ti = settings.timeIntegration
    ti.endTime, ti.numberOfSteps, ti.verboseMode = t_end, int(round(t_end / h)), 0
    if spectral_radius is None:
        ti.generalizedAlpha.useNewmark = True
        ti.generalizedAlpha.useIndex2Constraints = True
    else:
        ti.generalizedAlpha.spectralRadius = spectral_radius
    ti.newton.relativeTolerance = newton_rtol
    settings.solution.file.write = False
    settings.solution.sensors.writePeriod = sample
    settings.show.computationTime = False
    settings.show.statistics = False
    return settings


# --- MuJoCo
MJ_DMAX = 0.9999                                    # the largest impedance MuJoCo accepts (hardest constraint)


def _mj_option(h, integrator, tolerance=1e-10):
    return (f'<option timestep="{h!r}" integrator="{integrator}" solver="Newton" tolerance="{tolerance!r}" '
            f'iterations="100" gravity="{{g}}"><flag contact="disable"/></option>')


def _mj_equality(pairs, h, dmax=MJ_DMAX, timeconst=None):
    tc = 2.0 * h if timeconst is None else timeconst
    return "".join(f'<connect site1="{a}" site2="{b}" solref="{tc!r} 1" solimp="{dmax} {dmax} 0.001 0.5 2"/>'
                   for a, b in pairs)


def mujoco_four_bar_xml(h, integrator="RK4", dmax=MJ_DMAX, timeconst=None, p=FOUR_BAR):
    """MJCF of the four-bar in the x-z plane (hinges about −y so that a positive angle turns +x
    towards +z; gravity −z): crank → coupler as a chain, rocker on its own, closed by a connect."""
    def link(length):
        i = p["m"] * length ** 2 / 12.0
        return f'<inertial pos="{length / 2!r} 0 0" mass="{p["m"]!r}" diaginertia="{i!r} {i!r} {i!r}"/>'
    option = _mj_option(h, integrator).replace("{g}", f"0 0 {-p['g']!r}")
    return (f'<mujoco model="four-bar">{option}<worldbody>'
            f'<body name="crank"><joint name="theta" type="hinge" axis="0 -1 0"/>{link(p["l1"])}'
            f'<body name="coupler" pos="{p["l1"]!r} 0 0"><joint name="alpha" type="hinge" axis="0 -1 0"/>{link(p["l2"])}'
            f'<site name="c_coupler" pos="{p["l2"]!r} 0 0"/></body></body>'
            f'<body name="rocker" pos="{p["l0"]!r} 0 0"><joint name="phi" type="hinge" axis="0 -1 0"/>{link(p["l3"])}'
            f'<site name="c_rocker" pos="{p["l3"]!r} 0 0"/></body>'
            f'</worldbody><equality>{_mj_equality([("c_coupler", "c_rocker")], h, dmax, timeconst)}</equality></mujoco>')


def mujoco_four_bar(h, t_end=FOUR_BAR["t_end"], integrator="RK4", sample=0.01, dmax=MJ_DMAX, timeconst=None,
                    p=FOUR_BAR):
    """Build the MuJoCo four-bar; returns run() -> {"t", "crank", "closure"} like exudyn_four_bar."""
    import mujoco
    model = mujoco.MjModel.from_xml_string(mujoco_four_bar_xml(h, integrator, dmax, timeconst, p))
    data = mujoco.MjData(model)
    theta, alpha, phi = four_bar_initial(p)
    sites = [(model.site("c_coupler").id, model.site("c_rocker").id)]

    def setup(d):
        d.qpos[:] = (theta, alpha - theta, phi)                 # the coupler hinge is relative to the crank
        d.qfrc_applied[0] = p["torque"]
    run = _mujoco_runner(mujoco, model, data, setup, sites, h, t_end, sample)

    def four_bar_run():
        out = run()
        return {"t": out["t"], "crank": float(out["qpos"][0]), "closure": out["closure"]}
    return four_bar_run


def _mujoco_runner(mujoco, model, data, setup, site_pairs, h, t_end, sample, record=None):
    """run() -> {"t", "qpos", "closure" (max gap of the site pairs at every ``sample`` s; 0 without pairs),
    "records" ([record(data)] at t = 0 and every ``sample`` s when ``record`` is given)}."""
    n_steps = int(round(t_end / h))
    per = max(1, int(round(sample / h)))
    chunks = [per] * (n_steps // per) + ([n_steps % per] if n_steps % per else [])
    a_ids = [a for a, _ in site_pairs]
    b_ids = [b for _, b in site_pairs]

    def gap():
        return float(np.max(np.linalg.norm(data.site_xpos[a_ids] - data.site_xpos[b_ids], axis=1))) if a_ids else 0.0

    def run():
        mujoco.mj_resetData(model, data)
        setup(data)
        mujoco.mj_forward(model, data)
        closure, records = gap(), [record(data)] if record else []
        for n in chunks:
            mujoco.mj_step(model, data, nstep=n)
            closure = max(closure, gap())
            if record:
                records.append(record(data))
        return {"t": float(data.time), "qpos": data.qpos.copy(), "closure": closure, "records": records,
                "finite": bool(np.all(np.isfinite(data.qpos)))}
    return run


# ------------------------------------------------------------------------------------------ Andrews' squeezer
# Parameters of the IVP test set "andrews" problem (Hairer & Wanner II §VII.7, Table 7.1; testset
# andrews.f, andpar): masses, inertias about the COM, and the geometry in m; mom is the motor
# torque (N·m), c0 the spring stiffness (N/m) and l0 its rest length.
ANDREWS = dict(m1=.04325, m2=.00365, m3=.02373, m4=.00706, m5=.07050, m6=.00706, m7=.05498,
               xa=-.06934, ya=-.00227, xb=-0.03635, yb=.03273, xc=.014, yc=.072, c0=4530.0,
               i1=2.194e-6, i2=4.410e-7, i3=5.255e-6, i4=5.667e-7, i5=1.169e-5, i6=5.667e-7, i7=1.912e-5,
               d=28e-3, da=115e-4, e=2e-2, ea=1421e-5, rr=7e-3, ra=92e-5, l0=7785e-5,
               ss=35e-3, sa=1874e-5, sb=1043e-5, sc=18e-3, sd=2e-2, ta=2308e-5, tb=916e-5,
               u=4e-2, ua=1228e-5, ub=449e-5, zf=2e-2, zt=4e-2, fa=1421e-5, mom=33e-3, t_end=0.03)
ANDREWS_NAMES = ("beta", "Theta", "gamma", "Phi", "delta", "Omega", "epsilon")
# consistent initial angles (testset andrews.f, init) and the solution at t = 0.03 (testset solut,
# PSIDE at rtol = atol = 1e-14 on a Cray C90)
ANDREWS_Q0 = (-0.0617138900142764496358948458001, 0.0, 0.455279819163070380255912382449,
              0.222668390165885884674473185609, 0.487364979543842550225598953530,
              -0.222668390165885884674473185609, 1.23054744454982119249735015568)
ANDREWS_REFERENCE = (0.1581077119629904e2, -0.1575637105984298e2, 0.4082224013073101e-1,
                     -0.5347301163226948, 0.5244099658805304, 0.5347301163226948, 0.1048080741042263e1)
# The bodies in the joint angles above (Hairer & Wanner Fig. 7.1): O = origin, A = (xa, ya),
# B = (xb, yb), C = (xc, yc) fixed; with e(x) = (cos x, sin x), n(x) = (sin x, -cos x):
#   body 1 (β about O): P = rr e(β);          body 2 (β + Θ about P): E = P − d e(β + Θ), COM P − da e(β+Θ)
#   body 3 (γ about B): E = B + ss n(γ), spring point D = B + sd e(γ) + sc n(γ)
#   body 5 (δ about A): Q = A + zt e(δ);     body 4 (Φ + δ about Q): E = Q + e n(Φ+δ), COM Q + (e − ea) n(Φ+δ)
#   body 7 (ε about A): R = A + u n(ε);      body 6 (Ω + ε about R): E = R + zf e(Ω+ε), COM R + (zf − fa) e(Ω+ε)
# and the loop closes at E (bodies 2, 3, 4 and 6 share it): the testset's g(1..6) = 0. Bodies 1, 3,
# 5, 7 turn about fixed points without gravity, so only their inertia about the pivot enters the
# dynamics: m1 ra² + i1, m3 (sa² + sb²) + i3, m5 (ta² + tb²) + i5, m7 (ua² + ub²) + i7 (the testset's
# mass matrix); their COMs are placed at (ra, 0), (sa, sb), (ta, tb), (ua, ub) in the body frame.


def andrews_points(q, p=ANDREWS):
    """The closing point E of bodies 2, 3, 4 and 6 (4 × 2) at the angles q (testset order)."""
    beta, th, ga, ph, de, om, ep = q
    e = lambda a: np.array([math.cos(a), math.sin(a)])                                  # noqa: E731
    n = lambda a: np.array([math.sin(a), -math.cos(a)])                                 # noqa: E731
    a_, b_ = np.array([p["xa"], p["ya"]]), np.array([p["xb"], p["yb"]])
    e2 = p["rr"] * e(beta) - p["d"] * e(beta + th)
    e3 = b_ + p["ss"] * n(ga)
    e4 = a_ + p["zt"] * e(de) + p["e"] * n(ph + de)
    e6 = a_ + p["u"] * n(ep) + p["zf"] * e(om + ep)
    return np.array([e2, e3, e4, e6])


def mujoco_andrews_xml(h, integrator="RK4", dmax=MJ_DMAX, timeconst=None, p=ANDREWS):
    """MJCF of the squeezer in the x-y plane (hinges about +z, no gravity); frames at q = 0 as in
    the comment above ANDREWS_REFERENCE; the three closures at E are connects to body 2's E."""
    f = lambda x: repr(float(x))                                                        # noqa: E731

    def inertial(mass, i, x, y):
        return f'<inertial pos="{f(x)} {f(y)} 0" mass="{f(mass)}" diaginertia="{f(i)} {f(i)} {f(i)}"/>'
    hinge = lambda name: f'<joint name="{name}" type="hinge" axis="0 0 1"/>'            # noqa: E731
    option = _mj_option(h, integrator).replace("{g}", "0 0 0")
    body1 = (f'<body name="b1">{hinge("beta")}{inertial(p["m1"], p["i1"], p["ra"], 0)}'
             f'<body name="b2" pos="{f(p["rr"])} 0 0">{hinge("Theta")}{inertial(p["m2"], p["i2"], -p["da"], 0)}'
             f'<site name="E2" pos="{f(-p["d"])} 0 0"/></body></body>')
    body3 = (f'<body name="b3" pos="{f(p["xb"])} {f(p["yb"])} 0">{hinge("gamma")}'
             f'{inertial(p["m3"], p["i3"], p["sa"], p["sb"])}<site name="E3" pos="0 {f(-p["ss"])} 0"/>'
             f'<site name="D" pos="{f(p["sd"])} {f(-p["sc"])} 0"/></body>')
    body5 = (f'<body name="b5" pos="{f(p["xa"])} {f(p["ya"])} 0">{hinge("delta")}{inertial(p["m5"], p["i5"], p["ta"], p["tb"])}'
             f'<body name="b4" pos="{f(p["zt"])} 0 0">{hinge("Phi")}{inertial(p["m4"], p["i4"], 0, -(p["e"] - p["ea"]))}'
             f'<site name="E4" pos="0 {f(-p["e"])} 0"/></body></body>')
    body7 = (f'<body name="b7" pos="{f(p["xa"])} {f(p["ya"])} 0">{hinge("epsilon")}{inertial(p["m7"], p["i7"], p["ua"], p["ub"])}'
             f'<body name="b6" pos="0 {f(-p["u"])} 0">{hinge("Omega")}{inertial(p["m6"], p["i6"], p["zf"] - p["fa"], 0)}'
             f'<site name="E6" pos="{f(p["zf"])} 0 0"/></body></body>')
    spring = (f'<tendon><spatial name="spring" stiffness="{f(p["c0"])}" springlength="{f(p["l0"])}">'
              f'<site site="D"/><site site="C"/></spatial></tendon>')
    return (f'<mujoco model="andrews">{option}<worldbody><site name="C" pos="{f(p["xc"])} {f(p["yc"])} 0"/>'
            f'{body1}{body3}{body5}{body7}</worldbody>{spring}'
            f'<equality>{_mj_equality([("E2", "E3"), ("E2", "E4"), ("E2", "E6")], h, dmax, timeconst)}</equality>'
            f'</mujoco>')


def mujoco_andrews(h, t_end=ANDREWS["t_end"], integrator="RK4", sample=1e-4, dmax=MJ_DMAX, timeconst=None,
                   p=ANDREWS):
    """Build the MuJoCo squeezer; returns run() -> {"t", "q" (testset order), "closure"}."""
    import mujoco
    model = mujoco.MjModel.from_xml_string(mujoco_andrews_xml(h, integrator, dmax, timeconst, p))
    data = mujoco.MjData(model)
    adr = [model.jnt_qposadr[model.joint(name).id] for name in ANDREWS_NAMES]
    sites = [(model.site("E2").id, model.site(s).id) for s in ("E3", "E4", "E6")]

    def setup(d):
        d.qpos[adr] = ANDREWS_Q0
        d.qfrc_applied[model.jnt_dofadr[model.joint("beta").id]] = p["mom"]
    run = _mujoco_runner(mujoco, model, data, setup, sites, h, t_end, sample)

    def andrews_run():
        out = run()
        return {"t": out["t"], "q": out["qpos"][adr].copy(), "closure": out["closure"]}
    return andrews_run


def exudyn_andrews(h, t_end=ANDREWS["t_end"], spectral_radius=0.9, newton_rtol=1e-10, sample=1e-4, p=ANDREWS):
    """Build the squeezer in Exudyn (2-D rigid bodies at their COMs, RevoluteJoint2D at O, P, B, A, Q,
    A, R and the three closures at E, the spring as ObjectConnectorSpringDamper D–C, the motor as a
    Torque on body 1); returns run() -> {"t", "q" (testset order), "closure"}."""
    import exudyn as exu
    from exudyn.itemInterface import (MarkerBodyPosition, MarkerBodyRigid, NodeRigidBody2D, ObjectConnectorSpringDamper,
                                      ObjectGround, ObjectRigidBody2D, RevoluteJoint2D, SensorMarker, SensorNode,
                                      Torque)
    q = ANDREWS_Q0
    beta, th, ga, ph, de, om, ep = q
    rot = lambda a: np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])  # noqa: E731
    origin = {1: (0.0, 0.0), 3: (p["xb"], p["yb"]), 5: (p["xa"], p["ya"]), 7: (p["xa"], p["ya"])}
    angle = {1: beta, 2: beta + th, 3: ga, 5: de, 4: ph + de, 7: ep, 6: om + ep}
    # body frames (pivot at the local origin, orientation = absolute angle); local COM and points
    com = {1: (p["ra"], 0), 2: (-p["da"], 0), 3: (p["sa"], p["sb"]), 5: (p["ta"], p["tb"]), 4: (0, -(p["e"] - p["ea"])),
           7: (p["ua"], p["ub"]), 6: (p["zf"] - p["fa"], 0)}
    inertia = {k: p[f"i{k}"] for k in range(1, 8)}
    origin[2] = tuple(np.array(origin[1]) + rot(angle[1]) @ np.array([p["rr"], 0.0]))
    origin[4] = tuple(np.array(origin[5]) + rot(angle[5]) @ np.array([p["zt"], 0.0]))
    origin[6] = tuple(np.array(origin[7]) + rot(angle[7]) @ np.array([0.0, -p["u"]]))
    sc = exu.SystemContainer()
    mbs = sc.AddSystem()
    ground = mbs.AddObject(ObjectGround())
    nodes, objects = {}, {}
    for k in range(1, 8):
        pos = np.array(origin[k]) + rot(angle[k]) @ np.array(com[k], float)
        nodes[k] = mbs.AddNode(NodeRigidBody2D(referenceCoordinates=[pos[0], pos[1], angle[k]]))
        objects[k] = mbs.AddObject(ObjectRigidBody2D(mass=p[f"m{k}"], inertia=inertia[k], nodeNumber=nodes[k]))

    def marker(k, local):                                       # a point given in body k's pivot frame
        if k == 0:
            return mbs.AddMarker(MarkerBodyPosition(bodyNumber=ground, localPosition=[local[0], local[1], 0]))
        rel = np.array(local, float) - np.array(com[k], float)
        return mbs.AddMarker(MarkerBodyRigid(bodyNumber=objects[k], localPosition=[rel[0], rel[1], 0]))

    joints = [((0, origin[1]), (1, (0, 0))), ((1, (p["rr"], 0)), (2, (0, 0))), ((0, origin[3]), (3, (0, 0))),
              ((0, origin[5]), (5, (0, 0))), ((5, (p["zt"], 0)), (4, (0, 0))), ((0, origin[7]), (7, (0, 0))),
              ((7, (0, -p["u"])), (6, (0, 0)))]
    closing = {2: (-p["d"], 0), 3: (0, -p["ss"]), 4: (0, -p["e"]), 6: (p["zf"], 0)}
    e_markers = {k: marker(k, local) for k, local in closing.items()}
    for (k1, l1), (k2, l2) in joints:
        mbs.AddObject(RevoluteJoint2D(markerNumbers=[marker(k1, l1), marker(k2, l2)]))
    for k in (3, 4, 6):
        mbs.AddObject(RevoluteJoint2D(markerNumbers=[e_markers[2], e_markers[k]]))
    d_point, c_point = marker(3, (p["sd"], -p["sc"])), marker(0, (p["xc"], p["yc"]))
    mbs.AddObject(ObjectConnectorSpringDamper(markerNumbers=[d_point, c_point], stiffness=p["c0"], damping=0.0,
                                              referenceLength=p["l0"]))
    mbs.AddLoad(Torque(markerNumber=marker(1, (0, 0)), loadVector=[0, 0, p["mom"]]))
    position, coords = exu.OutputVariableType.Position, exu.OutputVariableType.Coordinates
    e_sensors = {k: mbs.AddSensor(SensorMarker(markerNumber=m, outputVariableType=position, storeInternal=True,
                                               writeToFile=False)) for k, m in e_markers.items()}
    n_sensors = {k: mbs.AddSensor(SensorNode(nodeNumber=nodes[k], outputVariableType=coords, storeInternal=True,
                                             writeToFile=False)) for k in range(1, 8)}
    mbs.Assemble()
    settings = _exudyn_settings(exu, h, t_end, spectral_radius, newton_rtol, sample)

    def run():
        exu.SolveDynamic(mbs, settings)
        ab = {k: mbs.GetSensorStoredData(s)[-1, 3] + angle[k] for k, s in n_sensors.items()}
        qe = np.array([ab[1], ab[2] - ab[1], ab[3], ab[4] - ab[5], ab[5], ab[6] - ab[7], ab[7]])
        pts = {k: mbs.GetSensorStoredData(s)[:, 1:3] for k, s in e_sensors.items()}
        closure = max(float(np.max(np.linalg.norm(pts[k] - pts[2], axis=1))) for k in (3, 4, 6))
        return {"t": float(mbs.GetSensorStoredData(n_sensors[1])[-1, 0]), "q": qe, "closure": closure}
    return run


# ------------------------------------------------------------------------------------------ N four-bar (IFToMM A02)
# N = 40 parallelograms: cranks i = 0 … N (1 m, 1 kg slender bars) on ground pivots (i, 0), upright
# at t = 0, couplers i = 1 … N (1 m, 1 kg) joining the tops; gravity 9.81 along −y; the top of
# crank 0 starts along +x at 1 m/s (crank angle φ from the vertical, counter-clockwise, φ'(0) = −1).
# The cranks lie flat (singular: N + 1 instantaneous DOF) every half swing. On the parallelogram
# branch φ obeys the pendulum μ φ'' = g L m ((N + 1)/2 + N) sin φ with μ = m L² ((N + 1)/3 + N).
N_FOUR_BAR = dict(n=40, m=1.0, length=1.0, g=9.81, speed=1.0, t_end=10.0)


def n_four_bar_reference(t_end=N_FOUR_BAR["t_end"], p=N_FOUR_BAR):
    """φ(t_end) of the exact parallelogram motion (the pendulum above), DOP853 at rtol = atol = 1e-13."""
    from scipy.integrate import solve_ivp
    n, m, L, g = p["n"], p["m"], p["length"], p["g"]
    mu = m * L ** 2 * ((n + 1) / 3.0 + n)
    k = g * L * m * ((n + 1) / 2.0 + n) / mu
    sol = solve_ivp(lambda t, y: (y[1], k * math.sin(y[0])), (0.0, t_end), (0.0, -p["speed"] / L),
                    method="DOP853", rtol=1e-13, atol=1e-13)
    return float(sol.y[0, -1])


def mujoco_n_four_bar_xml(h, integrator="RK4", dmax=MJ_DMAX, timeconst=None, p=N_FOUR_BAR):
    """MJCF, x-y plane, hinges about +z, mechsim's tree: every crank k on its ground pivot (hinge a<k>), coupler k
    on the top of crank k − 1 (hinge h<k>); the pivots where the couplers reach the next crank's top as connects."""
    n, m, L = p["n"], p["m"], p["length"]
    i = m * L ** 2 / 12.0
    inertial = lambda x, y: f'<inertial pos="{x!r} {y!r} 0" mass="{m!r}" diaginertia="{i!r} {i!r} {i!r}"/>'  # noqa: E731
    option = _mj_option(h, integrator).replace("{g}", f"0 {-p['g']!r} 0")
    xml = ""
    for k in range(n + 1):
        xml += (f'<body name="crank{k}" pos="{k * L!r} 0 0"><joint name="a{k}" type="hinge" axis="0 0 1"/>'
                f'{inertial(0.0, L / 2)}<site name="top{k}" pos="0 {L!r} 0"/>')
        if k < n:
            xml += (f'<body name="coupler{k + 1}" pos="0 {L!r} 0"><joint name="h{k + 1}" type="hinge" axis="0 0 1"/>'
                    f'{inertial(L / 2, 0.0)}<site name="end{k + 1}" pos="{L!r} 0 0"/></body>')
        xml += "</body>"
    pairs = [(f"end{k}", f"top{k}") for k in range(1, n + 1)]
    return (f'<mujoco model="n-four-bar">{option}<worldbody>{xml}</worldbody>'
            f'<equality>{_mj_equality(pairs, h, dmax, timeconst)}</equality></mujoco>')


def mujoco_n_four_bar(h, t_end=N_FOUR_BAR["t_end"], integrator="RK4", sample=0.01, dmax=MJ_DMAX, timeconst=None,
                      p=N_FOUR_BAR):
    """Build the MuJoCo N four-bar; run() -> {"t", "phi" (crank 0 angle), "closure" (max gap coupler end – crank top)}."""
    import mujoco
    model = mujoco.MjModel.from_xml_string(mujoco_n_four_bar_xml(h, integrator, dmax, timeconst, p))
    data = mujoco.MjData(model)
    n, w = p["n"], -p["speed"] / p["length"]
    sites = [(model.site(f"end{k}").id, model.site(f"top{k}").id) for k in range(1, n + 1)]

    def setup(d):
        d.qvel[:] = [w, -w] * n + [w]                     # a_k = φ', h_k = −φ' (couplers translate), depth first
    run = _mujoco_runner(mujoco, model, data, setup, sites, h, t_end, sample)

    def n_run():
        out = run()
        return {"t": out["t"], "phi": float(out["qpos"][0]), "closure": out["closure"]}
    return n_run


def exudyn_n_four_bar(h, t_end=N_FOUR_BAR["t_end"], spectral_radius=0.9, newton_rtol=1e-10, sample=0.01,
                      p=N_FOUR_BAR):
    """Exudyn N four-bar: 2N + 1 RigidBody2D, RevoluteJoint2D at every pivot and top (3N + 1 joints,
    one DOF); the flat positions make the constraint Jacobian rank-deficient, so the dense solver
    with ignoreSingularJacobian is used. run() -> {"t", "phi", "closure" (max foot–pivot gap)}."""
    import exudyn as exu
    from exudyn.itemInterface import (LoadMassProportional, MarkerBodyMass, MarkerBodyPosition, MarkerBodyRigid,
                                      NodeRigidBody2D, ObjectGround, ObjectRigidBody2D, RevoluteJoint2D, SensorMarker,
                                      SensorNode)
    n, m, L, g, v = p["n"], p["m"], p["length"], p["g"], p["speed"]
    sc = exu.SystemContainer()
    mbs = sc.AddSystem()
    ground = mbs.AddObject(ObjectGround())

    def bar(x, y, angle, vx):
        node = mbs.AddNode(NodeRigidBody2D(referenceCoordinates=[x, y, angle],
                                           initialVelocities=[vx, 0.0, -v / L if angle else 0.0]))
        obj = mbs.AddObject(ObjectRigidBody2D(mass=m, inertia=m * L ** 2 / 12.0, nodeNumber=node))
        mbs.AddLoad(LoadMassProportional(markerNumber=mbs.AddMarker(MarkerBodyMass(bodyNumber=obj)), loadVector=[0, -g, 0]))
        ends = [mbs.AddMarker(MarkerBodyRigid(bodyNumber=obj, localPosition=[s * L / 2, 0, 0])) for s in (-1, 1)]
        return node, ends
    cranks = [bar(k * L, L / 2, math.pi / 2, 0.5 * v) for k in range(n + 1)]          # bar along +x rotated to +y
    couplers = [bar((k - 0.5) * L, L, 0.0, v) for k in range(1, n + 1)]
    feet, pivots = [], []
    for k, (_, (foot, top)) in enumerate(cranks):
        pivot = mbs.AddMarker(MarkerBodyPosition(bodyNumber=ground, localPosition=[k * L, 0, 0]))
        mbs.AddObject(RevoluteJoint2D(markerNumbers=[pivot, foot]))
        feet.append(foot)
        pivots.append(pivot)
    for k, (_, (left, right)) in enumerate(couplers, start=1):
        mbs.AddObject(RevoluteJoint2D(markerNumbers=[cranks[k - 1][1][1], left]))
        mbs.AddObject(RevoluteJoint2D(markerNumbers=[right, cranks[k][1][1]]))
    position = exu.OutputVariableType.Position
    foot_s = [mbs.AddSensor(SensorMarker(markerNumber=f, outputVariableType=position, storeInternal=True,
                                         writeToFile=False)) for f in feet[1:]]
    phi_s = mbs.AddSensor(SensorNode(nodeNumber=cranks[0][0], outputVariableType=exu.OutputVariableType.Coordinates,
                                     storeInternal=True, writeToFile=False))
    mbs.Assemble()
    settings = _exudyn_settings(exu, h, t_end, spectral_radius, newton_rtol, sample)
    settings.linearSolver.solverType = exu.LinearSolverType.EXUdense
    settings.linearSolver.ignoreSingularJacobian = True
    pivot_xy = np.array([[k * L, 0.0] for k in range(1, n + 1)])

    def run():
        exu.SolveDynamic(mbs, settings)
        phi = mbs.GetSensorStoredData(phi_s)
        gaps = [np.max(np.linalg.norm(mbs.GetSensorStoredData(s)[:, 1:3] - pivot_xy[k], axis=1))
                for k, s in enumerate(foot_s)]
        return {"t": float(phi[-1, 0]), "phi": float(phi[-1, 3]), "closure": float(max(gaps))}
    return run


# ------------------------------------------------------------------------------------------ Bricard (IFToMM A04)
# González, Dopico, Lugrís & Cuadrado (2006), Multibody Syst. Dyn. 16:179-190, benchmark A04: five slender rods
# (1 m, 1 kg, m L²/12 about their transverse axes, none about their own) P1 → P2 → … → P6, the ground closing
# P6 → P1, revolutes at P1 … P6 about the axes below; gravity 9.81 along −y; released at rest; 10 s. Grübler
# gives 0 DOF, the special axes 1: the closure at P6 (5 equations) has rank 4 everywhere on the motion.
# Body frames at each rod's first joint, parallel to the world axes at q = 0 (examples/bricard.py).
BRICARD = dict(m=1.0, length=1.0, g=9.81, t_end=10.0,
               points=((0, 0, 0), (1, 0, 0), (1, -1, 0), (1, -1, 1), (0, -1, 1), (0, 0, 1)),   # P1 … P6 (× length)
               axes=((0, 1, 0), (0, 0, 1), (1, 0, 0), (0, 1, 0), (0, 0, 1), (1, 0, 0)))        # joint axes at P1 … P6
# P3 (end of rod 2, the benchmark's output) at t = 1, 2, …, 10 s, from examples/reference/bricard.json: computed
# without mechsim (the loop's own kinematics, its one-DOF configuration curve traced and splined, Lagrange's
# equation along it by scipy DOP853 rtol 1e-12; halving the tracing step changes the angles by < 3e-8 rad).
BRICARD_REFERENCE = ((0.27333391578309396, -0.886544000788192, -0.46264428524134577),
                     (-0.7799472279182476, -0.9806356304582456, -0.19584116083132053),
                     (-0.7686064616019525, -0.97884105716089, -0.2046220535918632),
                     (0.2883299195746095, -0.8887290081052502, -0.4584329287390552),
                     (0.9998161179100299, -0.9999999830967969, -0.0001838651836594225),
                     (0.25830852359918843, -0.8844482162414408, -0.4666383533180092),
                     (-0.7910781102904829, -0.9823413084427551, -0.18709771170961942),
                     (-0.757062989491776, -0.9769588362857222, -0.21342781497088734),
                     (0.30329434458312343, -0.8909984885249584, -0.4540062702719528),
                     (0.9992646093662846, -0.9999997297990842, -0.0007351202340241282))
BRICARD_SOURCE = ("examples/reference/bricard.json: the one-DOF configuration curve traced in the loop's own kinematics, "
                  "Lagrange's equation along it by scipy DOP853 rtol 1e-12, no mechsim; mechsim's DOP853 at 1e-12 "
                  "agrees to 3.2e-9 m")
MJ_MIN_INERTIA = 1e-12          # kg m²: MuJoCo refuses a zero principal inertia; the rods' axial one in MJCF


def bricard_rods(p=BRICARD):
    """[(P_i, d_i = P_{i+1} − P_i, axis of the joint at P_i)] for rods 1 … 5, arrays in m."""
    pts = np.asarray(p["points"], float) * p["length"]
    return [(pts[i], pts[i + 1] - pts[i], np.asarray(p["axes"][i], float)) for i in range(5)]


def bricard_closing_points(p=BRICARD):
    """The closing revolute at P6 as two points on its axis, in rod 5's frame and in the world: P6 and P6 +
    length · axis (their gaps measure position and axis misalignment)."""
    pts = np.asarray(p["points"], float) * p["length"]
    tip, axis = pts[5] - pts[4], p["length"] * np.asarray(p["axes"][5], float)
    return ((tip, pts[5]), (tip + axis, pts[5] + axis))


def _at(t, values, times):
    """Rows of ``values`` (sampled at ``t``) at ``times``: the nearest samples, which must lie within 1e-9 s."""
    t = np.asarray(t, float)
    idx = [int(np.argmin(np.abs(t - tk))) for tk in times]
    if any(abs(t[i] - tk) > 1e-9 for tk, i in zip(times, idx)):
        raise ValueError(f"no output sample at t = {', '.join(f'{tk:g}' for tk in times)} s")
    return np.asarray(values)[idx]


def bricard_error(out):
    """max over t = 1, 2, …, 10 s of |P3(t) − P3_ref(t)| (m); out["ts"], out["p3"]: the run's samples."""
    p3 = _at(out["ts"], out["p3"], range(1, len(BRICARD_REFERENCE) + 1))
    return float(np.max(np.linalg.norm(p3 - np.asarray(BRICARD_REFERENCE), axis=1)))


def mujoco_bricard_xml(h, integrator="RK4", dmax=MJ_DMAX, timeconst=None, p=BRICARD):
    """MJCF: rods 1 … 5 nested (hinges at P1 … P5), the revolute at P6 closed by two connects at the points of
    bricard_closing_points (6 equations for its 5, on top of the loop's own redundancy)."""
    f = lambda v: " ".join(repr(float(c)) for c in v)                                    # noqa: E731
    option = _mj_option(h, integrator).replace("{g}", f"0 {-p['g']!r} 0")
    i_rod = p["m"] * p["length"] ** 2 / 12.0
    (c1, w1), (c2, w2) = bricard_closing_points(p)
    xml, prev = "", np.zeros(3)
    for k, (start, d, axis) in enumerate(bricard_rods(p), start=1):
        inertia = [MJ_MIN_INERTIA if c else i_rod for c in d]
        xml += (f'<body name="rod{k}" pos="{f(start - prev)}"><joint name="j{k}" type="hinge" axis="{f(axis)}"/>'
                f'<inertial pos="{f(d / 2)}" mass="{p["m"]!r}" diaginertia="{f(inertia)}"/>'
                + (f'<site name="P3" pos="{f(d)}"/>' if k == 2 else "")
                + (f'<site name="c1" pos="{f(c1)}"/><site name="c2" pos="{f(c2)}"/>' if k == 5 else ""))
        prev = start
    return (f'<mujoco model="bricard">{option}<worldbody><site name="w1" pos="{f(w1)}"/><site name="w2" pos="{f(w2)}"/>'
            f'{xml}{"</body>" * 5}</worldbody>'
            f'<equality>{_mj_equality([("c1", "w1"), ("c2", "w2")], h, dmax, timeconst)}</equality></mujoco>')


def mujoco_bricard(h, t_end=BRICARD["t_end"], integrator="RK4", sample=0.01, dmax=MJ_DMAX, timeconst=None, p=BRICARD):
    """Build the MuJoCo Bricard mechanism; run() -> {"t", "ts", "p3" (P3 at the samples ts), "closure"}."""
    import mujoco
    model = mujoco.MjModel.from_xml_string(mujoco_bricard_xml(h, integrator, dmax, timeconst, p))
    data = mujoco.MjData(model)
    p3 = model.site("P3").id
    sites = [(model.site("c1").id, model.site("w1").id), (model.site("c2").id, model.site("w2").id)]
    run = _mujoco_runner(mujoco, model, data, lambda d: None, sites, h, t_end, sample,
                         record=lambda d: (d.time, d.site_xpos[p3].copy()))

    def bricard_run():
        out = run()
        ts, p3 = zip(*out["records"])
        return {"t": out["t"], "ts": np.array(ts), "p3": np.array(p3), "closure": out["closure"]}
    return bricard_run


def exudyn_bricard(h, t_end=BRICARD["t_end"], spectral_radius=0.9, newton_rtol=1e-10, sample=0.01, p=BRICARD):
    """Exudyn Bricard mechanism: five 3-D rigid bodies (Euler-parameter nodes at the COMs, ``CreateRigidBody``) and
    six revolutes (``CreateRevoluteJoint``, ObjectJointRevoluteZ) — 30 constraint equations of rank 29 — by
    generalized-α with Eigen's dense solver ignoring the singular Jacobian (Exudyn's own dense and sparse solvers
    stop: "matrix is not factorized").
    run() -> {"t", "p3", "closure"} like mujoco_bricard."""
    import exudyn as exu
    from exudyn.itemInterface import ObjectGround, SensorBody
    from exudyn.rigidBodyUtilities import RigidBodyInertia
    sc = exu.SystemContainer()
    mbs = sc.AddSystem()
    ground = mbs.AddObject(ObjectGround())
    i_rod = p["m"] * p["length"] ** 2 / 12.0
    rods = bricard_rods(p)
    bodies = [mbs.CreateRigidBody(referencePosition=start + d / 2, gravity=[0.0, -p["g"], 0.0],
                                  inertia=RigidBodyInertia(p["m"], np.diag([0.0 if c else i_rod for c in d])))
              for start, d, _ in rods]
    links = [ground] + bodies + [ground]
    points = np.asarray(p["points"], float) * p["length"]
    for k in range(6):
        mbs.CreateRevoluteJoint(itemNumbers=[links[k], links[k + 1]], position=points[k],
                                axis=np.asarray(p["axes"][k], float), useGlobalFrame=True, show=False)
    position = exu.OutputVariableType.Position
    sensor = lambda body, local: mbs.AddSensor(SensorBody(bodyNumber=body, localPosition=list(local),  # noqa: E731
                                                          outputVariableType=position, storeInternal=True,
                                                          writeToFile=False))
    com5 = rods[4][1] / 2
    closing = [(sensor(bodies[4], c - com5), w) for c, w in bricard_closing_points(p)]
    p3 = sensor(bodies[1], rods[1][1] / 2)
    mbs.Assemble()
    settings = _exudyn_settings(exu, h, t_end, spectral_radius, newton_rtol, sample)
    settings.linearSolver.solverType = exu.LinearSolverType.EigenDense       # EXUdense fails to factorize it
    settings.linearSolver.ignoreSingularJacobian = True

    def run():
        exu.SolveDynamic(mbs, settings)
        data = mbs.GetSensorStoredData(p3)
        closure = max(float(np.max(np.linalg.norm(mbs.GetSensorStoredData(s)[:, 1:4] - w, axis=1))) for s, w in closing)
        return {"t": float(data[-1, 0]), "ts": data[:, 0], "p3": data[:, 1:4], "closure": closure}
    return run


# ------------------------------------------------------------------------------------------ 20-link chain
# examples/chain20.py: 20 slender links (0.1 m, 0.1 kg, inertia diag(2e-6, 8.4e-5, 8.4e-5) kg m² about the COM at
# (0.05, 0, 0)) hinged end to end, axes alternating y, z, … as in mechsim.bench.chains, straight along +x at q = 0;
# released at rest with the y hinges at 0.25 rad and the z hinges at 0.15 rad; gravity 9.81 along −z; 10 s. A tree.
# The motion is chaotic: two accurate solutions (DOP853 at rtol 1e-12 and 1e-13) differ by 2e-12 rad at 1 s, 2e-10
# at 2 s, 2e-8 at 3 s, 3e-4 at 4 s and by whole radians from 5 s on, so no solution is a reference at 10 s. The
# error is therefore taken at t = 1, 2, 3 s of the 10 s run, and the energy drift over all 10 s is reported beside
# it (in place of a loop closure).
CHAIN20 = dict(n=20, link=dict(length=0.1, mass=0.1, com=(0.05, 0.0, 0.0), inertia=(2.0e-6, 8.4e-5, 8.4e-5)),
               q0_y=0.25, q0_z=0.15, t_end=10.0, sample=0.1)
CHAIN20_REFERENCE_T = (1.0, 2.0, 3.0)
# q(t) at CHAIN20_REFERENCE_T (rows) by chain20_reference: pin.aba integrated by scipy DOP853 at rtol = atol = 1e-13;
# mechsim's DOP853 at 1e-13 agrees to 5e-9 rad at 3 s, and so does the same pin run at 1e-12.
CHAIN20_REFERENCE = ((1.917824132140944, -1.163322973234076, 0.0366812305186004, 0.43574498937318706, 0.09298395818475375,
                      0.3058431518430358, 0.01818460097799648, -0.037267398719018796, 0.18582138565634912, -0.06636222570790813,
                      -0.15321709100848688, 0.22732521084971094, 0.0589168869010517, 0.180863679332833, -0.19432810407436374,
                      0.19385175757168785, -0.046504213889080374, 0.1832548727404689, -0.20914791972554247, 0.19653932036952884),
                     (1.9975871830834009, 0.20492923531555934, -0.46310222548559354, 0.26535148341639486, -0.260964279797893,
                      -0.10674847303096918, -0.42468253075556045, 0.336481186485228, 0.04835901500290534, 0.15065238384795163,
                      0.23342923581711522, -0.5451064637490433, -0.24507104529591134, 0.14130384758612494, 0.017275705168042013,
                      0.23113999274535843, 0.15596866882556462, -0.3687916708980598, -0.9212511378981121, 0.8728760029946081),
                     (2.0006788869549097, -0.1664497637260202, 0.33073324079226574, 0.263795381882801, -0.6970790883219081,
                      -0.31209186383638465, -0.6415474147434304, -0.051633335049044965, 0.8441006179636455, 0.12407641969424428,
                      -0.5267597652408177, -0.6089173934200166, 0.5450101205181959, 0.3442798396622725, 0.2807719740197258,
                      -0.09458290462559407, -0.24213878024084273, -0.2829017987967226, 0.2830741479673077, -4.365708212348866))
CHAIN20_SOURCE = ("pin.aba integrated by scipy DOP853 rtol = atol = 1e-13 (mechsim.bench.loops.chain20_reference); "
                  "mechsim DOP853 at 1e-13 agrees to 5e-9 rad at 3 s")


def chain20_q0(p=CHAIN20):
    return np.array([p["q0_y"] if i % 2 == 0 else p["q0_z"] for i in range(p["n"])])


def chain20_reference(times=CHAIN20_REFERENCE_T, p=CHAIN20, tol=1e-13):
    """q at ``times`` (rows): Pinocchio's aba on chains.pinocchio_chain integrated by scipy DOP853 at rtol = atol =
    tol, from rest — how CHAIN20_REFERENCE was made (needs Pinocchio)."""
    import pinocchio as pin
    from scipy.integrate import solve_ivp
    n = p["n"]
    model, data = chains.pinocchio_chain(n, p["link"])
    zero = np.zeros(n)
    sol = solve_ivp(lambda t, y: np.concatenate([y[n:], pin.aba(model, data, y[:n], y[n:], zero)]), (0.0, times[-1]),
                    np.concatenate([chain20_q0(p), zero]), method="DOP853", rtol=tol, atol=tol, t_eval=times)
    return sol.y[:n].T


def chain_energy(q, v, p=CHAIN20):
    """Kinetic plus potential energy (J) of the chain at each row of q, v, by its own forward kinematics (numpy)."""
    link, g = p["link"], np.array(chains.GRAVITY)
    offset, com, inertia = np.array([link["length"], 0.0, 0.0]), np.array(link["com"]), np.diag(link["inertia"])
    energy = []
    for qk, vk in zip(np.atleast_2d(q), np.atleast_2d(v)):
        R, o, w, vo, e = np.eye(3), np.zeros(3), np.zeros(3), np.zeros(3), 0.0
        for i in range(p["n"]):
            if i:                                             # joint i at the tip of link i − 1
                r = R @ offset
                o, vo = o + r, vo + np.cross(w, r)
            a = np.array(chains.axis(i))
            w = w + (R @ a) * vk[i]
            R = R @ _axis_rotation(a, qk[i])
            c = R @ com
            vc = vo + np.cross(w, c)
            e += 0.5 * link["mass"] * vc @ vc + 0.5 * w @ (R @ inertia @ R.T @ w) - link["mass"] * g @ (o + c)
        energy.append(e)
    return np.array(energy)


def _axis_rotation(a, angle):
    K = np.array([[0.0, -a[2], a[1]], [a[2], 0.0, -a[0]], [-a[1], a[0], 0.0]])
    return np.eye(3) + math.sin(angle) * K + (1.0 - math.cos(angle)) * K @ K


def _chain_evaluate(raw, p=CHAIN20):
    """raw {"t", "ts", "q", "v"} (samples) -> {"t", "ts", "q", "closure": max |E(t) − E(0)| over the samples}."""
    energy = chain_energy(raw["q"], raw["v"], p)
    return {"t": float(raw["t"]), "ts": np.asarray(raw["ts"]), "q": np.asarray(raw["q"]),
            "closure": float(np.max(np.abs(energy - energy[0])))}


def chain20_error(out):
    """max over the joints and t = 1, 2, 3 s of |q(t) − q_ref(t)| (rad)."""
    q = _at(out["ts"], out["q"], CHAIN20_REFERENCE_T)
    return float(np.max(np.abs(q - np.asarray(CHAIN20_REFERENCE))))


def _samples(t_end, sample):
    return np.linspace(0.0, t_end, max(1, int(round(t_end / sample))) + 1)


def mujoco_chain20(h, t_end=CHAIN20["t_end"], integrator="RK4", sample=CHAIN20["sample"], p=CHAIN20):
    """The chain as chains.mujoco_xml (hinges, <inertial>, no geoms) at time step h; returns (run, evaluate):
    run() -> {"t", "ts", "q", "v"} sampled every ``sample`` s, evaluate as _chain_evaluate."""
    import mujoco
    option = _mj_option(h, integrator).replace("{g}", " ".join(repr(c) for c in chains.GRAVITY))
    model = mujoco.MjModel.from_xml_string(chains.mujoco_xml(p["n"], p["link"], option))
    data = mujoco.MjData(model)
    q0 = chain20_q0(p)

    def setup(d):
        d.qpos[:] = q0
    run = _mujoco_runner(mujoco, model, data, setup, [], h, t_end, sample,
                         record=lambda d: (d.time, d.qpos.copy(), d.qvel.copy()))

    def chain_run():
        ts, q, v = map(np.array, zip(*run()["records"]))
        return {"t": ts[-1], "ts": ts, "q": q, "v": v}
    return chain_run, lambda raw: _chain_evaluate(raw, p)


def exudyn_chain20(solver="DOPRI5", tol=None, h=1e-2, t_end=CHAIN20["t_end"], sample=CHAIN20["sample"], p=CHAIN20):
    """The chain as one Exudyn ObjectKinematicTree (minimal coordinates on a NodeGenericODE2: joint types RevoluteY /
    RevoluteZ, joint offsets, link masses, COMs and inertias) by an explicit solver of exu.DynamicSolverType: with
    ``tol``, error-controlled (automaticStepSize, rtol = atol = tol, steps ≤ h), else fixed steps h. Its adaptive
    steps do not stop at the sensors' output times, only at the end time, so the run is solved in segments ending at
    CHAIN20_REFERENCE_T and t_end (each continuing from the last state, updateInitialValues=True); the energy is
    read from the sensors every ``sample`` s (nearly). Returns (run, evaluate) as mujoco_chain20."""
    import exudyn as exu
    from exudyn.itemInterface import NodeGenericODE2, ObjectKinematicTree, SensorNode
    n, link = p["n"], p["link"]
    sc = exu.SystemContainer()
    mbs = sc.AddSystem()
    node = mbs.AddNode(NodeGenericODE2(referenceCoordinates=[0.0] * n, initialCoordinates=list(chain20_q0(p)),
                                       initialCoordinates_t=[0.0] * n, numberOfODE2Coordinates=n))
    mbs.AddObject(ObjectKinematicTree(
        nodeNumber=node, gravity=list(chains.GRAVITY), linkParents=list(range(-1, n - 1)),
        jointTypes=[exu.JointType.RevoluteY if i % 2 == 0 else exu.JointType.RevoluteZ for i in range(n)],
        jointTransformations=exu.Matrix3DList([np.eye(3)] * n),
        jointOffsets=exu.Vector3DList([[link["length"] if i else 0.0, 0.0, 0.0] for i in range(n)]),
        linkInertiasCOM=exu.Matrix3DList([np.diag(link["inertia"])] * n), linkCOMs=exu.Vector3DList([list(link["com"])] * n),
        linkMasses=[link["mass"]] * n))
    sensors = [mbs.AddSensor(SensorNode(nodeNumber=node, outputVariableType=kind, storeInternal=True, writeToFile=False))
               for kind in (exu.OutputVariableType.Coordinates, exu.OutputVariableType.Coordinates_t)]
    mbs.Assemble()
    settings = _exudyn_settings(exu, h, t_end, None, 1e-10, sample)
    ti = settings.timeIntegration
    ti.automaticStepSize = tol is not None
    if tol is not None:
        ti.absoluteTolerance = ti.relativeTolerance = tol
    solver_type = getattr(exu.DynamicSolverType, solver)
    ends = sorted({t for t in CHAIN20_REFERENCE_T if t < t_end} | {t_end})
    initial = exu.ConfigurationType.Initial

    def run():
        mbs.systemData.SetODE2Coordinates(list(chain20_q0(p)), configuration=initial)
        mbs.systemData.SetODE2Coordinates_t([0.0] * n, configuration=initial)
        start, q, v = 0.0, [], []
        for end in ends:
            ti.startTime, ti.endTime, ti.numberOfSteps = start, end, max(1, int(round((end - start) / h)))
            exu.SolveDynamic(mbs, settings, solverType=solver_type, updateInitialValues=True)
            skip = 1 if q else 0                                 # a segment's first row is the last one's end
            q.append(mbs.GetSensorStoredData(sensors[0])[skip:])
            v.append(mbs.GetSensorStoredData(sensors[1])[skip:])
            start = end
        q, v = np.vstack(q), np.vstack(v)
        return {"t": q[-1, 0], "ts": q[:, 0], "q": q[:, 1:], "v": v[:, 1:]}
    return run, lambda raw: _chain_evaluate(raw, p)


def drake_chain20(scheme="runge_kutta3", accuracy=None, h=None, t_end=CHAIN20["t_end"], sample=CHAIN20["sample"],
                  p=CHAIN20):
    """The chain as a continuous-time Drake MultibodyPlant (time_step=0) built in code — RigidBody with
    SpatialInertia.MakeFromCentralInertia, RevoluteJoint from a FixedOffsetFrame at the parent's tip — simulated by
    a Simulator whose integrator is ResetIntegratorFromFlags(scheme): error-controlled at target ``accuracy``, or
    fixed steps h (accuracy None). Returns (run, evaluate) as mujoco_chain20; run() advances sample by sample."""
    from pydrake.math import RigidTransform
    from pydrake.multibody.plant import MultibodyPlant
    from pydrake.multibody.tree import FixedOffsetFrame, RevoluteJoint, RotationalInertia, SpatialInertia
    from pydrake.systems.analysis import ResetIntegratorFromFlags, Simulator
    n, link = p["n"], p["link"]
    plant = MultibodyPlant(time_step=0.0)
    plant.mutable_gravity_field().set_gravity_vector(np.array(chains.GRAVITY))
    frame = plant.world_frame()
    for i in range(n):
        body = plant.AddRigidBody(f"link{i}", SpatialInertia.MakeFromCentralInertia(
            link["mass"], np.array(link["com"]), RotationalInertia(*link["inertia"])))
        if i:
            frame = plant.AddFrame(FixedOffsetFrame(f"tip{i - 1}", frame, RigidTransform([link["length"], 0.0, 0.0])))
        plant.AddJoint(RevoluteJoint(f"j{i}", frame, body.body_frame(), np.array(chains.axis(i))))
        frame = body.body_frame()
    plant.Finalize()
    simulator = Simulator(plant)
    integrator = ResetIntegratorFromFlags(simulator, scheme, h if h else sample)
    if accuracy is None:
        integrator.set_fixed_step_mode(True)
    else:
        integrator.set_target_accuracy(accuracy)
    context, q0, ts = simulator.get_mutable_context(), chain20_q0(p), _samples(t_end, sample)

    def run():
        context.SetTime(0.0)
        plant.SetPositions(context, q0)
        plant.SetVelocities(context, np.zeros(n))
        simulator.Initialize()
        q, v = [q0], [np.zeros(n)]
        for t in ts[1:]:
            simulator.AdvanceTo(t)
            q.append(plant.GetPositions(context))
            v.append(plant.GetVelocities(context))
        return {"t": context.get_time(), "ts": ts, "q": np.array(q), "v": np.array(v)}
    return run, lambda raw: _chain_evaluate(raw, p)


# ------------------------------------------------------------------------------------------ mechsim
def _max_distance(res, pairs):
    return max(float(np.max(np.linalg.norm(res.point(b1, p1) - res.point(b2, p2), axis=1))) for (b1, p1), (b2, p2) in pairs)


def mechsim_four_bar(t_end=FOUR_BAR["t_end"], solver="DOP853", rtol=1e-8, atol=None, drift="projection", p=FOUR_BAR):
    """The four-bar (models.four_bar) simulated with ``simulate(t_end, solver, rtol, atol, drift)`` (its
    output grid: every 0.01 s); returns (run, evaluate): run() is what is timed, evaluate(result) ->
    {"t", "crank" (j1.q at t_end), "closure" (max |coupler tip − rocker tip| over the samples)}."""
    model = models.four_bar(p, four_bar_initial(p))
    t_eval = np.linspace(0.0, t_end, int(round(100 * t_end)) + 1)
    tips = ((("coupler", (p["l2"], 0.0, 0.0)), ("rocker", (p["l3"], 0.0, 0.0))),)

    def run():
        return model.simulate(t_end=t_end, t_eval=t_eval, solver=solver, rtol=rtol, atol=atol if atol else rtol,
                              drift=drift)

    def evaluate(res):
        return {"t": float(res.t[-1]), "crank": float(res["j1.q"][-1]), "closure": _max_distance(res, tips)}
    return run, evaluate


ANDREWS_MECHSIM_JOINTS = ("beta", "theta", "gamma", "phi", "delta", "omega", "epsilon")   # examples/andrews_squeezer.yaml


def mechsim_andrews(t_end=ANDREWS["t_end"], solver="DOP853", rtol=1e-8, atol=None, drift="projection", p=ANDREWS):
    """The squeezer (models.andrews); (run, evaluate) as mechsim_four_bar (output every 1e-4 s),
    evaluate -> {"t", "q", "closure"}."""
    model = models.andrews(p, ANDREWS_Q0)
    t_eval = np.linspace(0.0, t_end, int(round(1e4 * t_end)) + 1)
    e2 = ("k2", (-p["d"], 0.0, 0.0))
    pairs = [(e2, ("k3", (0.0, -p["ss"], 0.0))), (e2, ("k4", (0.0, -p["e"], 0.0))), (e2, ("k6", (p["zf"], 0.0, 0.0)))]

    def run():
        return model.simulate(t_end=t_end, t_eval=t_eval, solver=solver, rtol=rtol, atol=atol if atol else rtol,
                              drift=drift)

    def evaluate(res):
        q = np.array([res[f"{j}.q"][-1] for j in ANDREWS_MECHSIM_JOINTS])
        return {"t": float(res.t[-1]), "q": q, "closure": _max_distance(res, pairs)}
    return run, evaluate


def mechsim_n_four_bar(t_end=N_FOUR_BAR["t_end"], solver="DOP853", rtol=1e-8, atol=None, drift="projection",
                       p=N_FOUR_BAR, formulation="lagrange"):
    """The N four-bar (models.n_four_bar; output every 0.01 s); evaluate -> {"t", "phi" (a0.q), "closure"
    (max gap coupler end – crank top at the cut pivots)}. Its flat passages warn under "lagrange" (README:
    singular positions); the timed runs leave that out."""
    model = models.n_four_bar(p)
    t_eval = np.linspace(0.0, t_end, int(round(100 * t_end)) + 1)

    def run():
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", "'.*' passed near a singular position")
            return model.simulate(t_end=t_end, t_eval=t_eval, solver=solver, rtol=rtol, atol=atol if atol else rtol,
                                  drift=drift, formulation=formulation)

    def evaluate(res):
        L = p["length"]
        gaps = [np.max(np.linalg.norm(res.point(f"coupler{k}", (L, 0.0, 0.0)) - res.point(f"crank{k}", (0.0, L, 0.0)),
                                      axis=1)) for k in range(1, p["n"] + 1)]
        return {"t": float(res.t[-1]), "phi": float(res["a0.q"][-1]), "closure": float(max(gaps))}
    return run, evaluate


def mechsim_bricard(t_end=BRICARD["t_end"], solver="DOP853", rtol=1e-8, atol=None, drift="projection", p=BRICARD,
                    constraint_solver="cholesky"):
    """Bricard's mechanism (models.bricard; output every 0.01 s); evaluate -> {"t", "ts", "p3", "closure" (max gap of
    the closing points, bricard_closing_points)}. Its redundancy holds on its motion only (README: redundancy that
    holds only on the motion): constraint_solver="qr" takes about half the steps of the independent rows' Cholesky."""
    model = models.bricard(p)
    t_eval = np.linspace(0.0, t_end, int(round(100 * t_end)) + 1)
    p3 = bricard_rods(p)[1][1]

    def run():
        return model.simulate(t_end=t_end, t_eval=t_eval, solver=solver, rtol=rtol, atol=atol if atol else rtol,
                              drift=drift, constraint_solver=constraint_solver)

    def evaluate(res):
        closure = max(float(np.max(np.linalg.norm(res.point("rod5", c) - w, axis=1))) for c, w in bricard_closing_points(p))
        return {"t": float(res.t[-1]), "ts": res.t, "p3": res.point("rod2", p3), "closure": closure}
    return run, evaluate


def mechsim_chain20(t_end=CHAIN20["t_end"], solver="DOP853", rtol=1e-8, atol=None, p=CHAIN20):
    """The 20-link chain (chains.mechsim_chain with CHAIN20's link; output every CHAIN20["sample"] s); evaluate as
    _chain_evaluate."""
    model = chains.mechsim_chain(p["n"], chain20_q0(p), p["link"])
    t_eval = _samples(t_end, p["sample"])

    def run():
        return model.simulate(t_end=t_end, t_eval=t_eval, solver=solver, rtol=rtol, atol=atol if atol else rtol)

    def evaluate(res):
        return _chain_evaluate({"t": res.t[-1], "ts": res.t, "q": res.q, "v": res.v}, p)
    return run, evaluate


# ------------------------------------------------------------------------------------------ cases and ladders
class Case:
    """One mechanism: its horizon, reference, error measure and the settings ladder of every engine.
    ``entries(quick)`` yields (engine, settings label, builder); builder() -> run or (run, evaluate)."""

    def __init__(self, key, title, t_end, error_name, target, reference, error, ladder, note="",
                 closure_name="loop closure (m)"):
        self.key, self.title, self.t_end = key, title, t_end
        self.error_name, (self.target_error, self.target_time) = error_name, target      # error, wall time (s)
        self.reference, self.error, self.ladder, self.note = reference, error, ladder, note
        self.closure_name = closure_name                  # what a run's "closure" is (a tree: its energy drift)


def _fixed(engine, label, builder):
    return (engine, label, builder)


def _mechsim_ladder(build, quick, t_end, drift=", drift=projection", dop853=(1e-7, 1e-9, 1e-11)):
    """mechsim at a ladder of tolerances: RK45 (Dormand–Prince 5(4)) and DOP853 (order 8), rtol = atol."""
    grid = {"RK45": (1e-6, 1e-8) if quick else (1e-5, 1e-6, 1e-7, 1e-8, 1e-9, 1e-10),
            "DOP853": () if quick else dop853}
    return [_fixed("mechsim", f"{solver} rtol=atol={tol:g}{drift}",
                   lambda solver=solver, tol=tol: build(t_end, solver, tol)) for solver, tols in grid.items() for tol in tols]


def _four_bar_ladder(quick, t_end):
    exu_h = (1e-3,) if quick else (1e-3, 5e-4, 2e-4, 1e-4, 5e-5)
    exu_nm_h = () if quick else (1e-3, 1e-4)
    mj_h = (1e-3, 2e-4) if quick else (1e-3, 5e-4, 2e-4, 1e-4, 5e-5, 2e-5)
    mj_other = () if quick else (("Euler", 1e-4), ("implicitfast", 1e-4))
    out = _mechsim_ladder(mechsim_four_bar, quick, t_end)
    out += [_fixed("exudyn", f"generalized-α ρ∞=0.9 (index 3), h={h:g}", lambda h=h: exudyn_four_bar(h, t_end))
            for h in exu_h]
    out += [_fixed("exudyn", f"Newmark, index-2 constraints, h={h:g}",
                   lambda h=h: exudyn_four_bar(h, t_end, spectral_radius=None)) for h in exu_nm_h]
    out += [_fixed("mujoco", f"RK4, h={h:g}, connect solref=({2 * h:g}, 1) solimp d=0.9999",
                   lambda h=h: mujoco_four_bar(h, t_end)) for h in mj_h]
    out += [_fixed("mujoco", f"{integ}, h={h:g}, connect solref=({2 * h:g}, 1) solimp d=0.9999",
                   lambda integ=integ, h=h: mujoco_four_bar(h, t_end, integrator=integ)) for integ, h in mj_other]
    return out


def _andrews_ladder(quick, t_end):
    exu_h = (1e-5,) if quick else (1e-5, 3e-6, 1e-6, 3e-7)
    mj_h = (1e-5,) if quick else (1e-5, 3e-6, 1e-6, 3e-7)
    out = _mechsim_ladder(mechsim_andrews, quick, t_end)
    out += [_fixed("exudyn", f"generalized-α ρ∞=0.9 (index 3), h={h:g}", lambda h=h: exudyn_andrews(h, t_end))
            for h in exu_h]
    out += [_fixed("mujoco", f"RK4, h={h:g}, connect solref=({2 * h:g}, 1) solimp d=0.9999",
                   lambda h=h: mujoco_andrews(h, t_end)) for h in mj_h]
    return out


def _n_four_bar_ladder(quick, t_end):
    mj_h = (1e-3,) if quick else (2e-3, 1e-3, 5e-4, 2e-4)
    out = _mechsim_ladder(mechsim_n_four_bar, quick, t_end)
    out += [_fixed("mechsim", f"{solver} rtol=atol={tol:g}, formulation=nullspace",
                   lambda solver=solver, tol=tol: mechsim_n_four_bar(t_end, solver, tol, formulation="nullspace"))
            for solver, tol in (() if quick else (("RK45", 1e-8), ("DOP853", 1e-9), ("DOP853", 1e-11)))]
    out += [_fixed("exudyn", "generalized-α ρ∞=0.9 (index 3), dense solver ignoring singular Jacobians, h=0.001",
                   lambda: exudyn_n_four_bar(1e-3, t_end))]
    out += [_fixed("mujoco", f"RK4, h={h:g}, connect solref=({2 * h:g}, 1) solimp d=0.9999",
                   lambda h=h: mujoco_n_four_bar(h, t_end)) for h in mj_h]
    return out


def _bricard_ladder(quick, t_end):
    exu_h = (1e-3,) if quick else (1e-3, 5e-4, 2e-4, 1e-4)
    mj_h = (1e-3,) if quick else (1e-3, 5e-4, 2e-4, 1e-4, 5e-5)
    out = _mechsim_ladder(mechsim_bricard, quick, t_end)
    out += [_fixed("mechsim", f"{solver} rtol=atol={tol:g}, constraint_solver=qr",
                   lambda solver=solver, tol=tol: mechsim_bricard(t_end, solver, tol, constraint_solver="qr"))
            for solver, tol in (() if quick else (("DOP853", 1e-8), ("DOP853", 1e-9)))]
    out += [_fixed("exudyn", f"generalized-α ρ∞=0.9 (index 3), EigenDense ignoring singular Jacobians, h={h:g}",
                   lambda h=h: exudyn_bricard(h, t_end)) for h in exu_h]
    out += [_fixed("mujoco", f"RK4, h={h:g}, 2 connects solref=({2 * h:g}, 1) solimp d=0.9999",
                   lambda h=h: mujoco_bricard(h, t_end)) for h in mj_h]
    return out


def _chain20_ladder(quick, t_end):
    mj_h = (1e-3,) if quick else (1e-3, 5e-4, 2e-4, 1e-4, 5e-5)
    exu = (("DOPRI5", 1e-6),) if quick else (("DOPRI5", 1e-6), ("DOPRI5", 1e-8), ("DOPRI5", 1e-10), ("DOPRI5", 1e-12))
    exu_h = () if quick else (1e-3, 2e-4)
    drake = (("runge_kutta3", 1e-4),) if quick else (("runge_kutta3", 1e-4), ("runge_kutta3", 1e-6),
                                                     ("runge_kutta5", 1e-8), ("runge_kutta5", 1e-10), ("runge_kutta5", 1e-12))
    out = _mechsim_ladder(mechsim_chain20, quick, t_end, drift="", dop853=(1e-7, 1e-9, 1e-10, 1e-11, 1e-12))
    out += [_fixed("mujoco", f"RK4, h={h:g}", lambda h=h: mujoco_chain20(h, t_end)) for h in mj_h]
    out += [_fixed("exudyn", f"ObjectKinematicTree, {solver} rtol=atol={tol:g}",
                   lambda solver=solver, tol=tol: exudyn_chain20(solver, tol, t_end=t_end)) for solver, tol in exu]
    out += [_fixed("exudyn", f"ObjectKinematicTree, RK44, h={h:g}", lambda h=h: exudyn_chain20("RK44", None, h, t_end))
            for h in exu_h]
    out += [_fixed("drake", f"MultibodyPlant (continuous), {scheme} target accuracy {acc:g}",
                   lambda scheme=scheme, acc=acc: drake_chain20(scheme, acc, t_end=t_end)) for scheme, acc in drake]
    return out


def bricard_case():
    return Case("bricard", "Bricard's mechanism (IFToMM A04), 10 s", BRICARD["t_end"],
                "max over t = 1, 2, …, 10 s of |P3 − P3_ref| (m)", (1e-6, None),
                {"p3": [list(r) for r in BRICARD_REFERENCE], "source": BRICARD_SOURCE}, bricard_error, _bricard_ladder,
                note="overconstrained 6R loop (closure rank 4 of 5), one DOF, swinging with a period of ~4.98 s; "
                     "errors below ~3e-9 m are the reference's own; "
                     "MuJoCo closes the revolute at P6 by two connects, its rods carry an axial inertia of "
                     f"{MJ_MIN_INERTIA:g} kg m² (it refuses 0)")


def chain20_case():
    return Case("chain20", "20-link chain (examples/chain20), 10 s", CHAIN20["t_end"],
                "max over the joints and t = 1, 2, 3 s of |q − q_ref| (rad)", (1e-6, None),
                {"q": [list(r) for r in CHAIN20_REFERENCE], "source": CHAIN20_SOURCE}, chain20_error, _chain20_ladder,
                note="a tree; chaotic — accurate solutions part by ~100x per second after 3 s and by whole radians "
                     "from 5 s on, so the error is measured at 1, 2, 3 s of the timed 10 s run and the energy drift "
                     "over all 10 s stands beside it; errors below ~1e-8 rad are the reference's own",
                closure_name="max |E(t) − E(0)| over the 10 s (J)")


def n_four_bar_case():
    t_end = N_FOUR_BAR["t_end"]
    phi_ref = n_four_bar_reference(t_end)
    return Case("n_four_bar", "N four-bar (IFToMM A02, N = 40), 10 s", t_end, "|φ(10 s) − φ_ref| (rad)", (1e-6, None),
                {"phi": phi_ref, "source": "exact parallelogram motion (pendulum ODE, DOP853 rtol 1e-13; "
                                            "mechsim.bench.loops.n_four_bar_reference)"},
                lambda out: abs(out["phi"] - phi_ref), _n_four_bar_ladder,
                note="81 bars, 40 closing pivots, flat (singular) every half turn; φ(10) = %.6f rad; every engine on "
                     "the spanning tree that keeps the loops apart (cranks on the ground, couplers on the crank to "
                     "their left, the coupler–crank pivots closing the loops; MuJoCo's connects there), the tree "
                     "under which both run fastest; Exudyn (no tree: all 3N + 1 pivots as joints) at one setting, its "
                     "dense solve taking ~7 s per simulated second" % phi_ref)


def four_bar_case():
    t_end = FOUR_BAR["t_end"]
    crank_ref = four_bar_reference_at(t_end)
    return Case("four_bar", "Four-bar (Khan, Tang & Krovi 2006, Table 1), 10 s", t_end,
                "|θ(10 s) − θ_ref| (rad)", (1e-6, 0.1),
                {"crank": crank_ref, "source": FOUR_BAR_SOURCE},
                lambda out: abs(out["crank"] - crank_ref), _four_bar_ladder,
                note="crank turns ~34 revolutions in 10 s (θ(10) = %.6f rad)" % crank_ref)


def andrews_case():
    q_ref = np.array(ANDREWS_REFERENCE)
    source = "IVP test set andrews.f (PSIDE, rtol = atol = 1e-14)"
    return Case("andrews", "Andrews' squeezing mechanism (Hairer & Wanner VII.7, IVP test set), 0.03 s", ANDREWS["t_end"],
                "max over the 7 angles |q(0.03 s) − q_ref| (rad)", (1e-6, None), {"q": q_ref.tolist(), "source": source},
                lambda out: float(np.max(np.abs(np.asarray(out["q"]) - q_ref))), _andrews_ladder,
                note="β, Θ reach ±15.8 rad at 0.03 s; stiff spring, velocities ~10³ rad/s")


CASES = {"four_bar": four_bar_case, "andrews": andrews_case, "n_four_bar": n_four_bar_case, "bricard": bricard_case,
         "chain20": chain20_case}
QUICK_CASES = ("four_bar", "andrews")                  # --quick leaves out the slow N four-bar, Bricard and the chain
PEERS = ("exudyn", "mujoco", "drake")


# ------------------------------------------------------------------------------------------ measuring
def _engine_available(engine):
    module = {"exudyn": "exudyn", "mujoco": "mujoco", "drake": "pydrake"}.get(engine)
    if module is None:
        return True
    try:
        __import__(module)
        return True
    except ImportError:
        return False


def measure(engine, label, builder, error, t_end, repeats=3, long_run_s=1.0):
    """Build (not timed), run and time; the best of ``repeats`` runs (one run only when it takes over
    ``long_run_s``); mechsim is run once before timing (JIT warm-up, numba cache). Returns a row dict;
    a failed build or run gives {"failed": message}."""
    row = {"engine": engine, "settings": label}
    try:
        built = builder()
        run, evaluate = built if isinstance(built, tuple) else (built, lambda out: out)
        if engine == "mechsim":
            run()
        best, raw = np.inf, None
        for i in range(max(1, repeats)):
            start = time.perf_counter()
            raw = run()
            best = min(best, time.perf_counter() - start)
            if best > long_run_s:
                break
        out = evaluate(raw)
    except Exception as exc:                      # noqa: BLE001 — a peer failing is a result to report
        row["failed"] = _failure(exc)
        return row
    row["seconds"] = float(best)
    row["t_reached"] = out["t"]
    if not (abs(out["t"] - t_end) <= 1e-6 * max(1.0, t_end)):
        row["failed"] = f"stopped at t = {out['t']:.6g} s (unstable / diverged)"
        return row
    try:
        row["error"] = float(error(out))
    except Exception as exc:                      # noqa: BLE001 — e.g. no output at a reference time
        row["failed"] = "error measure: " + _failure(exc)
        return row
    row["closure"] = float(out["closure"])
    if not (np.isfinite(row["error"]) and np.isfinite(row["closure"])):
        row["failed"] = "non-finite result"
    return row


def _failure(exc):
    return f"{type(exc).__name__}: {str(exc).strip().splitlines()[0][:200] if str(exc).strip() else ''}"


def compare(rows, target_error):
    """Pair every peer row with the cheapest mechsim row at least as accurate (ratio = peer time /
    mechsim time); summarize each engine: the fastest row reaching target_error, else its most
    accurate row ("closest")."""
    ok = [r for r in rows if "failed" not in r]
    ms_rows = sorted((r for r in ok if r["engine"] == "mechsim"), key=lambda r: r["seconds"])
    for r in ok:
        if r["engine"] == "mechsim":
            continue
        match = next((m for m in ms_rows if m["error"] <= r["error"]), None)
        if match is not None:
            r["mechsim_match"] = match["settings"]
            r["mechsim_match_s"] = match["seconds"]
            r["ratio"] = r["seconds"] / match["seconds"]
    summary = {}
    for engine in dict.fromkeys(r["engine"] for r in rows):
        mine = [r for r in ok if r["engine"] == engine]
        if not mine:
            summary[engine] = {"reached": False, "row": None}
            continue
        hit = [r for r in mine if r["error"] <= target_error]
        best = min(hit, key=lambda r: r["seconds"]) if hit else min(mine, key=lambda r: r["error"])
        summary[engine] = {"reached": bool(hit), "row": best}
    return summary


def run_case(case, quick=False, engines=PEERS, repeats=3, say=None):
    """Measure every ladder entry of ``case`` (a Case), compare, return a dict for the report."""
    out = {"key": case.key, "title": case.title, "t_end": case.t_end, "error_name": case.error_name,
           "target_error": case.target_error, "target_time": case.target_time, "reference": case.reference,
           "note": case.note, "closure_name": case.closure_name, "rows": [], "notes": []}
    if case.reference is None:
        out["notes"].append("reference solution missing: nothing measured")
        return out
    for engine, label, builder in case.ladder(quick, case.t_end):
        if engine != "mechsim" and engine not in engines:
            continue
        if not _engine_available(engine):
            if not any(n.startswith(engine) for n in out["notes"]):
                out["notes"].append(f"{engine} not installed: its rows are skipped — {INSTALL_HINT}")
            continue
        if say:
            say(f"  {case.key}: {engine} {label} …", flush=True)
        out["rows"].append(measure(engine, label, builder, case.error, case.t_end, repeats=repeats))
    out["summary"] = compare(out["rows"], case.target_error)
    out["verdict"] = verdict(out)
    return out


def verdict(case_out, factor=10.0):
    """SPEC §6: mechsim ≥ factor x faster than each peer at equal accuracy (at the peer's setting that
    reaches the target error fastest, else its most accurate one), and under target_time when given."""
    summ = case_out["summary"]
    ms = summ.get("mechsim", {}).get("row")
    v = {"mechsim_reached": bool(summ.get("mechsim", {}).get("reached")),
         "mechsim_s": None if ms is None else ms["seconds"], "peers": {}}
    if case_out["target_time"] is not None:
        v["time_met"] = bool(v["mechsim_reached"] and ms["seconds"] < case_out["target_time"])
    for engine, s in summ.items():
        if engine == "mechsim":
            continue
        row = s["row"]
        ratio = None if row is None else row.get("ratio")
        met = None if row is None else (False if ratio is None else bool(ratio >= factor))   # no match: mechsim less accurate
        v["peers"][engine] = {"ratio": ratio, "reached": s["reached"], "met": met}
    checks = [p["met"] for p in v["peers"].values()] + ([v["time_met"]] if "time_met" in v else [])
    v["met"] = None if (not checks or any(c is None for c in checks)) else all(checks)
    return v


def run(quick=False, engines=PEERS, cases=None, say=None):
    """All closed-loop cases (QUICK_CASES when quick): {"cases": [run_case(...)], "quick": quick}."""
    cases = (QUICK_CASES if quick else tuple(CASES)) if cases is None else cases
    repeats = 2 if quick else 3
    return {"quick": bool(quick), "cases": [run_case(CASES[k](), quick, engines, repeats, say) for k in cases]}
