"""Hybrid-mechanics speed benchmark (issue 10): switching times at equal accuracy, mechsim vs MuJoCo and Exudyn.

Three cases, each with a closed-form sequence of switching times (derived below, at each case's
constants). For every engine and setting we record the wall time of one run (best of several filling
at least 0.5 s, the garbage collector off while timing as timeit does, after a warm-up run, timed in
rounds interleaved over all engines' settings so that the host's drifting speed does not enter their
ratio; model construction and the post-processing that finds the switches are outside the timed region) and the
error of its switching times against the closed form. The report pairs each peer setting with
mechsim's cheapest setting that is at least as accurate and gives the wall-time ratio peer / mechsim;
the issue asks for >= 10x wherever a peer reaches the accuracy at all, with the peer's best accuracy
reported beside.

Run from the repository root (writes benchmarks/RESULTS_hybrid.md):

    PYTHONPATH=src python benchmarks/hybrid.py [--quick] [--output PATH] [--engines mujoco,exudyn]

How the peers see the switches (mechsim reports them as events, exactly located by its event root
finding; the peers have soft contacts and no events, so the switches are read off their sampled
trajectories, at every step, with linear interpolation between samples):
  * bouncing ball: an impact is a downward crossing of the contact gap z - r through zero;
  * stick-slip belt: the block breaks loose when its spring force k X reaches F_s (X up-crossing
    F_s / k) and sticks again when its velocity relative to the belt returns to zero from below;
  * rolling ball: it starts rolling when the slip velocity v - w z of its contact point (z the
    centre's height: a soft contact rolls on the penetrated radius) falls through
    1e-5 m/s (the exact slip falls at 7/2 mu g = 6.9 m/s^2, so this level itself shifts the time by
    1.5e-6 s: the detection resolves errors down to about that).
"""
import argparse
import gc
import math
import sys
import time
from pathlib import Path

import numpy as np

G = 9.81
HERE = Path(__file__).resolve().parent

# ---------------------------------------------------------------------------------------------------
# Case 1: bouncing ball. A solid sphere (m = 0.1 kg, r = 0.05 m) released at rest with its centre at
# z0 = 1 m above the ground plane z = 0; frictionless; Newton restitution e = 0.8.
# Free fall over h = z0 - r: first impact at t1 = sqrt(2 h / g), speed v1 = g t1. The k-th impact
# (k >= 1) sends it up at e^k v1, and a ballistic flight up and back takes 2 e^k v1 / g, so
#     t_k = t1 + sum_{j=1}^{k-1} 2 e^j v1 / g,        k = 1, 2, ...
# (the times accumulate at t1 + 2 e v1 / (g (1 - e)), the Zeno point). Metric: max |t_k - exact|
# over the first N_IMPACTS impacts.
BALL = dict(m=0.1, r=0.05, z0=1.0, e=0.8)
N_IMPACTS = 10


def ball_exact(n=N_IMPACTS, p=BALL):
    h = p["z0"] - p["r"]
    t1 = math.sqrt(2 * h / G)
    v1 = G * t1
    return t1 + np.concatenate([[0.0], np.cumsum(2 * p["e"] ** np.arange(1, n) * v1 / G)])


BALL_T_END = float(ball_exact()[-1] + 0.3)            # before the Zeno point; room for a late 10th impact

# ---------------------------------------------------------------------------------------------------
# Case 2: stick-slip belt (examples/stick_slip_belt.py). A block (m = 1 kg) on a belt moving at
# v_b = 0.2 m/s, tied to the ground by a spring k = 100 N/m (force -k X, X = 0 at the start), dry
# friction between block and belt with static level F_s = 5 N and kinetic level F_k = 3 N.
#   * It starts stuck (moving with the belt, X = v_b t) until the spring force reaches F_s:
#     X_s = F_s / k, at t = X_s / v_b.
#   * Slip: m X'' = -k X + F_k (kinetic friction drags it forward while it is slower than the belt):
#     a harmonic motion of w = sqrt(k / m) about X_e = F_k / k, starting at X_s - X_e = (F_s - F_k) / k
#     with speed v_b, i.e. X - X_e = A cos(w tau - phi) with A cos(phi) = (F_s - F_k) / k and
#     A w sin(phi) = v_b: phi = atan2((F_s - F_k) / k, v_b / w) measured as in the example, the
#     phase angle of the start point. The relative velocity X' - v_b is negative until X' = v_b
#     again, which by symmetry of the ellipse happens at X = 2 X_e - X_s after the slip time
#     T_slip = (2 pi - 2 phi) / w   (with phi the angle of (X_s - X_e, v_b / w)).
#     There the spring force |k X| = |2 F_k - F_s| <= F_s, so it sticks.
#   * Stuck again from X = 2 X_e - X_s to X_s: T_stick = 2 (F_s - F_k) / (k v_b); then the same slip.
# Switch times: unlock at X_s / v_b, lock T_slip later, unlock T_stick later, and so on.
# Metric: max error over the first N_SWITCHES switches.
BELT = dict(m=1.0, k=100.0, vb=0.2, fs=5.0, fk=3.0, belt_mass=10.0)
N_SWITCHES = 10


def belt_exact(n=N_SWITCHES, p=BELT):
    w = math.sqrt(p["k"] / p["m"])
    phi = math.atan2((p["fs"] - p["fk"]) / p["k"], p["vb"] / w)
    t_slip, t_stick = (2 * math.pi - 2 * phi) / w, 2 * (p["fs"] - p["fk"]) / (p["k"] * p["vb"])
    times, t = [], p["fs"] / p["k"] / p["vb"]
    for i in range(n):
        times.append(t)
        t += t_slip if i % 2 == 0 else t_stick
    return np.array(times)


BELT_T_END = float(belt_exact()[-1] + 0.1)

# ---------------------------------------------------------------------------------------------------
# Case 3: rolling ball (examples/billiard_ball.py). A solid sphere (m = 0.17 kg, r = 0.0286 m,
# I = 2/5 m r^2) resting on the ground, launched at v0 = 2 m/s along x without spin; Coulomb
# friction mu = 0.2. Its contact point slips at v - w r > 0, so kinetic friction mu m g acts backwards:
#     v' = -mu g,   w' = mu m g r / I = 5 mu g / (2 r)   =>   v - w r = v0 - (7/2) mu g t,
# which vanishes at t_roll = 2 v0 / (7 mu g); from then on it rolls (no friction force) at
# v = v0 - mu g t_roll = 5/7 v0. (A disk rolling in its plane, I = m r^2 / 2, would give
# v - w r = v0 - 3 mu g t: t_roll = v0 / (3 mu g) at 2/3 v0.) Metric: |t_roll - exact|; the error of
# the final speed against 5/7 v0 is reported beside it.
ROLL = dict(m=0.17, r=0.0286, v0=2.0, mu=0.2)
ROLL_T_END = 0.5
ROLL_SLIP_LEVEL = 1e-5          # m/s: the peers "roll" once their slip velocity falls through this


def roll_exact(p=ROLL):
    return 2 * p["v0"] / (7 * p["mu"] * G), 5 * p["v0"] / 7


# ---------------------------------------------------------------------------------------------------
# Switch detection from sampled trajectories (the peers)

def crossings(t, y, level, upward):
    """Times where y crosses ``level`` (upward or downward), linearly interpolated between samples."""
    d = np.asarray(y) - level
    idx = np.where((d[:-1] < 0) & (d[1:] >= 0))[0] if upward else np.where((d[:-1] > 0) & (d[1:] <= 0))[0]
    return t[idx] + d[idx] / (d[idx] - d[idx + 1]) * (t[idx + 1] - t[idx])


def ball_impacts(t, z, p=BALL):
    return crossings(t, z, p["r"], upward=False)


def belt_switches(t, x, v_rel, p=BELT, settle=0.05):
    """Alternating unlock (X up-crossing F_s / k) and lock (v_rel up-crossing 0, looked for from
    ``settle`` s after the unlock on, so that the noise of a soft stick at the start does not count)."""
    up = crossings(t, x, p["fs"] / p["k"], upward=True)
    lock = crossings(t, v_rel, 0.0, upward=True)
    out, now = [], -1.0
    while True:
        later = up[up > now]
        if not len(later):
            break
        out.append(later[0])
        later = lock[lock > later[0] + settle]
        if not len(later):
            break
        out.append(later[0])
        now = later[0]
    return np.array(out)


def roll_start(t, slip, level=ROLL_SLIP_LEVEL):
    """First time the slip velocity of the contact point falls through ``level``."""
    down = crossings(t, slip, level, upward=False)
    return down[0] if len(down) else math.nan


def switch_error(found, exact):
    """Max |found - exact| over the expected switches; inf when some were not found."""
    if len(found) < len(exact):
        return math.inf
    return float(np.max(np.abs(np.asarray(found[:len(exact)]) - exact)))


# ---------------------------------------------------------------------------------------------------
# mechsim

def mechsim_ball(p=BALL):
    import mechsim as ms
    m = ms.Model("bouncing-ball", gravity=(0, 0, -G))
    inertia = 0.4 * p["m"] * p["r"] ** 2
    m.add_body("ball", mass=p["m"], inertia=(inertia,) * 3)
    m.add_joint("free", "free", parent="ground", child="ball", q0=[0, 0, p["z0"], 1, 0, 0, 0])
    m.add_contact("floor", body="ball", shape="sphere", radius=p["r"], restitution=p["e"], static=0.0, kinetic=0.0)

    def run(tol, solver="DOP853"):
        res = m.simulate(t_end=BALL_T_END, solver=solver, rtol=tol, atol=tol)

        def judge():
            hits = [e.time for e in res.events if e.kind == "impact"]
            return {"error": switch_error(hits, ball_exact()), "found": len(hits), "ok": res.success}
        return judge
    return run


def mechsim_belt(p=BELT):
    import mechsim as ms
    m = ms.Model("stick-slip-belt", gravity=(0, 0, -G))
    m.add_body("belt", mass=p["belt_mass"], inertia=(1, 1, 1))
    m.add_body("block", mass=p["m"], inertia=(0.01, 0.01, 0.01))
    m.add_joint("belt_x", "prismatic", parent="ground", child="belt", axis=(1, 0, 0))
    m.add_joint("slip", "prismatic", parent="belt", child="block", axis=(1, 0, 0))
    m.add_driver("belt_x", position=f"{p['vb']}*t")
    m.add_force("friction", "joint_friction", joint="slip", static=p["fs"], kinetic=p["fk"])
    m.add_force("spring", "spring_damper", body_a="ground", point_a=(-1.0, 0, 0), body_b="block",
                stiffness=p["k"], rest_length=1.0)

    def run(tol, solver="DOP853"):
        res = m.simulate(t_end=BELT_T_END, solver=solver, rtol=tol, atol=tol)

        def judge():
            sw = [e.time for e in res.events if e.kind in ("lock", "unlock")]
            return {"error": switch_error(sw, belt_exact()), "found": len(sw), "ok": res.success}
        return judge
    return run


def mechsim_roll(p=ROLL):
    import mechsim as ms
    m = ms.Model("rolling-ball", gravity=(0, 0, -G))
    inertia = 0.4 * p["m"] * p["r"] ** 2
    m.add_body("ball", mass=p["m"], inertia=(inertia,) * 3)
    m.add_joint("free", "free", parent="ground", child="ball", q0=[0, 0, p["r"], 1, 0, 0, 0], v0=[p["v0"], 0, 0, 0, 0, 0])
    m.add_contact("cloth", body="ball", shape="sphere", radius=p["r"], restitution=0.0, static=p["mu"], kinetic=p["mu"])
    t_roll, v_roll = roll_exact()

    def run(tol, solver="DOP853"):
        res = m.simulate(t_end=ROLL_T_END, solver=solver, rtol=tol, atol=tol)

        def judge():
            sticks = [e.time for e in res.events if e.kind == "stick"]
            err = abs(sticks[0] - t_roll) if sticks else math.inf
            return {"error": err, "found": len(sticks), "ok": res.success,
                    "speed_error": abs(float(res["ball.velocity"][-1, 0]) - v_roll)}
        return judge
    return run


MECHSIM_CASES = {"ball": mechsim_ball, "belt": mechsim_belt, "roll": mechsim_roll}

# ---------------------------------------------------------------------------------------------------
# MuJoCo. Contacts and dry friction are soft constraints: solref = (time constant, damping ratio),
# solimp = (d0, dwidth, width, midpoint, power) the impedance. "default" keeps MuJoCo's time constant
# 0.02 s and impedance (0.9, 0.95, 0.001); "stiff" uses the hardest setting MuJoCo recommends: time
# constant 2 h (for damping ratio 1) and impedance 0.9999. The restitution of a linear spring-damper
# contact with damping ratio z is exp(-pi z / sqrt(1 - z^2)), so e = 0.8 asks for
# z = -ln e / sqrt(pi^2 + ln^2 e) = 0.071; MuJoCo's constraint stiffness is 1 / (tc z)^2, so at z < 1
# the stiff time constant is 2 h / z (with 2 h the semi-implicit Euler step blows up: h w = 7).
MJ_SOFTNESS = {"default": lambda h, z=1.0: (0.02, "0.9 0.95 0.001 0.5 2"),
               "stiff": lambda h, z=1.0: (2 * h / min(z, 1.0), "0.9999 0.9999 0.001 0.5 2")}


def _damping_ratio(e):
    return -math.log(e) / math.sqrt(math.pi ** 2 + math.log(e) ** 2)


def _mj_rollout(model, t_end, qvel0=None):
    """Run the model from its initial state (velocities qvel0 if given) for t_end with mujoco.rollout
    (the step loop in C); returns (t, qpos, qvel) after every step, the first row the initial state."""
    import mujoco
    from mujoco import rollout
    data = mujoco.MjData(model)
    if qvel0 is not None:
        data.qvel[:] = qvel0
    spec = mujoco.mjtState.mjSTATE_FULLPHYSICS
    state0 = np.empty(mujoco.mj_stateSize(model, spec))
    mujoco.mj_getState(model, data, state0, spec)
    nstep = int(round(t_end / model.opt.timestep))
    states, _ = rollout.rollout(model, data, state0[None, :], nstep=nstep)
    s = np.vstack([state0[None, :], states[0]])
    nq, nv = model.nq, model.nv
    return s[:, 0], s[:, 1:1 + nq], s[:, 1 + nq:1 + nq + nv]


def mujoco_ball(h, softness, integrator="Euler", p=BALL):
    import mujoco
    zeta = _damping_ratio(p["e"])
    tc, solimp = MJ_SOFTNESS[softness](h, zeta)
    geom = f'condim="1" solref="{tc!r} {zeta!r}" solimp="{solimp}"'
    xml = (f'<mujoco><option timestep="{h!r}" integrator="{integrator}" gravity="0 0 {-G}"/><worldbody>'
           f'<geom type="plane" size="5 5 0.1" {geom}/>'
           f'<body pos="0 0 {p["z0"]}"><freejoint/><geom type="sphere" size="{p["r"]}" mass="{p["m"]}" {geom}/></body>'
           f'</worldbody></mujoco>')
    model = mujoco.MjModel.from_xml_string(xml)

    def run():
        t, q, _ = _mj_rollout(model, BALL_T_END)

        def judge():
            hits = ball_impacts(t, q[:, 2])
            return {"error": switch_error(hits, ball_exact()), "found": len(hits)}
        return judge
    return run


def mujoco_roll(h, softness, cone="pyramidal", noslip=0, integrator="Euler", p=ROLL):
    import mujoco
    tc, solimp = MJ_SOFTNESS[softness](h)
    geom = f'condim="3" friction="{p["mu"]} 0 0" solref="{tc!r} 1" solimp="{solimp}"'
    xml = (f'<mujoco><option timestep="{h!r}" integrator="{integrator}" cone="{cone}" noslip_iterations="{noslip}" '
           f'gravity="0 0 {-G}"/><worldbody><geom type="plane" size="5 5 0.1" {geom}/>'
           f'<body pos="0 0 {p["r"]}"><freejoint/><geom type="sphere" size="{p["r"]}" mass="{p["m"]}" {geom}/></body>'
           f'</worldbody></mujoco>')
    model = mujoco.MjModel.from_xml_string(xml)
    t_roll, v_roll = roll_exact()

    def run():
        t, q, v = _mj_rollout(model, ROLL_T_END, qvel0=[p["v0"], 0, 0, 0, 0, 0])

        def judge():
            ts = roll_start(t, v[:, 0] - q[:, 2] * v[:, 4])          # free joint qvel: linear (world), angular (local)
            return {"error": abs(ts - t_roll) if np.isfinite(ts) else math.inf, "found": int(np.isfinite(ts)),
                    "speed_error": abs(v[-1, 0] - v_roll)}
        return judge
    return run


def mujoco_belt(h, softness, p=BELT, v_tol=1e-4):
    """MuJoCo's dry friction (contact friction or a joint's frictionloss) has one level: it cannot
    model F_s > F_k. The nearest a user gets: frictionloss on the block's joint relative to the belt,
    switched from Python before every step between F_s (while stuck) and F_k (once it slips faster
    than v_tol backwards), back to F_s when the relative velocity returns to zero. The belt is a body
    of 1e9 kg moving at v_b (the block's reaction does not slow it); the spring is a fixed tendon
    X = belt_x + slip with stiffness k."""
    import mujoco
    tc, solimp = MJ_SOFTNESS[softness](h)
    xml = (f'<mujoco><option timestep="{h!r}" gravity="0 0 {-G}"/><worldbody>'
           f'<body name="belt"><joint name="belt_x" type="slide" axis="1 0 0"/>'
           f'<inertial pos="0 0 0" mass="1e9" diaginertia="1e9 1e9 1e9"/>'
           f'<body name="block"><joint name="slip" type="slide" axis="1 0 0" frictionloss="{p["fs"]}" '
           f'solreffriction="{tc!r} 1" solimpfriction="{solimp}"/>'
           f'<inertial pos="0 0 0" mass="{p["m"]}" diaginertia="0.01 0.01 0.01"/></body></body></worldbody>'
           f'<tendon><fixed name="spring" stiffness="{p["k"]}" springlength="0">'
           f'<joint joint="belt_x" coef="1"/><joint joint="slip" coef="1"/></fixed></tendon></mujoco>')
    model = mujoco.MjModel.from_xml_string(xml)

    def run():
        data = mujoco.MjData(model)
        data.qvel[0] = p["vb"]
        n = int(round(BELT_T_END / h))
        t, x, vr = np.empty(n + 1), np.empty(n + 1), np.empty(n + 1)
        t[0], x[0], vr[0] = 0.0, 0.0, 0.0
        stuck, loss = True, model.dof_frictionloss
        loss[1] = p["fs"]
        for i in range(1, n + 1):
            mujoco.mj_step(model, data)
            v = data.qvel[1]
            if stuck and v < -v_tol:
                stuck, loss[1] = False, p["fk"]
            elif not stuck and v >= 0.0:
                stuck, loss[1] = True, p["fs"]
            t[i], x[i], vr[i] = data.time, data.qpos[0] + data.qpos[1], v
        loss[1] = p["fs"]

        def judge():
            sw = belt_switches(t, x, vr)
            return {"error": switch_error(sw, belt_exact()), "found": len(sw)}
        return judge
    return run


# ---------------------------------------------------------------------------------------------------
# Exudyn. Implicit generalized-alpha (its default; explicit solvers refuse rigid bodies with Euler
# parameters) at fixed step h, Newton with discontinuous iterations for the contact and friction
# switches. Sensors record at every step.

def _exudyn_settings(h, t_end, spectral_radius=0.9):
    import exudyn as exu
    s = exu.SimulationSettings()
    ti = s.timeIntegration
    ti.endTime, ti.numberOfSteps, ti.verboseMode = t_end, int(round(t_end / h)), 0
    ti.generalizedAlpha.spectralRadius = spectral_radius
    s.solution.file.write = False
    s.solution.sensors.writePeriod = h
    s.show.computationTime = False
    s.show.statistics = False
    return s


_GROUND_TRIANGLE = [[-20.0, -20.0, 0.0], [20.0, -20.0, 0.0], [0.0, 20.0, 0.0]]     # normal +z


def _exudyn_sphere(p, z0, v0, contact):
    """System with a rigid sphere over a ground triangle, contact = ObjectContactSphereTriangle kwargs;
    returns (container, mbs, position, velocity and angular velocity sensors)."""
    import exudyn as exu
    from exudyn.itemInterface import MarkerBodyRigid, NodeGenericData, ObjectContactSphereTriangle, SensorBody
    from exudyn.utilities import InertiaSphere
    sc = exu.SystemContainer()
    mbs = sc.AddSystem()
    ground = mbs.CreateGround()
    ball = mbs.CreateRigidBody(referencePosition=[0, 0, z0], initialVelocity=[v0, 0, 0],
                               inertia=InertiaSphere(mass=p["m"], radius=p["r"]), gravity=[0, 0, -G])
    data = mbs.AddNode(NodeGenericData(initialCoordinates=[z0 - p["r"], abs(v0), 0, 0], numberOfDataCoordinates=4))  # gap, slip speed
    mbs.AddObject(ObjectContactSphereTriangle(
        markerNumbers=[mbs.AddMarker(MarkerBodyRigid(bodyNumber=ball)), mbs.AddMarker(MarkerBodyRigid(bodyNumber=ground))],
        nodeNumber=data, trianglePoints=exu.Vector3DList(_GROUND_TRIANGLE), includeEdges=0, sphereRadius=p["r"],
        **contact))
    pos = mbs.AddSensor(SensorBody(bodyNumber=ball, storeInternal=True, outputVariableType=exu.OutputVariableType.Position))
    vel = mbs.AddSensor(SensorBody(bodyNumber=ball, storeInternal=True, outputVariableType=exu.OutputVariableType.Velocity))
    omega = mbs.AddSensor(SensorBody(bodyNumber=ball, storeInternal=True,
                                     outputVariableType=exu.OutputVariableType.AngularVelocity))
    mbs.Assemble()
    return sc, mbs, pos, vel, omega


def exudyn_ball(h, stiffness, p=BALL, spectral_radius=1.0):
    """Penalty contact of stiffness k (N/m, linear) with Exudyn's impact model 2 (Gonthier /
    Carvalho-Martins hysteresis damping) tuned to the restitution e."""
    import exudyn as exu
    sc, mbs, pos, _, _ = _exudyn_sphere(p, p["z0"], 0.0, dict(contactStiffness=stiffness, contactDamping=0.0,
                                                            impactModel=2, restitutionCoefficient=p["e"]))
    settings = _exudyn_settings(h, BALL_T_END, spectral_radius)

    def run():
        mbs.SolveDynamic(settings, solverType=exu.DynamicSolverType.GeneralizedAlpha)
        d = mbs.GetSensorStoredData(pos)

        def judge():
            hits = ball_impacts(d[:, 0], d[:, 3])
            return {"error": switch_error(hits, ball_exact()), "found": len(hits)}
        return judge
    return run, sc


def exudyn_roll(h, stiffness, v_reg, p=ROLL):
    """Penalty contact (linear, critically damped), regularized Coulomb friction: proportional to the
    slip velocity below v_reg (Exudyn's frictionProportionalZone). Starts at its static penetration."""
    import exudyn as exu
    damping = 2 * math.sqrt(stiffness * p["m"])
    z0 = p["r"] - p["m"] * G / stiffness
    sc, mbs, pos, vel, omega = _exudyn_sphere(p, z0, p["v0"], dict(contactStiffness=stiffness, contactDamping=damping,
                                                         dynamicFriction=p["mu"], frictionProportionalZone=v_reg))
    settings = _exudyn_settings(h, ROLL_T_END)
    t_roll, v_roll = roll_exact()

    def run():
        mbs.SolveDynamic(settings, solverType=exu.DynamicSolverType.GeneralizedAlpha)
        z, d, w = (mbs.GetSensorStoredData(s) for s in (pos, vel, omega))

        def judge():
            ts = roll_start(d[:, 0], d[:, 1] - z[:, 3] * w[:, 2])
            return {"error": abs(ts - t_roll) if np.isfinite(ts) else math.inf, "found": int(np.isfinite(ts)),
                    "speed_error": abs(d[-1, 1] - v_roll)}
        return judge
    return run, sc


def exudyn_belt(h, sticking_stiffness, v_exp, p=BELT):
    """Block and belt as 1-D masses; the belt's velocity held at v_b by a velocity-level coordinate
    constraint; the spring a CoordinateSpringDamper to ground; the friction a
    CoordinateSpringDamperExt between belt and block with Exudyn's bristle stick model (sticking
    stiffness k_mu, critically damped), kinetic level F_k and static offset F_s - F_k decaying with
    the slip speed over v_exp."""
    import exudyn as exu
    from exudyn.itemInterface import (Mass1D, MarkerNodeCoordinate, Node1D, NodeGenericData, NodePointGround,
                                      ObjectConnectorCoordinate, ObjectConnectorCoordinateSpringDamper,
                                      ObjectConnectorCoordinateSpringDamperExt, SensorNode)
    sc = exu.SystemContainer()
    mbs = sc.AddSystem()
    ground = mbs.AddNode(NodePointGround(referenceCoordinates=[0, 0, 0]))
    belt = mbs.AddNode(Node1D(referenceCoordinates=[0], initialCoordinates=[0], initialVelocities=[p["vb"]]))
    block = mbs.AddNode(Node1D(referenceCoordinates=[0], initialCoordinates=[0], initialVelocities=[p["vb"]]))
    mbs.AddObject(Mass1D(nodeNumber=belt, mass=p["belt_mass"]))
    mbs.AddObject(Mass1D(nodeNumber=block, mass=p["m"]))
    m_ground = mbs.AddMarker(MarkerNodeCoordinate(nodeNumber=ground, coordinate=0))
    m_belt = mbs.AddMarker(MarkerNodeCoordinate(nodeNumber=belt, coordinate=0))
    m_block = mbs.AddMarker(MarkerNodeCoordinate(nodeNumber=block, coordinate=0))
    mbs.AddObject(ObjectConnectorCoordinate(markerNumbers=[m_ground, m_belt], offset=p["vb"], velocityLevel=True))
    mbs.AddObject(ObjectConnectorCoordinateSpringDamper(markerNumbers=[m_ground, m_block], stiffness=p["k"]))
    state = mbs.AddNode(NodeGenericData(initialCoordinates=[0, 0, 0], numberOfDataCoordinates=3))
    mbs.AddObject(ObjectConnectorCoordinateSpringDamperExt(
        markerNumbers=[m_belt, m_block], nodeNumber=state, dynamicFrictionForce=p["fk"],
        staticFrictionOffsetForce=p["fs"] - p["fk"], stickingStiffness=sticking_stiffness,
        stickingDamping=2 * math.sqrt(sticking_stiffness * p["m"]), exponentialDecayStatic=v_exp,
        frictionProportionalZone=0.0))
    coords = exu.OutputVariableType.Coordinates
    s_belt = mbs.AddSensor(SensorNode(nodeNumber=belt, storeInternal=True, outputVariableType=exu.OutputVariableType.Coordinates_t))
    s_block = mbs.AddSensor(SensorNode(nodeNumber=block, storeInternal=True, outputVariableType=coords))
    s_block_v = mbs.AddSensor(SensorNode(nodeNumber=block, storeInternal=True, outputVariableType=exu.OutputVariableType.Coordinates_t))
    mbs.Assemble()
    settings = _exudyn_settings(h, BELT_T_END)

    def run():
        mbs.SolveDynamic(settings, solverType=exu.DynamicSolverType.GeneralizedAlpha)
        vb, x, v = (mbs.GetSensorStoredData(s) for s in (s_belt, s_block, s_block_v))

        def judge():
            sw = belt_switches(x[:, 0], x[:, 1], v[:, 1] - vb[:, 1])
            return {"error": switch_error(sw, belt_exact()), "found": len(sw)}
        return judge
    return run, sc


# ---------------------------------------------------------------------------------------------------
# Settings swept per case and engine: (label, builder) with builder() -> run() -> judge() -> dict.

def peer_settings(case, engine, quick):
    steps = [1e-3, 1e-4] if quick else [1e-3, 3e-4, 1e-4, 3e-5, 1e-5]
    out = []
    if engine == "mujoco":
        for soft in ("default", "stiff"):
            for h in steps:
                if case == "ball":
                    out.append((f"{soft} softness, Euler, h={h:g}", lambda h=h, s=soft: mujoco_ball(h, s)))
                elif case == "roll":
                    out.append((f"{soft} softness, pyramidal cone, h={h:g}", lambda h=h, s=soft: mujoco_roll(h, s)))
                elif case == "belt":
                    if h < 3e-5 and quick:
                        continue
                    out.append((f"{soft} softness, frictionloss switched in Python, h={h:g}",
                                lambda h=h, s=soft: mujoco_belt(h, s)))
        if case == "roll":
            for h in steps:
                out.append((f"stiff, elliptic cone + noslip, h={h:g}",
                            lambda h=h: mujoco_roll(h, "stiff", cone="elliptic", noslip=10)))
        if case == "ball":
            for h in steps[1:]:
                out.append((f"stiff softness, RK4, h={h:g}", lambda h=h: mujoco_ball(h, "stiff", "RK4")))
    elif engine == "exudyn":
        ex_steps = [1e-3, 1e-4] if quick else [1e-3, 1e-4, 1e-5]
        for h in ex_steps:
            if case == "ball":
                for k in (1e5, 1e7):
                    out.append((f"k={k:g} N/m, impact model 2, gen.-α ρ∞=1, h={h:g}", lambda h=h, k=k: exudyn_ball(h, k)))
            elif case == "roll":
                for k, v_reg in ((1e5, 1e-3), (1e7, 1e-4)):
                    out.append((f"k={k:g} N/m, v_reg={v_reg:g} m/s, gen.-α, h={h:g}",
                                lambda h=h, k=k, v=v_reg: exudyn_roll(h, k, v)))
            elif case == "belt":
                for k_mu, v_exp in ((1e4, 1e-3), (1e6, 1e-5)):
                    out.append((f"bristle k_mu={k_mu:g} N/m, v_exp={v_exp:g} m/s, gen.-α, h={h:g}",
                                lambda h=h, k=k_mu, v=v_exp: exudyn_belt(h, k, v)))
    return out


# ---------------------------------------------------------------------------------------------------
# Timing

ROUNDS, QUICK_ROUNDS = 4, 2     # interleaved timing rounds (measure_case), and with --quick


def best_time(run, repeats, budget=20.0, least=0.5):
    """(best wall time, metrics of the last run) over ``repeats`` runs, more for fast runs until they fill
    ``least`` seconds and fewer for slow ones past ``budget``; the garbage collector off while a run is
    timed, as timeit does (every engine alike). ``run()`` simulates and returns its judge: judge() finds
    the switches in what the run produced and scores them, outside the timed region."""
    best, judge, spent, n = math.inf, None, 0.0, 0
    while n < repeats and spent <= budget or spent < least:
        gc.disable()
        try:
            start = time.perf_counter()
            judge = run()
            dt = time.perf_counter() - start
        finally:
            gc.enable()
        best, spent, n = min(best, dt), spent + dt, n + 1
    return best, judge()


def mechsim_settings(case, tols):
    """(engine, label, tol, build) of mechsim's settings: DOP853 at every tolerance of ``tols``, RK45 (5th
    order, 6 evaluations a step against DOP853's 12 + 3 for its dense output) at every other one and RK23
    (3rd order, 3 evaluations) at those down to 1e-6: a user picks the solver and tolerance as a peer's user
    picks its integrator and step. The model is built once for all of them."""
    run = MECHSIM_CASES[case]()
    settings = [("DOP853", tol) for tol in tols] + [("RK45", tol) for tol in tols[::2]] + \
        [("RK23", tol) for tol in tols if tol >= 1e-6]
    return [("mechsim", f"{solver} rtol=atol={tol:g}", tol, lambda solver=solver, tol=tol: lambda: run(tol, solver))
            for solver, tol in settings]


def measure_case(case, engines, tols, quick, rounds, say):
    """Every setting of mechsim and the peers on ``case``, timed in ``rounds`` interleaved rounds (each
    setting's best over all of them): the host's speed drifts by tens of percent within minutes on shared
    machines, and timing the engines one after another would put that drift into their ratio. Returns
    {engine: rows}."""
    entries = mechsim_settings(case, tols)
    for engine in engines:
        entries += [(engine, label, None, build) for label, build in peer_settings(case, engine, quick)]
    rows, live = [], []
    for engine, label, tol, build in entries:
        row = {"engine": engine, "setting": label, "time": math.inf, **({} if tol is None else {"tol": tol})}
        rows.append(row)
        try:
            built = build()
            run, keep = built if isinstance(built, tuple) else (built, None)    # keep Exudyn's container alive
            run()                                                              # warm-up: compiles or loads
            live.append((row, run, keep))
        except Exception as exc:                                              # a failure is a result too
            row.update(time=math.nan, error=math.inf, found=0, note=f"failed: {type(exc).__name__}: {exc}"[:200])
            say(f"  {engine} {label}: FAILED {type(exc).__name__}: {exc}")
    for _ in range(rounds):
        for row, run, _keep in live:
            if math.isnan(row["time"]):                                      # failed in an earlier round
                continue
            try:
                t, metrics = best_time(run, 1, budget=20.0 / rounds, least=0.5 / rounds)
            except Exception as exc:
                row.update(time=math.nan, error=math.inf, found=0, note=f"failed: {type(exc).__name__}: {exc}"[:200])
                say(f"  {row['engine']} {row['setting']}: FAILED {type(exc).__name__}: {exc}")
                continue
            row.update(metrics, time=min(row["time"], t), note="" if metrics.get("ok", True) else "not successful")
    out = {}
    for row in rows:
        engine = row.pop("engine")
        out.setdefault(engine, []).append(row)
        if np.isfinite(row["time"]):
            say(f"  {engine} {row['setting']}: {_fmt_ms(row['time'])} ms, error {row['error']:.2e} ({row['found']} "
                f"switches)" + (f", speed error {row['speed_error']:.1e}" if "speed_error" in row else ""))
    return out


def equal_accuracy(peer_row, mech_rows):
    """mechsim's cheapest row at least as accurate as peer_row (None if none is)."""
    ok = [r for r in mech_rows if np.isfinite(r["time"]) and r["error"] <= peer_row["error"]]
    return min(ok, key=lambda r: r["time"]) if ok else None


# ---------------------------------------------------------------------------------------------------
# Report

CASE_TITLES = {"ball": f"Bouncing ball: max error of the first {N_IMPACTS} impact times",
               "belt": f"Stick-slip belt: max error of the first {N_SWITCHES} stick/slip switch times",
               "roll": "Rolling ball: error of the time it starts rolling (final-speed error beside)"}
ENGINE_NAMES = {"mujoco": "MuJoCo", "exudyn": "Exudyn"}


def _fmt_err(e):
    return "missed switches" if not np.isfinite(e) else f"{e:.1e}"


def _fmt_ms(t):
    return "—" if not np.isfinite(t) else (f"{t * 1e3:.1f}" if t >= 0.01 else f"{t * 1e3:.2f}")


def summary_rows(results):
    out = []
    for case, per in results.items():
        mech = per["mechsim"]
        for engine in (e for e in per if e != "mechsim"):
            rows = [r for r in per[engine] if np.isfinite(r["error"]) and np.isfinite(r["time"])]
            if not rows:
                out.append((case, engine, None, None, None, None))
                continue
            best = min(rows, key=lambda r: (r["error"], r["time"]))
            pairs = [(r, equal_accuracy(r, mech)) for r in rows]
            ratios = [r["time"] / m["time"] for r, m in pairs if m is not None]
            out.append((case, engine, best, equal_accuracy(best, mech), min(ratios) if ratios else None,
                        max(ratios) if ratios else None))
    return out


def machine_info():
    """The machine table of the report: the speed suite's (mechsim.bench.report), CPU family and SIMD flags
    included, so that the hybrid ratios measured on different CPUs can be told apart."""
    from mechsim.bench.report import machine_info as suite_machine
    m = suite_machine()
    return {"date": m["date"], "CPU": m["cpu"], "CPU vendor, family, model": m["cpu_id"] or "?",
            "SIMD flags": m["cpu_flags"] or "?", "LLVM target CPU (numba)": m["llvm_cpu"] or "?",
            "cores": str(m["cores"]), "load average at start": m["load"] or "?", "python": m["python"],
            **{name: m[name] or "not installed" for name in ("numpy", "numba", "mujoco", "exudyn", "mechsim")},
            "git": m["git"] or "?"}


def write_report(path, results, info, quick):
    L = ["# Hybrid mechanics: switching times at equal accuracy — results", "",
         "Generated by `benchmarks/hybrid.py`" + (" --quick" if quick else "") +
         " (see `benchmarks/README.md`, section *Hybrid mechanics*). Issue 10 asks: mechsim at least 10x "
         "faster than MuJoCo and Exudyn at equal accuracy of the switching times, where the peers reach "
         "the accuracy at all, their best accuracy reported beside. Wall times are the best of several "
         "runs (at least 0.5 s of them, the garbage collector off while timing, as timeit) after a "
         f"warm-up run, timed in {QUICK_ROUNDS if quick else ROUNDS} rounds interleaved over every engine's "
         "settings (the host's speed drifts by tens of percent within minutes; one engine after another "
         "would put that drift into their ratio); model construction and the post-processing that finds the switches are not timed.", "",
         "## Machine", "", "| item | value |", "|---|---|"]
    L += [f"| {k} | {v} |" for k, v in info.items()]
    L += ["", "## Summary", "",
          "Per case and peer: the peer's most accurate setting; mechsim's cheapest tolerance that is at "
          "least as accurate; the wall-time ratio peer / mechsim there; and the range of that ratio over "
          "all the peer's settings (each paired with mechsim's cheapest setting at least as accurate).", "",
          "| case | peer | peer's best error (setting) | peer time (ms) | mechsim at ≤ that error | mechsim time (ms) "
          "| ratio at peer's best | ≥ 10x there | ratio range over peer settings | ≥ 10x at every setting |",
          "|---|---|---|---|---|---|---|---|---|---|"]
    for case, engine, best, mech, rmin, rmax in summary_rows(results):
        name = ENGINE_NAMES[engine]
        if best is None:
            L.append(f"| {case} | {name} | no setting resolved the switches | — | — | — | — | — | — | — |")
            continue
        if mech is None:
            L.append(f"| {case} | {name} | {_fmt_err(best['error'])} ({best['setting']}) | {_fmt_ms(best['time'])} "
                     f"| mechsim does not reach it | — | — | **no** | — | **no** |")
            continue
        ratio = best["time"] / mech["time"]
        rng = f"{rmin:.1f}x – {rmax:.0f}x" if rmin is not None else "—"
        met = "yes" if rmin is not None and rmin >= 10 else "**no**"
        met_best = "yes" if ratio >= 10 else "**no**"
        L.append(f"| {case} | {name} | {_fmt_err(best['error'])} ({best['setting']}) | {_fmt_ms(best['time'])} "
                 f"| {_fmt_err(mech['error'])} ({mech['setting']}) | {_fmt_ms(mech['time'])} | {ratio:.1f}x | {met_best} "
                 f"| {rng} | {met} |")
    L += ["", "Exact switching times (closed forms in the script's comments):", ""]
    L += [f"- bouncing ball, impacts (s): {', '.join(f'{t:.6f}' for t in ball_exact())}",
          f"- stick-slip belt, unlock/lock alternating (s): {', '.join(f'{t:.6f}' for t in belt_exact())}",
          f"- rolling ball: rolls from {roll_exact()[0]:.9f} s at {roll_exact()[1]:.9f} m/s"]
    for case, per in results.items():
        L += ["", f"## {CASE_TITLES[case]}", ""]
        for engine, rows in per.items():
            extra = any("speed_error" in r for r in rows)
            L += [f"### {ENGINE_NAMES.get(engine, engine)}", "",
                  "| setting | wall time (ms) | switch-time error (s) | switches found |"
                  + (" final-speed error (m/s) |" if extra else "")
                  + (" peer / mechsim at equal accuracy |" if engine != "mechsim" else "") + " note |",
                  "|---|---|---|---|" + ("---|" if extra else "") + ("---|" if engine != "mechsim" else "") + "---|"]
            for r in rows:
                line = f"| {r['setting']} | {_fmt_ms(r['time'])} | {_fmt_err(r['error'])} | {r.get('found', '')} |"
                if extra:
                    line += f" {r['speed_error']:.1e} |" if "speed_error" in r else " — |"
                if engine != "mechsim":
                    m = equal_accuracy(r, per["mechsim"]) if np.isfinite(r["error"]) else None
                    line += (f" {r['time'] / m['time']:.1f}x (vs {m['setting'].split()[-1]}) |" if m is not None
                             else " — |")
                L.append(line + f" {r.get('note', '')} |")
            L.append("")
    L += NOTES
    Path(path).write_text("\n".join(L) + "\n")


NOTES = ["## How the peers model each case", "",
         "- **MuJoCo** (soft constraints, fixed step, `mujoco.rollout` so that the step loop runs in C): the ball "
         "a sphere geom on a plane, `condim=1`, restitution through the contact's damping ratio "
         "(`solref = (time constant, −ln e / √(π² + ln² e))`); the rolling ball `condim=3`, friction (μ, 0, 0). "
         "*default softness* = time constant 0.02 s, impedance (0.9, 0.95, 0.001); *stiff* = time constant 2h, "
         "impedance 0.9999. The stick–slip belt **cannot be modelled natively**: MuJoCo's dry friction "
         "(contact friction, joint `frictionloss`) has a single level, no static > kinetic; the rows shown switch "
         "the joint's `frictionloss` between F_s and F_k from Python before every step (user-written stiction), "
         "so that case's step loop runs in Python.",
         "- **Exudyn** (implicit generalized-α at fixed step, discontinuous iterations): the balls are rigid "
         "bodies with an `ObjectContactSphereTriangle` against a ground triangle (penalty contact; the bouncing "
         "ball with impact model 2, whose hysteresis damping is set from the restitution coefficient, and no "
         "numerical damping ρ∞ = 1; the rolling ball with regularized Coulomb friction, linear below "
         "`frictionProportionalZone`); the belt uses `ObjectConnectorCoordinateSpringDamperExt`'s bristle "
         "stick–slip model (sticking stiffness k_μ, static offset decaying over `exponentialDecayStatic`). "
         "Exudyn's explicit solvers refuse rigid bodies with Euler-parameter nodes (algebraic variables).",
         "- **mechsim**: rigid contacts and stiction with exact event location (DOP853 and RK45, rtol = atol); the "
         "switches are its `res.events` (kinds impact, lock/unlock, stick).", ""]


# ---------------------------------------------------------------------------------------------------

def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="fewer settings and repeats (a smoke run)")
    ap.add_argument("--output", default=str(HERE / "RESULTS_hybrid.md"))
    ap.add_argument("--engines", default="mujoco,exudyn", help="comma-separated peers (empty: mechsim alone)")
    ap.add_argument("--cases", default="ball,belt,roll")
    args = ap.parse_args(argv)
    say = lambda s: print(s, flush=True)  # noqa: E731
    engines = [e for e in args.engines.split(",") if e]
    for e in list(engines):
        try:
            __import__(e)
        except ImportError:
            say(f"{e} not importable: skipped")
            engines.remove(e)
    tols = [1e-3, 1e-6, 1e-8, 1e-10, 1e-12] if args.quick else [10.0 ** -k for k in range(3, 13)]
    info = machine_info()
    results = {}
    for case in args.cases.split(","):
        say(f"== {case}")
        results[case] = measure_case(case, engines, tols, args.quick, QUICK_ROUNDS if args.quick else ROUNDS, say)
    write_report(args.output, results, info, args.quick)
    for case, engine, best, mech, rmin, rmax in summary_rows(results):
        if best is None:
            say(f"{case:5s} {engine:7s}: no setting resolved the switches")
        elif mech is None:
            say(f"{case:5s} {engine:7s}: best {best['error']:.1e} in {best['time'] * 1e3:.1f} ms; mechsim does not reach it")
        else:
            say(f"{case:5s} {engine:7s}: best {best['error']:.1e} in {best['time'] * 1e3:.1f} ms; mechsim "
                f"{mech['error']:.1e} in {mech['time'] * 1e3:.2f} ms: {best['time'] / mech['time']:.0f}x"
                f" (range over settings {rmin:.0f}x-{rmax:.0f}x)")
    say(f"wrote {args.output}")


if __name__ == "__main__":
    sys.exit(main())
