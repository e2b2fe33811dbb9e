"""The closed-loop examples from the literature (examples/four_bar, slider_crank, five_bar,
stewart_platform): each against a reference computed without mechsim, the conservation laws and
topology numbers each is there to show, and each model file through the command line."""
import json

import numpy as np
import pytest
from scipy.integrate import solve_ivp

from example_helpers import (EXAMPLES, cached, cli_simulate, file_options, finish_script, model_file_and_script,
                             readme_cli, script)

REFERENCE = EXAMPLES / "reference" / "four_bar.json"


def wrap(angle):
    """Angle differences to (-pi, pi]."""
    return np.angle(np.exp(1j * np.asarray(angle)))


# ============================================================================== four-bar (Khan, Tang & Krovi 2006)
def four_bar_run(drift, t_end=10.0):
    fb = script("four_bar")
    return cached(("four_bar", drift, t_end), lambda: (lambda m: (m, fb.simulate(m, drift, t_end=t_end)))(fb.build_model()))


def test_four_bar_reference_file():
    ref = json.loads(REFERENCE.read_text())
    assert ref["t"] == [float(k) for k in range(11)]
    assert len(ref["crank"]) == 11 and ref["crank"][0] == 1.5708
    assert "source" in ref and "method" in ref
    # the stored angles close the loop (absolute angles, Khan, Tang & Krovi 2006, eq. (19))
    th, al, ph = (np.asarray(ref[k]) for k in ("crank", "coupler", "rocker"))
    assert np.abs(-np.cos(th) - 4 * np.cos(al) + 3 + 2.5 * np.cos(ph)).max() < 1e-12
    assert np.abs(-np.sin(th) - 4 * np.sin(al) + 2.5 * np.sin(ph)).max() < 1e-12
    # its own energy balance and the cross-check against the paper's DAE
    assert np.ptp(ref["energy_minus_work"]) < 1e-6
    assert ref["cross_check_max_diff"] < 1e-7


def test_four_bar_topology():
    report = script("four_bar").build_model().check()
    assert report.dof == 1
    assert sorted(report.tree_joints) == ["j1", "j2", "j4"] and report.cut_joints == ["j3"]
    assert len(report.loops) == 1
    # a 3D revolute cut joint: 3 position + 2 orientation equations; the loop is planar, so 3 of the
    # 5 are redundant (rank 2 on 3 tree coordinates)
    assert report.n_constraints == 5
    assert len(report.redundant) == 3
    assert str(report).startswith("dof: 1")


def test_four_bar_first_second_against_reference():
    """Fast: the first second under projection, against the reference at t = 1 s."""
    fb = script("four_bar")
    ref = fb.reference()
    m, res = four_bar_run("projection", t_end=1.0)
    assert res.t[-1] == 1.0
    assert abs(res["j1.q"][-1] - ref["crank"][1]) < 1e-8
    assert abs(res["j1.v"][-1] - ref["crank_rate"][1]) < 1e-7
    assert res.constraint_error.max() < 1e-9


def test_four_bar_cut_joint_angle_is_the_closed_form():
    """SPEC C2: j3, the cut revolute joint (coupler to rocker), reads its angle phi - alpha at every output of the
    34-turn run: the loop solved in closed form at the crank's angle (the paper's branch), starting at j3's q0."""
    fb = script("four_bar")
    m, res = four_bar_run("projection")
    theta = res["j1.q"]
    alpha, phi = np.array([fb.loop_angles(x) for x in theta]).T
    expected = np.unwrap(phi - alpha)
    assert expected[0] == pytest.approx(m.joints["j3"].q0[0], abs=1e-12) and "j3.q" in m.signals()
    # j3.q and the closed form come from the same sample: they differ by the loop's residual, which projection holds
    # at 1e-3 atol or, over 34 turns, at the rounding of cos/sin of the crank angle (eps |theta| times the links'
    # lengths), magnified by the loop's sensitivity (1/l2 + 1/l3) / sin mu, mu = phi - alpha the transmission angle
    residual = max(1e-3 * fb.ATOL, np.finfo(float).eps * np.abs(theta).max() * (fb.L1 + fb.L2 + fb.L3))
    sensitivity = (1 / fb.L2 + 1 / fb.L3) / np.abs(np.sin(expected)).min()
    assert np.abs(res["j3.q"] - expected).max() < 10 * sensitivity * residual


@pytest.mark.slow
def test_four_bar_projection_matches_reference():
    """Crank angle within 1e-6 rad of the independent reference at every whole second up to 10 s
    (34 turns), the other two angles too; loop closed to 1e-9 throughout."""
    fb = script("four_bar")
    ref = fb.reference()
    m, res = four_bar_run("projection")
    idx = np.searchsorted(res.t, ref["t"])
    np.testing.assert_allclose(res.t[idx], ref["t"])
    theta, alpha, phi = (x[idx] for x in fb.absolute_angles(res))
    assert np.abs(theta - ref["crank"]).max() < 1e-6
    assert abs(theta[-1] - ref["crank"][-1]) < 1e-6
    assert np.abs(wrap(alpha - ref["coupler"])).max() < 1e-6
    assert np.abs(wrap(phi - ref["rocker"])).max() < 1e-6
    assert np.abs(res["j1.v"][idx] - ref["crank_rate"]).max() < 1e-5
    assert res.constraint_error.max() < 1e-9
    # the loop really is closed: the coupler's tip on the rocker's tip (independent of the core's g)
    gap = res.point("coupler", (4.0, 0, 0)) - res.point("rocker", (2.5, 0, 0))
    assert np.abs(gap).max() < 1e-9


@pytest.mark.slow
def test_four_bar_energy_balance():
    """Kinetic + potential energy - work of the 6 N m torque stays constant (1e-6 relative to the
    work done)."""
    fb = script("four_bar")
    m, res = four_bar_run("projection")
    balance = fb.energy_balance(m, res)
    work = fb.TORQUE * (res["j1.q"][-1] - res["j1.q"][0])
    assert np.ptp(balance) < 1e-6 * work
    assert np.ptp(balance) < 1e-6 * np.abs(fb.energy(m, res)).max()


@pytest.mark.slow
@pytest.mark.parametrize("drift", ["stabilization", "baumgarte"])
def test_four_bar_stabilized_runs_stay_bounded(drift):
    """Without projection the loop error is not driven to round-off but stays bounded; the crank
    still follows the reference."""
    fb = script("four_bar")
    ref = fb.reference()
    m, res = four_bar_run(drift)
    assert np.isfinite(res.q).all()
    assert res.constraint_error.max() < 1e-7
    assert abs(res["j1.q"][-1] - ref["crank"][-1]) < 1e-5
    assert np.ptp(fb.energy_balance(m, res)) < 1e-6 * fb.TORQUE * res["j1.q"][-1]


# ============================================================================== slider-crank
def slider_crank_run(driven, t_end=3.0):
    sc = script("slider_crank")
    return cached(("slider_crank", driven, t_end),
                  lambda: (lambda m: (m, sc.simulate(m, t_end=t_end)))(sc.build_model(driven)))


def slider_crank_driver_torque(theta, omega):
    """Independent: the torque turning the crank at constant omega, from Lagrange's equation in the
    crank angle with the closed-form kinematics (sympy): tau = 1/2 mu'(theta) omega^2 + V'(theta)."""
    import sympy as sp
    sc = script("slider_crank")
    r, l, mc, mr, msl, g = sc.R, sc.L, sc.M_CRANK, sc.M_ROD, sc.M_SLIDER, sc.G
    th = sp.symbols("theta")
    beta = -sp.asin(r * sp.sin(th) / l)                     # absolute rod angle
    x = r * sp.cos(th) + l * sp.cos(beta)                   # slider
    rod_c = sp.Matrix([r * sp.cos(th) + l / 2 * sp.cos(beta), r * sp.sin(th) + l / 2 * sp.sin(beta)])
    drod = rod_c.diff(th)
    mu = (mc * r ** 2 / 4 + mc * r ** 2 / 12 + mr * (drod.T * drod)[0] + mr * l ** 2 / 12 * sp.diff(beta, th) ** 2
          + msl * sp.diff(x, th) ** 2)
    V = g * (mc * r / 2 * sp.sin(th) + mr * rod_c[1])
    tau = sp.lambdify(th, sp.diff(mu, th) / 2 * omega ** 2 + sp.diff(V, th), "numpy")
    return tau(theta)


def test_slider_crank_topology():
    sc = script("slider_crank")
    driven, free = sc.build_model(driven=True).check(), sc.build_model(driven=False).check()
    assert free.dof == 1 and driven.dof == 0
    for report in (driven, free):
        assert report.cut_joints == ["pin"] and len(report.loops) == 1
        # 5 equations of the 3D revolute cut joint (3 redundant: the loop is planar), + 1 for the driver
        assert report.n_constraints == 5 + len(report.drivers) and len(report.redundant) == 3


def test_slider_crank_driven_follows_the_closed_form():
    sc = script("slider_crank")
    m, res = slider_crank_run(True)
    theta = res["j1.q"]
    np.testing.assert_allclose(theta, sc.OMEGA * res.t, rtol=0, atol=1e-9)
    assert np.abs(res["slide.q"] - sc.slider_position(theta)).max() < 1e-8
    assert np.abs(res["slider.position"][:, 0] - sc.slider_position(theta)).max() < 1e-8
    assert res.constraint_error.max() < 1e-9
    # the driver's torque against Lagrange's equation in theta
    tau = slider_crank_driver_torque(theta, sc.OMEGA)
    assert np.abs(res["j1.force"] - tau).max() < 1e-6 * np.abs(tau).max()


def test_slider_crank_free_conserves_energy():
    sc = script("slider_crank")
    m, res = slider_crank_run(False)
    theta = res["j1.q"]
    assert np.abs(res["slide.q"] - sc.slider_position(theta)).max() < 1e-8
    assert res.constraint_error.max() < 1e-9
    assert theta.max() == pytest.approx(0.2, abs=0.05) and theta.min() < -np.pi     # through the inner dead centre
    E = sc.energy(m, res)
    assert np.abs(E - E[0]).max() < 1e-7 * (np.abs(E).max() + 1.0)


# ============================================================================== five-bar (Del Citto, Pennestrì & Vita 2005)
def five_bar_run(driven=False, t_end=5.0):
    fb = script("five_bar")
    return cached(("five_bar", driven, t_end), lambda: (lambda m: (m, fb.simulate(m, t_end=t_end)))(fb.build_model(driven)))


def test_five_bar_has_the_papers_dof_and_redundancy():
    """Del Citto, Pennestrì & Vita 2005, §4.1: 'the model has 7 redundant constraints and one degree-of-freedom'; driven,
    'the only degree of freedom is driven by the driving constraint'."""
    fb = script("five_bar")
    report = fb.build_model().check()
    assert report.dof == fb.PAPER_DOF == 1
    assert len(report.redundant) == fb.PAPER_REDUNDANT == 7
    assert len(report.cut_joints) == 2 and len(report.loops) == 2
    assert report.n_constraints == 10
    assert str(report).startswith("dof: 1")
    driven = fb.build_model(driven=True).check()
    assert driven.dof == 0 and len(driven.redundant) == 7


def test_five_bar_swings_as_a_compound_pendulum():
    """All three cranks turn together, the coupler stays horizontal, and the crank angle follows
    J theta'' = -k cos(theta) (integrated here by scipy); energy conserved; loops closed to 1e-9."""
    fb = script("five_bar")
    m, res = five_bar_run()
    J, k = fb.pendulum_constants()
    ref = solve_ivp(lambda t, y: [y[1], -k / J * np.cos(y[0])], (0, res.t[-1]), [fb.THETA0, 0.0], t_eval=res.t,
                    method="DOP853", rtol=1e-12, atol=1e-12)
    assert np.abs(res["a1.q"] - ref.y[0]).max() < 1e-7
    assert np.abs(res["a2.q"] - res["a1.q"]).max() < 1e-9
    assert np.abs(res["a3.q"] - res["a1.q"]).max() < 1e-9
    assert np.abs(res["a1.q"] + res["b1.q"]).max() < 1e-9                # coupler horizontal
    assert res.constraint_error.max() < 1e-9
    E = fb.energy(m, res)
    # 1e-6, not better: each pass of theta = -pi/2 kicks the energy by up to ~1e-6 relative (the core's
    # fixed active rows lose rank there; test_five_bar_cranks_vertical below)
    assert np.abs(E - E[0]).max() < 1e-6 * abs(E[0])
    # the exact (elliptic-integral) period: the crank's rate turns back upwards at T/2 (at the far
    # extreme, -pi - theta0) and downwards again at T
    v = res["a1.v"]
    up = np.flatnonzero((v[:-1] < 0) & (v[1:] >= 0))
    down = np.flatnonzero((v[:-1] > 0) & (v[1:] <= 0))
    crossing = [res.t[i] - v[i] * (res.t[i + 1] - res.t[i]) / (v[i + 1] - v[i]) for i in (up[0], down[0])]
    T = fb.period()
    assert crossing[0] == pytest.approx(T / 2, abs=1e-5) and crossing[1] == pytest.approx(T, abs=1e-5)
    assert res["a1.q"].min() == pytest.approx(-np.pi - fb.THETA0, abs=1e-4)


def five_bar_driven_run(t_end=20.0):
    fb = script("five_bar")
    return cached(("five_bar", "driven", t_end),
                  lambda: (lambda m: (m, fb.simulate(m, t_end=t_end, rate=1000)))(fb.build_model(driven=True)))


def test_five_bar_driven_at_the_papers_speed():
    """Del Citto, Pennestrì & Vita 2005, §4.1: one crank driven at 6.28 rad/s for 20 s, through the flat positions where all
    bars are collinear (theta = 0, pi: the parallelogram's bifurcation). The cranks stay parallel,
    the coupler horizontal, the loops closed; the driver holds the linkage against gravity alone:
    torque = k cos(theta) (the compound pendulum's moment, theta'' = 0)."""
    fb = script("five_bar")
    m, res = five_bar_driven_run()
    theta = res["a1.q"]
    np.testing.assert_allclose(theta, fb.THETA0 + fb.OMEGA * res.t, rtol=0, atol=1e-12)
    assert np.abs(res["a2.q"] - theta).max() < 1e-9 and np.abs(res["a3.q"] - theta).max() < 1e-9
    assert np.abs(res["b1.q"] + theta).max() < 1e-9
    assert res.constraint_error.max() < 1e-9
    _, k = fb.pendulum_constants()
    err = np.abs(res["a1.force"] - k * np.cos(theta))
    # away from the flat positions (where the driver's share of the load is ill-conditioned) and from
    # the vertical ones (the next test)
    regular = (np.abs(np.sin(theta)) > 0.1) & (np.abs(np.cos(theta)) > 0.1)
    assert err[regular].max() < 1e-6 * k


def test_five_bar_cranks_vertical():
    """Where the cranks are vertical the independent rows chosen at assembly lose rank (the whole set
    keeps rank 3): the multipliers then come from every row by truncated QR, so the driver torque
    and the free swing's energy stay right there."""
    fb = script("five_bar")
    m, res = five_bar_driven_run()
    theta = res["a1.q"]
    _, k = fb.pendulum_constants()
    err = np.abs(res["a1.force"] - k * np.cos(theta))
    vertical = np.abs(np.cos(theta)) < 0.1
    assert err[vertical].max() < 1e-6 * k
    # the free swing at a tight tolerance: its energy integral must not jump where theta = -pi/2
    J, k = fb.pendulum_constants()
    free = fb.build_model().simulate(t_end=5.0, t_eval=np.linspace(0, 5, 1001), solver="DOP853", rtol=1e-12,
                                     atol=1e-13)
    E = J / 2 * free["a1.v"] ** 2 + k * np.sin(free["a1.q"])
    assert np.abs(E - E[0]).max() < 1e-9 * k


# ============================================================================== Stewart platform
def stewart_run(t_end=0.5):
    sp_ = script("stewart_platform")
    return cached(("stewart", t_end), lambda: (lambda m: (m, sp_.simulate(m, t_end=t_end)))(sp_.build_model()))


def test_stewart_topology():
    """21 tree velocity coordinates (6 x (U 2 + P 1) + one ball joint 3), five ball joints cut
    (3 equations each, none redundant): dof 6."""
    report = script("stewart_platform").build_model().check()
    assert report.dof == 6
    assert report.nv == 21 and report.nq == 22
    assert len(report.cut_joints) == 5 and all(j.startswith("s") for j in report.cut_joints)
    assert len(report.loops) == 5
    assert report.n_constraints == 15 and report.redundant == []
    assert str(report).startswith("dof: 6")


def stewart_closure_gap(m, state):
    """Largest distance between each leg's top and its platform anchor, from a zero-length run."""
    sp_ = script("stewart_platform")
    res = m.simulate(t_end=1e-9, t_eval=[0.0], initial=state)
    gaps = [res.point(f"upper{i}", (0, 0, leg[3]))[0] - res.point("platform", leg[1])[0]
            for i, leg in enumerate(sp_.legs(), 1)]
    return np.abs(gaps).max(), res


def test_stewart_assembles_from_perturbed_leg_guesses():
    """Leg joint guesses off by ~0.3 rad (universal) and ~0.05 m (prismatic). Left free, assembly
    closes all six legs on the platform; holding the leg lengths of a displaced, tilted pose
    (inverse kinematics, computed in the script without mechsim), it finds that pose (forward
    kinematics)."""
    from scipy.spatial.transform import Rotation
    sp_ = script("stewart_platform")
    for seed in (1, 2, 3):
        m = sp_.build_model(sp_.perturbed_guess(angle=0.3, stroke=0.05, seed=seed))
        gap, _ = stewart_closure_gap(m, m.assemble())
        assert gap < 1e-9
        R = Rotation.from_euler("xyz", [0.05, -0.08, 0.1]).as_matrix()
        offset = np.array([0.01, -0.015, 0.02])
        lengths = sp_.leg_extensions(offset, R)
        state = m.assemble(fixed={f"p{i}.q": x for i, x in enumerate(lengths, 1)})
        for i, x in enumerate(lengths, 1):
            assert state[f"p{i}.q"] == pytest.approx(x, abs=1e-12)
        gap, res = stewart_closure_gap(m, state)
        assert gap < 1e-9
        assert np.abs(res["platform.position"][0] - sp_.nominal_platform_position() - offset).max() < 1e-9
        assert np.abs(res["platform.rotation"][0] - R).max() < 1e-9


def test_stewart_short_simulation_sags_symmetrically():
    """0.5 s from the nominal pose: the loops stay closed; by the layout's symmetry the platform
    only sinks (no sideways motion, no tilt, no twist) and all six legs shorten alike."""
    sp_ = script("stewart_platform")
    m, res = stewart_run()
    assert res.constraint_error.max() < 1e-8
    legs_q = np.column_stack([res[f"p{i}.q"] for i in range(1, 7)])
    assert legs_q[-1].max() < -1e-4                                       # it sank
    assert np.ptp(legs_q, axis=1).max() < 1e-8                             # all alike
    pos = res["platform.position"]
    assert np.abs(pos[:, :2]).max() < 1e-8
    assert pos[:, 2].min() < sp_.HEIGHT - 1e-4
    assert np.abs(res["platform.rotation"] - np.eye(3)).max() < 1e-8


def test_stewart_settles_at_the_static_equilibrium():
    """After 2 s the damped platform rests where the potential energy (leg springs + gravity on the
    platform and on every leg part), minimised over the vertical translation the symmetry allows,
    is least — computed here with the script's geometry and numpy/scipy only."""
    from scipy.optimize import minimize_scalar
    sp_ = script("stewart_platform")

    def potential(z):
        V = sp_.G * sp_.PLATFORM_MASS * z
        for b, p, _, length in sp_.legs():
            d = p + [0.0, 0.0, z] - b
            L = np.linalg.norm(d)
            u = d / L
            V += 0.5 * sp_.STIFFNESS * (L - length) ** 2 + sp_.G * (sp_.LOWER_MASS * sp_.TUBE / 2 * u[2]
                                                                     + sp_.UPPER_MASS * (z - sp_.TUBE / 2 * u[2]))
        return V

    z_eq = minimize_scalar(potential, bracket=(sp_.HEIGHT - 0.02, sp_.HEIGHT), tol=1e-14).x
    m, res = stewart_run(t_end=2.0)
    assert res["platform.position"][-1, 2] == pytest.approx(z_eq, abs=1e-8)
    assert np.abs(res["platform.velocity"][-1]).max() < 1e-8
    assert res.constraint_error.max() < 1e-8


def test_stewart_yaml_is_generated_by_its_script(tmp_path):
    import yaml
    generated = script("stewart_platform").write_yaml(tmp_path / "stewart_platform.yaml")
    assert yaml.safe_load(generated.read_text()) == yaml.safe_load((EXAMPLES / "stewart_platform.yaml").read_text()), \
        "examples/stewart_platform.yaml is stale: run python examples/stewart_platform.py --write-yaml"


# ============================================================================== model files, scripts, CLI
# model file -> (script, build_model kwargs, dof, signals for the README command line)
FILES = {
    "four_bar": ("four_bar", {}, 1, "j1.q,j4.q"),
    "slider_crank": ("slider_crank", {"driven": True}, 0, "slide.q,j1.force"),
    "slider_crank_free": ("slider_crank", {"driven": False}, 1, "j1.q,slide.q"),
    "five_bar": ("five_bar", {}, 1, "a1.q,a2.q,a3.q"),
    "stewart_platform": ("stewart_platform", {}, 6, "platform.position"),
}


@pytest.mark.parametrize("case", list(FILES))
def test_model_file_matches_script(case):
    name, kwargs, dof, _ = FILES[case]
    m_file, m_api = model_file_and_script(case, name, **kwargs)
    assert m_file.check().dof == m_api.check().dof == dof
    options = file_options(m_file, 0.3, 100)
    r_file, r_api = m_file.simulate(**options), m_api.simulate(**options)
    assert np.abs(r_file.q - r_api.q).max() <= 1e-9
    assert np.abs(r_file.v - r_api.v).max() <= 1e-9


@pytest.mark.parametrize("case", list(FILES))
def test_command_lines(case, tmp_path, capsys):
    """``mechsim check`` prints the dof; ``mechsim simulate ... -o out.csv`` (the README's line,
    shortened) writes the signals."""
    _, _, dof, signals = FILES[case]
    cli = readme_cli(case, signals)
    assert cli.main(["check", str(EXAMPLES / f"{case}.yaml")]) == 0, capsys.readouterr().err
    assert capsys.readouterr().out.startswith(f"dof: {dof}")
    header = cli_simulate(cli, case, "0.2", signals, tmp_path, capsys)[0].split(",")
    assert header[0] == "t" and len(header) > 2


SCRIPT_RUNS = {          # id -> (script, arguments, MECHSIM_EXAMPLE_T_END)
    "four_bar": ("four_bar", [], "1"),
    "slider_crank": ("slider_crank", [], "0.5"),
    "slider_crank_free": ("slider_crank", ["--free"], "0.5"),
    "five_bar": ("five_bar", [], "0.5"),
    "five_bar_driven": ("five_bar", ["--driven"], "0.1"),
    "stewart_platform": ("stewart_platform", [], "0.2"),
}


@pytest.mark.slow
@pytest.mark.parametrize("key", list(SCRIPT_RUNS))
def test_example_script_runs(script_runs, key):      # script_runs: conftest.py, over SCRIPT_RUNS
    proc, out = script_runs[key]
    name, _, t_end = SCRIPT_RUNS[key]
    finish_script(proc, name, t_end, out, timeout=180)
