"""The runnable examples in examples/: every model file loads and simulates to the same trajectory
as the Python script that builds the same model; the physics each example is there to show; every
script and the README's command lines run."""
import re

import numpy as np
import pytest
import yaml
from scipy.integrate import solve_ivp

import mechsim as ms
from example_helpers import EXAMPLES, cached, cli_simulate, file_options, finish_script, readme_cli, script

# model file -> (script, build_model kwargs, span simulated here [s], samples per second, dof)
CASES = {
    "cart_pendulum": ("cart_pendulum", {}, 10.0, 50, 2),
    "double_pendulum": ("double_pendulum", {}, 10.0, 100, 2),
    "spherical_pendulum_flywheel": ("spherical_pendulum_flywheel", {}, 10.0, 200, 4),
    "spherical_pendulum_flywheel_zero_g": ("spherical_pendulum_flywheel", {"zero_g": True}, 10.0, 200, 4),
    "chain20": ("chain20", {}, 2.0, 100, 20),
    "tumbling_body": ("tumbling_body", {}, 20.0, 100, 6),
    "four_bar": ("four_bar", {}, 2.0, 100, 1),
    "slider_crank": ("slider_crank", {}, 1.0, 100, 0),
    "slider_crank_free": ("slider_crank", {"driven": False}, 1.0, 100, 1),
    "five_bar": ("five_bar", {}, 1.0, 100, 1),
    "stewart_platform": ("stewart_platform", {}, 0.5, 100, 6),
    "andrews_squeezer": ("andrews_squeezer", {}, 0.03, 1000, 1),
    "bricard": ("bricard", {}, 1.0, 100, 1),
    "n_four_bar": ("n_four_bar", {}, 0.5, 100, 1),
    "bouncing_ball": ("bouncing_ball", {}, 5.0, 100, 1),
    "stick_slip_belt": ("stick_slip_belt", {}, 2.0, 100, 1),
    "clutch": ("clutch", {}, 4.0, 100, 2),
    "billiard_ball": ("billiard_ball", {}, 1.0, 100, 6),
    "disk_on_ramp": ("disk_on_ramp", {}, 8.0, 20, 3),
    "stacked_blocks": ("stacked_blocks", {}, 6.0, 20, 2),
    "box_on_incline": ("box_on_incline", {}, 2.0, 20, 6),
    "pendulum_stop": ("pendulum_stop", {}, 4.0, 50, 1),
    "newtons_cradle": ("newtons_cradle", {}, 1.0, 100, 5),
}


def run(case):
    """(yaml model, its result, script model, its result) over the case's span, simulated once
    with the model file's solver and tolerances."""
    def make():
        name, kwargs, span, rate, _ = CASES[case]
        m_file = ms.load(EXAMPLES / f"{case}.yaml")
        m_api = script(name).build_model(**kwargs)
        options = file_options(m_file, span, rate)
        return m_file, m_file.simulate(**options), m_api, m_api.simulate(**options)
    return cached(("model file and script", case), make)


# ------------------------------------------------------------------------------ model files vs scripts
def test_every_model_file_is_covered():
    assert {p.stem for p in EXAMPLES.glob("*.yaml")} == set(CASES)


@pytest.mark.parametrize("case", list(CASES))
def test_model_file_matches_script(case):
    m_file, r_file, m_api, r_api = run(case)
    assert m_file.coordinates() == m_api.coordinates()
    assert m_file.signals() == m_api.signals()
    assert m_file.check().dof == CASES[case][4]
    np.testing.assert_array_equal(r_file.t, r_api.t)
    assert r_file.t[-1] == pytest.approx(CASES[case][2])
    assert np.abs(r_file.q - r_api.q).max() <= 1e-9
    assert np.abs(r_file.v - r_api.v).max() <= 1e-9
    body = [b for b in m_file.bodies if b != "ground"][-1]
    assert np.abs(r_file[f"{body}.position"] - r_api[f"{body}.position"]).max() <= 1e-9


def test_chain20_yaml_is_generated_by_its_script(tmp_path):
    generated = script("chain20").write_yaml(tmp_path / "chain20.yaml")
    assert yaml.safe_load(generated.read_text()) == yaml.safe_load((EXAMPLES / "chain20.yaml").read_text()), \
        "examples/chain20.yaml is stale: run python examples/chain20.py --write-yaml"


# ------------------------------------------------------------------------------ physics
def test_cart_pendulum_follows_the_papers_equations():
    """Schlotter 2003, eqs. (1)-(2) (the m-file of its Fig. 2), integrated by scipy, against mechsim."""
    cp = script("cart_pendulum")
    t = np.linspace(0, 10, 501)
    res = ms.load(EXAMPLES / "cart_pendulum.yaml").simulate(t_end=10.0, t_eval=t, rtol=1e-10, atol=1e-12)
    mA, mB, b, k, c, g = cp.M_CART, cp.M_ROD, cp.ROD_LENGTH, cp.K_SD, cp.B_SD, cp.G
    I33 = cp.box_inertia(mB, cp.ROD_SECTION, b, cp.ROD_SECTION)[2]

    def rhs(_, y):
        q1, q2, u1, u2 = y
        M = [[mA + mB, mB * 0.5 * b * np.cos(q2)], [mB * 0.5 * b * np.cos(q2), mB * 0.25 * b * b + I33]]
        f = [-c * u1 + mB * 0.5 * b * np.sin(q2) * u2 ** 2 - k * q1, -mB * g * 0.5 * b * np.sin(q2)]
        return [u1, u2, *np.linalg.solve(M, f)]

    ref = solve_ivp(rhs, (0, 10), [0.0, cp.Q2_0, 0.0, 0.0], t_eval=t, method="DOP853", rtol=1e-12, atol=1e-14)
    assert np.abs(res["slide.q"] - ref.y[0]).max() < 1e-8
    assert np.abs(res["hinge.q"] - ref.y[1]).max() < 1e-8
    assert np.abs(res["hinge.v"] - ref.y[3]).max() < 1e-7


def test_double_pendulum_conserves_energy_while_flipping():
    m, res, _, _ = run("double_pendulum")
    E = script("double_pendulum").energy(m, res)
    assert np.abs(E - E[0]).max() < 1e-6 * 2 * 9.81          # relative to m g L
    lower = res["j1.q"] + res["j2.q"]                          # absolute angle of the lower rod
    assert np.abs(lower).max() > np.pi                         # it goes over the top


def test_chain20_conserves_energy():
    m, res, _, _ = run("chain20")
    E = script("chain20").energy(m, res)
    assert np.abs(E - E[0]).max() < 1e-5 * abs(E[0])
    tip = res.point("link20", (0.1, 0, 0))
    assert np.ptp(tip[:, 2]) > 0.2                             # it fell


def test_flywheel_precesses_about_the_vertical():
    """Gravity throughout (the paper): after the spin-up the axis precesses about the vertical at
    the heavy-top rate while the tilt stays bounded, the spin and L_z stay constant."""
    fw = script("spherical_pendulum_flywheel")
    m, res, _, _ = run("spherical_pendulum_flywheel")
    e3 = fw.rod_axis(res)
    tilt, _ = fw.tilt_and_azimuth(e3)
    h, L, E = fw.axial_momentum(res), fw.angular_momentum(m, res), fw.energy(m, res)
    before, after = res.t < fw.T_ON, res.t >= fw.T_OFF
    # the torque acts on the wheel alone, about its axis: the rod never spins about its own axis,
    # and the axial momentum grows by torque x duration
    assert np.abs(np.einsum("ni,ni->n", res["rod.omega"], e3)).max() < 1e-7
    assert np.abs(h[before]).max() < 1e-9
    assert h[after] == pytest.approx(fw.TORQUE * (fw.T_OFF - fw.T_ON), rel=1e-6)
    spin = res["spin.v"][after]
    assert np.ptp(spin) < 1e-7 * spin.mean()
    # gravity has no moment about the vertical through the pivot; no friction
    assert np.ptp(L[after, 2]) < 1e-6 * np.linalg.norm(L[after], axis=1).max()
    assert np.ptp(E[after]) < 1e-6 * E[after].max()
    # tilt bounded, below the initial 30 degrees
    assert tilt[after].max() < fw.TILT0
    # precession: the axis averaged over one nutation period turns steadily about +Z
    tc, az, tiltc = fw.guiding_center_azimuth(res, 2 * np.pi * fw.transverse_inertia() / h[after][0])
    sel = tc >= fw.T_OFF + 0.5
    assert np.diff(az[sel]).min() > 0
    turned = az[sel][-1] - az[sel][0]
    assert turned > np.pi
    rate = turned / (tc[sel][-1] - tc[sel][0])
    assert rate == pytest.approx(fw.steady_precession_rate(h[after][0], tiltc[sel].mean()), rel=0.05)
    assert np.radians(10) < tiltc[sel].min() and tiltc[sel].max() < np.radians(25)


def test_flywheel_without_gravity_is_torque_free_after_the_spin_up():
    """Gravity cancelled from 1.5 s: after the torque ends, L about the pivot is conserved and the
    axis cones about L at the constant angle, at the rate |L| / I_perp."""
    fw = script("spherical_pendulum_flywheel")
    m, res, _, _ = run("spherical_pendulum_flywheel_zero_g")
    e3 = fw.rod_axis(res)
    h, L, K = fw.axial_momentum(res), fw.angular_momentum(m, res), fw.energy(m, res, gravity=False)
    after = res.t >= fw.T_OFF
    La = L[after]
    Lnorm = np.linalg.norm(La[0])
    assert np.abs(La - La[0]).max() < 1e-6 * Lnorm
    assert np.ptp(K[after]) < 1e-6 * K[after].max()
    assert h[after] == pytest.approx(fw.TORQUE * (fw.T_OFF - fw.T_ON), rel=1e-6)
    spin = res["spin.v"][after]
    assert np.ptp(spin) < 1e-7 * spin.mean()
    # during the spin-up the only external moment is the torque along the wheel axis: dL/dt = tau e3
    up = (res.t >= fw.T_ON) & (res.t <= fw.T_OFF)
    impulse = fw.TORQUE * np.trapezoid(e3[up], res.t[up], axis=0)
    i0, i1 = np.flatnonzero(up)[[0, -1]]
    assert np.abs(L[i1] - L[i0] - impulse).max() < 1e-4 * np.linalg.norm(impulse)
    # free precession of the axis about L
    n = La[0] / Lnorm
    u1 = np.cross(n, [1.0, 0, 0])
    u1 /= np.linalg.norm(u1)
    u2 = np.cross(n, u1)
    ea = e3[after]
    cone = np.arccos(ea @ n)
    assert np.ptp(cone) < 1e-6
    az = np.unwrap(np.arctan2(ea @ u2, ea @ u1))
    assert np.diff(az).min() > 0
    rate = np.polyfit(res.t[after], az, 1)[0]
    assert rate == pytest.approx(Lnorm / fw.transverse_inertia(), rel=1e-6)


def test_flywheel_spun_by_a_motor_alone_shows_no_gyroscopic_effect():
    """The brief's literal model (motor torque on the wheel's revolute joint, nothing else): the
    rod counter-spins about its own axis, the axial angular momentum stays zero and the pendulum
    keeps swinging in its initial plane — why the examples hand the reaction to the ground."""
    fw = script("spherical_pendulum_flywheel")
    m = fw.build_model(torque=0.05, react_to_ground=False)
    res = m.simulate(t_end=5.0, t_eval=np.linspace(0, 5, 501), rtol=1e-9, atol=1e-11)
    e3 = fw.rod_axis(res)
    assert res["spin.v"][-1] > 100                              # relative spin: the motor did work
    assert np.abs(fw.axial_momentum(res)).max() < 1e-6
    assert np.abs(e3[:, 0]).max() < 1e-6                        # no precession: the swing stays planar


def test_tumbling_body_flips_with_constant_energy_and_momentum():
    tb = script("tumbling_body")
    m, res, _, _ = run("tumbling_body")
    w = tb.body_omega(res)
    assert tb.sign_changes(w[:, 1]) >= 3                        # flips, again and again
    assert w[:, 1].min() < -0.99 * tb.OMEGA0[1] and w[:, 1].max() > 0.99 * tb.OMEGA0[1]
    T, L = tb.kinetic_energy_and_momentum(m, res)
    Lnorm = np.linalg.norm(L, axis=1)
    assert np.ptp(T) < 1e-6 * T[0]
    assert np.ptp(Lnorm) < 1e-6 * Lnorm[0]
    assert np.abs(L - L[0]).max() < 1e-6 * Lnorm[0]
    drift = np.outer(res.t, tb.VELOCITY0)
    assert np.abs(res["block.position"] - drift).max() < 1e-9


# ------------------------------------------------------------------------------ scripts and command lines
SCRIPT_RUNS = {          # id -> (script, arguments, MECHSIM_EXAMPLE_T_END)
    "cart_pendulum": ("cart_pendulum", [], "1"),
    "double_pendulum": ("double_pendulum", [], "1"),
    "flywheel": ("spherical_pendulum_flywheel", [], "6"),
    "flywheel_zero_g": ("spherical_pendulum_flywheel", ["--zero-g"], "5"),
    "flywheel_internal_torque": ("spherical_pendulum_flywheel", ["--internal-torque"], "2"),
    "chain20": ("chain20", [], "0.5"),
    "tumbling_body": ("tumbling_body", [], "1"),
    "ur5_arm": ("ur5_arm", [], "3"),
    "cassie_legs": ("cassie_legs", [], "0.2"),
    "bouncing_ball": ("bouncing_ball", [], "5"),
    "stick_slip_belt": ("stick_slip_belt", [], "1"),
    "clutch": ("clutch", [], "3"),
    "billiard_ball": ("billiard_ball", [], "1"),
    "disk_on_ramp": ("disk_on_ramp", [], "2"),
    "stacked_blocks": ("stacked_blocks", [], "6"),
    "box_on_incline": ("box_on_incline", [], "2"),
    "pendulum_stop": ("pendulum_stop", [], "4"),
    "newtons_cradle": ("newtons_cradle", [], "1"),
    "disk_fence": ("disk_fence", [], "10"),
    "conveyor_pendulum": ("conveyor_pendulum", [], "0.5"),
}


@pytest.mark.parametrize("key", list(SCRIPT_RUNS))
def test_example_script_runs(script_runs, key):      # script_runs: conftest.py, over SCRIPT_RUNS
    proc, out = script_runs[key]
    name, _, t_end = SCRIPT_RUNS[key]
    finish_script(proc, name, t_end, out, timeout=120)


def test_ur5_arm_holds_still_and_reaches_its_goal(script_runs):
    """examples/ur5_arm.py: the inverse-dynamics torques hold the outstretched arm (the shoulder's equals
    the moment of the carried weights about its axis), and the PD move settles on the goal."""
    proc, out = script_runs["ur5_arm"]
    stdout = finish_script(proc, "ur5_arm", "3", out, timeout=120)
    number = lambda pattern: float(re.search(pattern + r" (-?[0-9.]+(?:e[+-][0-9]+)?)", stdout).group(1))  # noqa: E731
    torques = [float(x) for x in re.search(r"gravity torques \[([^\]]*)\]", stdout).group(1).split(",")]
    assert torques[1] == pytest.approx(number("lift by statics:"), abs=1e-3) and abs(torques[1]) > 50
    assert number(r"q0\| over 1 s =") < 1e-9 and number("final error") < 1e-6


def test_cassie_legs_hang_with_their_loops_closed(script_runs):
    """examples/cassie_legs.py: the SDF's 4 ball-joint loops give 12 equations of rank 10 (the plantar
    four-bars' out-of-plane rows redundant), the loops stay closed over the run, and the kinetic plus
    potential energy lost is what the joint dampers dissipated."""
    proc, out = script_runs["cassie_legs"]
    stdout = finish_script(proc, "cassie_legs", "0.2", out, timeout=120)
    number = lambda pattern: float(re.search(pattern + r" (-?[0-9.]+(?:e[+-][0-9]+)?)", stdout).group(1))  # noqa: E731
    assert "assembled: 4 loops, 12 equations of rank 10, 2 redundant, 12 dof" in stdout
    assert "redundant constraints: 2 (right-plantar-foot-joint[2], left-plantar-foot-joint[2])" in stdout
    assert number("max constraint error over the run:") < 1e-6
    lost = number("lost")
    assert lost > 0.1 and number("balance error") < 1e-4 * lost


README_SIGNALS = {
    "cart_pendulum": "slide.q,hinge.q",
    "double_pendulum": "j1.q,j2.q",
    "spherical_pendulum_flywheel": "ball.q,spin.v",
    "spherical_pendulum_flywheel_zero_g": "ball.q,spin.v",
    "chain20": "j01.q,j20.q",
    "tumbling_body": "block.omega",
    "four_bar": "j1.q,j4.q",
    "slider_crank": "slide.q,j1.force",
    "slider_crank_free": "j1.q,slide.q",
    "five_bar": "a1.q,a2.q,a3.q",
    "stewart_platform": "platform.position",
    "andrews_squeezer": "beta.q,theta.q",
    "bricard": "j1.q,j2.q",
    "n_four_bar": "a0.q,a40.q",
    "bouncing_ball": "height.q,floor.force",
    "stick_slip_belt": "slip.q,friction.force",
    "clutch": "clutch.v,friction.force",
    "billiard_ball": "ball.velocity,cloth.mode",
    "disk_on_ramp": "roll.q,ramp.mode",
    "stacked_blocks": "x1.v,x2.v",
    "box_on_incline": "box.position,floor.normal_force",
    "pendulum_stop": "hinge.q,stop.force",
    "newtons_cradle": "swing0.q,swing4.q",
}


@pytest.mark.parametrize("case", list(CASES))
def test_command_line_in_readme(case, tmp_path, capsys):
    """``mechsim simulate examples/<case>.yaml -o out.csv --plot out.png --signals ...``, shortened."""
    cli = readme_cli(case, README_SIGNALS[case])
    header = cli_simulate(cli, case, min(0.2, CASES[case][2]), README_SIGNALS[case], tmp_path, capsys)[0].split(",")
    assert header[0] == "t" and len(header) > 2
