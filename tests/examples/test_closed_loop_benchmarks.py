"""Closed-loop benchmarks from the literature in examples/: Andrews' squeezing mechanism against the
Bari test set's reference solution, Bricard's overconstrained 6R loop (IFToMM A04) and the N four-bar
mechanism through its singular flat positions (IFToMM A02) against energy conservation and an exact
parallelogram solution; each model file against its script, through the command line and as a script."""
import json

import numpy as np
import pytest
import yaml

import mechsim as ms
from example_helpers import (EXAMPLES, cached, cli_simulate, finish_script, model_file_and_script, readme_cli,
                             script, start_script)


def _closed_loops_supported():
    try:
        ms.load(EXAMPLES / "bricard.yaml").check()
    except ms.ModelError as error:
        if "not supported" in str(error):
            return False
        raise
    return True


pytestmark = pytest.mark.skipif(not _closed_loops_supported(),
                                reason="this mechsim has no closed-loop core yet")


def relative_drift(E):
    return np.abs(E - E[0]).max() / abs(E[0])


# ------------------------------------------------------------------------------ Andrews' squeezer
def andrews():
    """(model file, result over the reference span, reference data)."""
    def make():
        m = ms.load(EXAMPLES / "andrews_squeezer.yaml")
        return m, script("andrews_squeezer").simulate(m, t_end=0.03), script("andrews_squeezer").reference()
    return cached("andrews", make)


def test_andrews_topology():
    info = ms.load(EXAMPLES / "andrews_squeezer.yaml").check()
    assert info.dof == 1
    assert str(info).startswith("dof: 1")
    assert sorted(info.cut_joints) == ["e3", "e4", "e6"]
    assert len(info.loops) == 3
    assert len(info.tree_joints) == 7


def test_andrews_model_file_matches_script():
    m_file, m_api = model_file_and_script("andrews_squeezer")
    t = np.linspace(0.0, 0.002, 11)
    r_file = m_file.simulate(t_end=0.002, t_eval=t, rtol=1e-10, atol=1e-12)
    r_api = m_api.simulate(t_end=0.002, t_eval=t, rtol=1e-10, atol=1e-12)
    assert np.abs(r_file.q - r_api.q).max() <= 1e-12
    assert np.abs(r_file.v - r_api.v).max() <= 1e-9


def test_andrews_initial_accelerations_match_the_test_set():
    """At the test set's consistent start (at rest) the motor and the spring accelerate beta and Theta
    only: y(15:21) of the test set's initial values, from the simulation's first sample."""
    m, res, ref = andrews()
    for name, value in zip(script("andrews_squeezer").ANGLES, ref["t=0"]["a"]):
        assert res[f"{name}.a"][0] == pytest.approx(value, rel=1e-9, abs=1e-6)


def test_andrews_forward_dynamics_applies_the_loops():
    """ms.forward_dynamics (SPEC §3: loops and drivers applied) at the test set's consistent start."""
    angles = script("andrews_squeezer").ANGLES
    m = ms.load(EXAMPLES / "andrews_squeezer.yaml")
    ref = script("andrews_squeezer").reference()["t=0"]
    state = m.assemble(fixed=list(angles))
    for name, value in zip(angles, ref["q"]):
        assert state[f"{name}.q"] == pytest.approx(value, abs=1e-12)
    a = ms.forward_dynamics(m, state.q, state.v)
    v_names = m.coordinates()[1]
    for name, value in zip(angles, ref["a"]):
        assert a[v_names.index(f"{name}.v")] == pytest.approx(value, rel=1e-9, abs=1e-6)


def test_andrews_matches_the_reference_solution_at_t_003():
    m, res, ref = andrews()
    q, v = script("andrews_squeezer").coordinates(res)
    assert res.t[-1] == pytest.approx(0.03)
    assert np.abs(q - ref["t=0.03"]["q"]).max() < 1e-4
    assert np.abs(v - ref["t=0.03"]["v"]).max() < 1e-4 * np.abs(ref["t=0.03"]["v"]).max()
    # default drift control: coordinate projection keeps the three loops closed
    assert np.max(res.constraint_error) < 1e-9


def test_andrews_tight_tolerances_reach_the_reference_to_1e_6():
    m, res, ref = andrews()
    q, _ = script("andrews_squeezer").coordinates(res)
    assert np.abs(q - ref["t=0.03"]["q"]).max() < 1e-6


# ------------------------------------------------------------------------------ Bricard
def bricard(t_end=10.0):
    def make():
        m = ms.load(EXAMPLES / "bricard.yaml")
        return m, script("bricard").simulate(m, t_end=t_end)
    return cached(("bricard", t_end), make)


def test_bricard_is_one_dof_with_one_redundant_equation():
    info = ms.load(EXAMPLES / "bricard.yaml").check()
    assert info.dof == 1
    assert len(info.redundant) == 1
    assert info.cut_joints == ["j6"]
    assert info.n_constraints == 5
    assert str(info).startswith("dof: 1")


def test_bricard_model_file_matches_script():
    m_file, m_api = model_file_and_script("bricard")
    t = np.linspace(0.0, 0.5, 51)
    r_file = m_file.simulate(t_end=0.5, t_eval=t, rtol=1e-10, atol=1e-12)
    r_api = m_api.simulate(t_end=0.5, t_eval=t, rtol=1e-10, atol=1e-12)
    assert np.abs(r_file.q - r_api.q).max() <= 1e-9


def bricard_reference():
    return cached("bricard_reference", lambda: json.loads((EXAMPLES / "reference" / "bricard.json").read_text()))


def test_bricard_short_run_follows_the_reference_and_conserves_energy():
    m, res = bricard(t_end=1.0)
    ref = bricard_reference()
    k = np.asarray(ref["t"]) <= 1.0
    t_ref, q_ref, p3_ref = np.asarray(ref["t"])[k], np.asarray(ref["q"])[k], np.asarray(ref["P3"])[k]
    idx = np.searchsorted(res.t, t_ref - 1e-12)
    assert np.abs(res.t[idx] - t_ref).max() < 1e-12
    q = np.column_stack([res[f"j{i}.q"] for i in range(1, 6)])
    assert np.abs(q[idx] - q_ref).max() < 1e-6
    assert np.abs(res.point("rod2", (0, -1, 0))[idx] - p3_ref).max() < 1e-6
    E = script("bricard").energy(m, res)
    assert relative_drift(E) < 1e-6
    assert np.max(res.constraint_error) < 1e-9
    assert np.ptp(res["j1.q"]) > 1.0                        # it swings under gravity from rest


@pytest.mark.slow
def test_bricard_independent_reference_is_converged():
    """The stored reference agrees with a coarser trace of the configuration curve (no mechsim)."""
    ref = bricard_reference()
    t = np.asarray(ref["t"])[:21]                            # first second
    q = script("bricard").independent_reference(t, h=4e-3)
    assert np.abs(q - np.asarray(ref["q"])[:21]).max() < 1e-6


@pytest.mark.slow
def test_bricard_ten_seconds_energy_and_periodic_motion():
    """10 s with gravity: energy conserved; from rest the one-DOF motion swings back and forth and
    comes back to the start configuration (at rest) at every second turning point, passing the far
    turning point and any singular position in between."""
    m, res = bricard()
    E = script("bricard").energy(m, res)
    assert relative_drift(E) < 1e-6
    assert np.max(res.constraint_error) < 1e-9
    ref = bricard_reference()
    idx = np.searchsorted(res.t, np.asarray(ref["t"]) - 1e-12)
    q = np.column_stack([res[f"j{i}.q"] for i in range(1, 6)])
    assert np.abs(q[idx] - np.asarray(ref["q"])).max() < 1e-5
    assert np.abs(res.point("rod2", (0, -1, 0))[idx] - np.asarray(ref["P3"])).max() < 1e-5
    assert res["j1.q"].max() == pytest.approx(np.pi, abs=1e-3)   # swings to the far turning point
    v1 = res["j1.v"][1:]                                     # at rest at t = 0: leave that sample out
    turns = np.flatnonzero(np.sign(v1[1:]) != np.sign(v1[:-1])) + 1
    assert len(turns) >= 3
    q_names = [f"j{i}.q" for i in range(1, 6)]
    q = np.column_stack([res[n] for n in q_names])
    # back at the start configuration near every second turning point (sampled: within one step)
    step = res.t[1] - res.t[0]
    speed = np.abs(np.column_stack([res[f"j{i}.v"] for i in range(1, 6)])).max()
    for k in turns[1::2]:
        assert np.abs(q[k]).max() < speed * step
    # the far turning points are all the same configuration
    far = q[turns[0::2]]
    assert np.abs(far - far[0]).max() < speed * step


# ------------------------------------------------------------------------------ Bricard built joint by joint
BRICARD_POINTS = ((0, 0, 0), (1, 0, 0), (1, -1, 0), (1, -1, 1), (0, -1, 1), (0, 0, 1))     # P1 ... P6 (bricard.yaml)
BRICARD_AXES = ((0, 1, 0), (0, 0, 1), (1, 0, 0), (0, 1, 0), (0, 0, 1), (1, 0, 0))
BRICARD_JOINTS = ("jO", "jA", "jB", "jC", "jD", "jE")


def bricard_joint_by_joint(cut=None):
    """Bricard's mechanism of bricard.yaml built joint by joint: the chain jO, jA, jB, jC, jD from the ground through
    rod1 ... rod5, then jE from the ground to rod5, closing the loop; no joint marked cut unless ``cut`` names one."""
    m = ms.Model("bricard", gravity=(0, -9.81, 0))
    tips = np.diff(BRICARD_POINTS, axis=0)
    for k, tip in enumerate(tips):
        m.add_body(f"rod{k + 1}", mass=1.0, com=tip / 2, inertia=tuple(0.0 if c else 1 / 12 for c in tip),
                   frames={"tip": tip})
    for k, name in enumerate(BRICARD_JOINTS[:5]):
        m.add_joint(name, "revolute", parent=f"rod{k}" if k else "ground", child=f"rod{k + 1}",
                    parent_frame="tip" if k else BRICARD_POINTS[0], axis=BRICARD_AXES[k], cut=name == cut)
    m.add_joint("jE", "revolute", parent="ground", child="rod5", parent_frame=BRICARD_POINTS[5], child_frame="tip",
                axis=BRICARD_AXES[5], cut=cut == "jE")
    return m


def test_bricard_built_joint_by_joint_cuts_the_joint_that_closes_the_loop():
    """SPEC C2: the automatic cut is the joint whose addition closes the loop (jE), not one picked by the tree's shape;
    check() says which and why."""
    info = bricard_joint_by_joint().check()
    assert info.cut_joints == ["jE"] and info.tree_joints == list(BRICARD_JOINTS[:5])
    assert info.cut_reasons == {"jE": "added last of its loop"}
    assert "  jE: closes loop 1, added last of its loop" in str(info).splitlines()
    assert (info.dof, len(info.redundant)) == (1, 1)


def test_cut_true_names_another_cut_joint():
    info = bricard_joint_by_joint(cut="jD").check()
    assert info.cut_joints == ["jD"] and info.cut_reasons == {"jD": "marked cut=True"} and "jE" in info.tree_joints
    assert (info.dof, len(info.redundant)) == (1, 1)


def test_a_driven_joint_closing_the_loop_stays_in_the_tree():
    """A driver needs its joint's coordinate: the loop is cut at its latest-added other joint, jD."""
    m = bricard_joint_by_joint()
    m.add_driver("jE", position=lambda t: 0.2 * np.sin(t))
    info = m.check()
    assert info.cut_joints == ["jD"] and "jE" in info.tree_joints and info.dof == 0
    assert info.cut_reasons["jD"] == \
        "added last of its loop but 'jE' (driver 'jE' drives it), which must stay in the tree"


def rotation(axis, angle):
    """Rodrigues' rotation matrices (N, 3, 3) about a unit axis by angles (N,), numpy alone."""
    k = np.array([[0, -axis[2], axis[1]], [axis[2], 0, -axis[0]], [-axis[1], axis[0], 0]], dtype=float)
    s, c = np.sin(angle)[:, None, None], np.cos(angle)[:, None, None]
    return np.eye(3) + s * k + (1 - c) * (k @ k)


def pose(R, p):
    """Homogeneous transforms (N, 4, 4) of rotations R (N, 3, 3) and a translation p."""
    X = np.zeros((len(R), 4, 4))
    X[:, :3, :3], X[:, :3, 3], X[:, 3, 3] = R, p, 1.0
    return X


def test_bricard_cut_joint_signals_close_the_loop():
    """Every joint of Bricard's loop, jE cut, has its .q, .v, .a; composed from their .q, the six joints' transforms
    close the loop at every output time, over a swing to the far turning point (the angles pass pi), and the cut
    joint's rates are the derivatives of its angle."""
    m = bricard_joint_by_joint()
    atol = 1e-10
    res = m.simulate(t_end=5.0, t_eval=np.linspace(0.0, 5.0, 501), rtol=1e-10, atol=atol)
    assert {f"{j}.{s}" for j in BRICARD_JOINTS for s in "qva"} <= set(m.signals())
    assert res["jO.q"].max() > 3.0                     # swung out to the far turning point (pi) and back
    N, tips = len(res.t), np.diff(BRICARD_POINTS, axis=0)
    chain = pose(np.broadcast_to(np.eye(3), (N, 3, 3)), np.zeros(3))
    for k, name in enumerate(BRICARD_JOINTS[:5]):                   # ground -> rod5 along the chain
        chain = chain @ pose(rotation(BRICARD_AXES[k], res[f"{name}.q"]), tips[k - 1] if k else BRICARD_POINTS[0])
    closing = pose(rotation(BRICARD_AXES[5], res["jE.q"]), BRICARD_POINTS[5]) @ \
        pose(np.broadcast_to(np.eye(3), (N, 3, 3)), -tips[4])        # ground -> rod5 through the cut joint jE
    # projection holds every loop equation within 1e-3 atol at the outputs; the transforms differ by those residuals
    # over 1 m links plus the rounding of six products: 1e-10
    assert np.abs(chain - closing).max() < 1e-10
    q, v, a = res["jE.q"], res["jE.v"], res["jE.a"]
    h = res.t[1] - res.t[0]
    # central differences of the dense outputs: truncation h^2/6 |x'''|, x''' bounded by jE.q's third and fourth
    # differences (twice their largest for a margin), plus the samples' error, ~10 atol, over h
    jerk, snap = np.abs(np.diff(q, 3)).max() / h ** 3, np.abs(np.diff(q, 4)).max() / h ** 4
    noise = 2 * 10 * atol / h
    np.testing.assert_allclose((q[2:] - q[:-2]) / (2 * h), v[1:-1], rtol=0, atol=2 * h ** 2 / 6 * jerk + noise)
    np.testing.assert_allclose((v[2:] - v[:-2]) / (2 * h), a[1:-1], rtol=0, atol=2 * h ** 2 / 6 * snap + noise)


# ------------------------------------------------------------------------------ N four-bar
def n_four_bar(n, t_end):
    def make():
        nf = script("n_four_bar")
        m = ms.load(EXAMPLES / "n_four_bar.yaml") if n == nf.N else nf.build_model(n)
        return m, nf.simulate(m, t_end=t_end)
    return cached(("n_four_bar", n, t_end), make)


def test_n_four_bar_yaml_is_generated_by_its_script(tmp_path):
    generated = script("n_four_bar").write_yaml(tmp_path / "n_four_bar.yaml")
    assert yaml.safe_load(generated.read_text()) == yaml.safe_load((EXAMPLES / "n_four_bar.yaml").read_text()), \
        "examples/n_four_bar.yaml is stale: run python examples/n_four_bar.py --write-yaml"


@pytest.mark.parametrize("n", [1, 2, 40])
def test_n_four_bar_topology(n):
    info = script("n_four_bar").build_model(n).check()
    assert info.dof == 1
    assert len(info.loops) == n
    assert sorted(info.cut_joints) == sorted(f"b{i}" for i in range(1, n + 1))


def test_n_four_bar_two_windows_pass_the_flat_position():
    """N = 2 (the OpenSim benchmark variant): 3 s, through the first two flat positions, on the
    parallelogram branch of the exact solution."""
    nf = script("n_four_bar")
    m, res = n_four_bar(2, 3.0)
    phi_ref, _ = nf.exact_solution(res.t, 2)
    assert nf.flat_crossings(phi_ref) >= 2
    assert nf.flat_crossings(res["a0.q"]) == nf.flat_crossings(phi_ref)
    assert np.abs(res["a0.q"] - phi_ref).max() < 1e-6
    for i in range(1, 3):                                   # all cranks turn together, the couplers translate
        assert np.abs(res[f"a{i}.q"] - res["a0.q"]).max() < 1e-6
        assert np.abs(res[f"h{i}.q"] + res[f"a{i - 1}.q"]).max() < 1e-6
    E = nf.energy(m, res)
    assert relative_drift(E) < 1e-6
    assert np.max(res.constraint_error) < 1e-8


@pytest.mark.slow
def test_n_four_bar_benchmark_ten_seconds():
    """N = 40, 10 s: energy conserved, the crank angle follows the exact parallelogram motion through
    every flat (singular) position, B0 as in the benchmark's reference (x = -L sin phi, y = L cos phi)."""
    nf = script("n_four_bar")
    m, res = n_four_bar(nf.N, 10.0)
    phi_ref, _ = nf.exact_solution(res.t, nf.N)
    phi = res["a0.q"]
    assert nf.flat_crossings(phi_ref) >= 4
    assert nf.flat_crossings(phi) == nf.flat_crossings(phi_ref)
    assert phi.min() < -np.pi / 2                          # beyond the flat position
    assert np.abs(phi - phi_ref).max() < 1e-5
    b0 = res.point("crank0", (0, nf.LENGTH, 0))
    assert np.abs(b0[:, 0] + nf.LENGTH * np.sin(phi_ref)).max() < 1e-5
    assert np.abs(b0[:, 1] - nf.LENGTH * np.cos(phi_ref)).max() < 1e-5
    E = nf.energy(m, res)
    assert relative_drift(E) < 1e-6
    assert np.max(res.constraint_error) < 1e-8


# ------------------------------------------------------------------------------ command line and scripts
CLI_CASES = {                       # model file -> (--t-end, --signals)
    "andrews_squeezer": ("0.001", "beta.q,theta.q"),
    "bricard": ("0.1", "j1.q,j2.q"),
    "n_four_bar": ("0.05", "a0.q,a40.q"),
}


@pytest.mark.parametrize("case", list(CLI_CASES))
def test_command_line_simulates_the_model_file(case, tmp_path, capsys):
    """``mechsim simulate examples/<case>.yaml -o out.csv`` (shortened), as the README shows."""
    t_end, signals = CLI_CASES[case]
    cli = readme_cli(case, signals)
    lines = cli_simulate(cli, case, t_end, signals, tmp_path, capsys, plot=False)
    assert lines[0].split(",") == ["t", *signals.split(",")]
    assert float(lines[-1].split(",")[0]) == pytest.approx(float(t_end))


@pytest.mark.parametrize("case", list(CLI_CASES))
def test_command_line_check(case, capsys):
    cli = pytest.importorskip("mechsim.cli.main")
    assert cli.main(["check", str(EXAMPLES / f"{case}.yaml")]) == 0
    assert capsys.readouterr().out.startswith("dof: 1")


SCRIPT_RUNS = {                     # script -> (arguments, MECHSIM_EXAMPLE_T_END)
    "andrews_squeezer": ([], "0.005"),
    "bricard": ([], "0.5"),
    "n_four_bar": (["--n", "2"], "0.5"),
}


@pytest.mark.parametrize("name", list(SCRIPT_RUNS))
def test_example_script_runs(name, tmp_path):
    args, t_end = SCRIPT_RUNS[name]
    stdout = finish_script(start_script(name, args, t_end, tmp_path), name, t_end, tmp_path, timeout=300)
    assert stdout.startswith("dof: 1")
