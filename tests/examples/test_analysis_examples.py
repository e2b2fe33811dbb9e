"""The analysis-mode examples (issue 4): the pendulum on a cart of Schlotter (2003, §3.4-3.6) in
inverse dynamics, linearized, and as an inverted pendulum under the paper's PD cascade control
(examples/cart_pendulum.py --inverse/--linearize/--control), and the Stewart platform trimmed and
linearized (examples/stewart_linearization.py, Březina et al. 2008). Each against hand
formulas or the nonlinear model."""
import numpy as np
import pytest

import mechsim as ms
from example_helpers import cached, finish_script, script


def cp():
    return script("cart_pendulum")


def sl():
    return script("stewart_linearization")


# ============================================================================== §3.4 inverse dynamics
def inverse_run():
    return cached(("cart_pendulum", "inverse"), lambda: cp().inverse_dynamics(t_end=10.0, rate=50))


def test_inverse_dynamics_model_is_fully_driven():
    m, res, _, _ = inverse_run()
    assert m.check().dof == 0
    np.testing.assert_allclose(res["slide.q"], res.t, atol=1e-12)
    np.testing.assert_allclose(res["hinge.q"], res.t, atol=1e-12)
    np.testing.assert_allclose(res["slide.v"], 1.0, atol=1e-12)
    np.testing.assert_allclose(res["hinge.v"], 1.0, atol=1e-12)
    assert np.abs(res["slide.a"]).max() < 1e-12 and np.abs(res["hinge.a"]).max() < 1e-12


def test_inverse_dynamics_matches_the_papers_equations():
    """F_A(t), F_B(t) converted from the driver force and torque equal eqs. (1)-(2) solved by hand
    (F_B = m_B g sin t / 2, F_A = -m_B b_B sin t / 2 - F_B cos t) to 1e-9 N over 10 s."""
    _, res, F_A, F_B = inverse_run()
    ref_A, ref_B = cp().paper_inverse_dynamics(res.t)
    assert np.abs(ref_B).max() > 2.0 and np.abs(ref_A).max() > 0.5          # not trivially zero
    assert np.abs(F_A - ref_A).max() < 1e-9
    assert np.abs(F_B - ref_B).max() < 1e-9
    # the closed form as the docstring writes it
    mB, bB, g, t = cp().M_ROD, cp().ROD_LENGTH, cp().G, res.t
    np.testing.assert_allclose(ref_B, mB * g * np.sin(t) / 2, atol=1e-14)
    np.testing.assert_allclose(ref_A, -mB * bB * np.sin(t) / 2 - mB * g * np.sin(t) * np.cos(t) / 2, atol=1e-14)


def test_inverse_dynamics_reactions():
    """The joint reactions of the kinematics Result by Newton-Euler by hand: the cart pushes the rod
    with m_B (a_COM - g) at the hinge (COM on a circle of radius c at 1 rad/s), and the hinge torque is
    the z torque of that reaction; the ground holds the cart up with (m_A + m_B) g + m_B c cos t and
    takes the hinge motor's reaction torque (the hinge is at the cart's centre, which does not turn)."""
    _, res, _, _ = inverse_run()
    c, mA, mB, g, t = cp().ROD_COM, cp().M_CART, cp().M_ROD, cp().G, res.t
    hinge, slide = res["hinge.reaction"], res["slide.reaction"]
    assert hinge.shape == (len(t), 6) and slide.shape == (len(t), 6)
    np.testing.assert_allclose(hinge[:, 3], -mB * c * np.sin(t), atol=1e-9)
    np.testing.assert_allclose(hinge[:, 4], mB * (g + c * np.cos(t)), atol=1e-9)
    np.testing.assert_allclose(hinge[:, 5], 0.0, atol=1e-9)
    np.testing.assert_allclose(hinge[:, 2], res["hinge.force"], atol=1e-9)
    np.testing.assert_allclose(slide[:, 3], res["slide.force"], atol=1e-9)
    np.testing.assert_allclose(slide[:, 4], (mA + mB) * g + mB * c * np.cos(t), atol=1e-9)
    np.testing.assert_allclose(slide[:, 2], res["hinge.force"], atol=1e-9)
    assert np.abs(slide[:, [0, 1, 5]]).max() < 1e-9 and np.abs(hinge[:, [0, 1]]).max() < 1e-9    # planar


def test_inverse_dynamics_of_the_open_tree_agrees():
    """ms.inverse_dynamics on the undriven tree (q, v, a given) gives the same joint forces, and at
    random states the generalized forces of F_A, F_B from eqs. (1)-(2) (slide F_A + F_B cos q2, hinge
    b_B F_B)."""
    _, res, _, _ = inverse_run()
    m_open = cp()._cart_and_rod("open", 0.0)
    tau = ms.inverse_dynamics(m_open, res.q, res.v, np.zeros_like(res.v))
    q_names, v_names = m_open.coordinates()
    assert v_names == ["slide.v", "hinge.v"]
    np.testing.assert_allclose(tau[:, 0], res["slide.force"], atol=1e-9)
    np.testing.assert_allclose(tau[:, 1], res["hinge.force"], atol=1e-9)
    rng = np.random.default_rng(4)
    q, v, a = rng.uniform(-3, 3, (3, 20, 2))
    tau = ms.inverse_dynamics(m_open, q, v, a)
    F_A, F_B = cp().paper_eom_forces(q.T, v.T, a.T)
    np.testing.assert_allclose(tau[:, 0], F_A + F_B * np.cos(q[:, 1]), atol=1e-9)
    np.testing.assert_allclose(tau[:, 1], cp().ROD_LENGTH * F_B, atol=1e-9)


# ============================================================================== §3.5 linearization
def lins():
    return cached(("cart_pendulum", "linearizations"), lambda: cp().linearizations())


def test_linearization_state_names():
    for lin in lins().values():
        assert sorted(lin.state_names) == sorted(cp().STATES)
        assert lin.A.shape == (4, 4) and lin.B.shape == (4, 1)


def test_hanging_linearization_matches_hand_formulas():
    """The forward model (k_SD = 20, b_SD = 0.5), trimmed from q2 = 0.1 to the hanging rest, linearized
    with input slide.force: A, B as eqs. (1)-(2) linearized by hand; the eigenvalues too."""
    lin = lins()["hanging"]
    assert np.abs(lin.state.q).max() < 1e-9 and np.abs(lin.state.v).max() < 1e-12
    A, B = cp().reorder(lin)
    A_hand, B_hand = cp().hand_linearization(0.0, cp().K_SD, cp().B_SD)
    assert np.abs(A - A_hand).max() < 1e-6 * np.abs(A_hand).max()
    assert np.abs(B - B_hand).max() < 1e-9 * np.abs(B_hand).max()
    e, e_hand = np.sort_complex(np.linalg.eigvals(A)), np.sort_complex(np.linalg.eigvals(A_hand))
    assert np.abs(e - e_hand).max() < 1e-6 * np.abs(e_hand).max()
    assert np.all(e.real < 0)                       # the damper drains both modes


def test_inverted_linearization_matches_hand_formulas():
    """The paper's model (k_SD = b_SD = 0) trimmed upright: eigenvalues 0, 0, +-sqrt((m_A + m_B) m_B g c
    / det M0) (6.2625 1/s with our parameters)."""
    lin = lins()["inverted"]
    assert abs(lin.state.q[1] - np.pi) < 1e-9 and abs(lin.state.q[0]) < 1e-9
    A, B = cp().reorder(lin)
    A_hand, B_hand = cp().hand_linearization(np.pi)
    assert np.abs(A - A_hand).max() < 1e-6 * np.abs(A_hand).max()
    assert np.abs(B - B_hand).max() < 1e-9 * np.abs(B_hand).max()
    rate = np.sqrt(cp().pendulum_rate_squared(np.pi))
    assert rate == pytest.approx(6.262514, abs=1e-6)
    e = np.linalg.eigvals(A)
    e = e[np.argsort(e.real)]
    assert e[0].real == pytest.approx(-rate, rel=1e-7) and e[-1].real == pytest.approx(rate, rel=1e-7)
    assert np.abs(e[1:3]).max() < 1e-3                       # the free cart: a double zero


def test_small_swing_linear_vs_nonlinear():
    """Released at q2 = 0.01 rad from hanging: the linear model (expm) follows the nonlinear one
    within 1 % of the amplitude over 10 s."""
    res, x_nl, x_lin = cached(("cart_pendulum", "swing"), lambda: cp().swing(0.01, t_end=10.0))
    assert res.t[-1] == 10.0
    assert np.abs(x_nl[:, 1] - x_lin[:, 1]).max() < 1e-2 * 0.01
    assert np.abs(x_nl[:, 0] - x_lin[:, 0]).max() < 1e-2 * np.abs(x_lin[:, 0]).max()


# ============================================================================== §3.6 inverted pendulum
def closed_loop():
    return cached(("cart_pendulum", "closed loop"), lambda: cp().closed_loop())


def test_pd_cascade_closed_loop_is_stable():
    """A + B K with the paper's gains (25, 50 on q1, q1'; 500, 75 on the lean and its rate): all four
    eigenvalues in the left half plane, as the hand closed loop (about -146.9, -7.49, -0.553 +- 0.538i;
    the paper's own parameters give -204.6, -8.31, -0.54 +- 0.53i)."""
    lin, A_cl, _ = closed_loop()
    e = np.sort_complex(np.linalg.eigvals(A_cl))
    assert np.all(e.real < 0)
    idx = [lin.state_names.index(n) for n in cp().STATES]
    assert np.abs(A_cl[np.ix_(idx, idx)] - cp().hand_closed_loop()).max() < 1e-6 * np.abs(A_cl).max()
    e_hand = np.sort_complex(np.linalg.eigvals(cp().hand_closed_loop()))
    assert np.abs(e - e_hand).max() < 1e-5 * np.abs(e_hand).max()
    np.testing.assert_allclose(e_hand, [-146.8595, -7.4903, -0.55253 - 0.53752j, -0.55253 + 0.53752j], atol=1e-3)
    # the open loop alone is unstable
    assert np.linalg.eigvals(lin.A).real.max() > 6.0


def test_pd_cascade_with_the_wrong_gain_pairing_is_unstable():
    """Why the gains pair as they do: with 500, 75 on the cart and 25, 50 on the rod the closed loop
    is unstable."""
    A, B = cp().hand_linearization(np.pi)
    K = np.array([[500.0, -25.0, 75.0, -50.0]])
    assert np.linalg.eigvals(A + B @ K).real.max() > 0


@pytest.mark.parametrize("sample_time", [None, 0.01], ids=["continuous", "sampled"])
def test_inverted_pendulum_returns_upright(sample_time):
    """Released 0.1 rad from upright under the controller (continuous, or sampled every 10 ms with a
    zero-order hold): upright again (|q2 - pi| < 1e-3) after 8 s and the response decays."""
    m, res = cached(("cart_pendulum", "control", sample_time), lambda: cp().control_run(sample_time=sample_time))
    dev = np.abs(res["hinge.q"] - np.pi)
    assert res.t[-1] == 15.0 and dev[0] == pytest.approx(0.1)
    assert dev[res.t >= 8.0].max() < 1e-3
    assert dev[-1] < 1e-5 and abs(res["slide.q"][-1]) < 1e-3 and abs(res["hinge.v"][-1]) < 1e-4
    late = res.t >= 10.0
    assert dev[late].max() < 0.1 * dev[(res.t >= 5.0) & (res.t < 10.0)].max()


def test_sampled_control_is_close_to_continuous():
    """10 ms sampling (poles at most 147 1/s) changes the response only a little."""
    _, cont = cached(("cart_pendulum", "control", None), lambda: cp().control_run())
    _, samp = cached(("cart_pendulum", "control", 0.01), lambda: cp().control_run(sample_time=0.01))
    assert np.abs(cont["hinge.q"] - samp["hinge.q"]).max() < 0.1 * 0.1


def test_small_perturbation_linear_vs_nonlinear():
    """q2(0) = pi + 0.01: the linear closed loop (A + B K) follows the nonlinear closed loop to 1 % of
    the perturbation."""
    t, x_nl, x_lin = cached(("cart_pendulum", "small"), lambda: cp().small_perturbation(0.01))
    err_q2 = np.abs(x_nl[:, 1] - x_lin[:, 1]).max()          # 1.1e-7 rad
    err_q1 = np.abs(x_nl[:, 0] - x_lin[:, 0]).max()          # 7.8e-7 m of 1e-2 m
    assert err_q2 < 1e-3 * 0.01
    assert err_q1 < 1e-3 * np.abs(x_lin[:, 0]).max()


def test_sampled_control_matches_the_zero_order_hold_loop():
    """Sampled every 10 ms from q2(0) = pi + 0.01: at the sample instants the nonlinear run follows the
    linear loop discretized with a zero-order hold (x_{k+1} = (Ad + Bd K) x_k) to the nonlinearity's
    level (~1e-7 rad), while it is 4e-4 rad off the continuous linear loop: the hold is exact."""
    t, x_nl, x_zoh = cached(("cart_pendulum", "small sampled"),
                            lambda: cp().sampled_small_perturbation(0.01, t_end=5.0))
    assert len(t) == 501 and t[-1] == pytest.approx(5.0)
    assert np.abs(np.linalg.eigvals(cp().zoh_closed_loop())).max() < 1.0
    assert np.abs(x_nl[:, 1] - x_zoh[:, 1]).max() < 1e-3 * 0.01
    assert np.abs(x_nl[:, 0] - x_zoh[:, 0]).max() < 1e-3 * np.abs(x_zoh[:, 0]).max()
    _, x_cont, x_lin = cached(("cart_pendulum", "small"), lambda: cp().small_perturbation(0.01))
    n = len(t)
    assert np.abs(x_cont[:n, 1] - x_lin[:n, 1]).max() < 1e-3 * 0.01
    assert np.abs(x_nl[:, 1] - x_cont[:n, 1]).max() > 1e-2 * 0.01         # sampling does show


def test_tip_push_linear_vs_nonlinear():
    """A 1 N, 0.1 s horizontal push at the tip of the upright rod (a body_force with a time function):
    the rod leans a few hundredths of a radian and comes back; the linear closed loop with the tip force
    input (from the slide.force and hinge.force inputs) agrees to 0.2 % of the peak (3.4e-4 of the
    0.039 rad peak lean, 4e-4 of the 0.28 m cart excursion)."""
    lin, A_cl, B_tip = closed_loop()
    m, res = cached(("cart_pendulum", "push"), lambda: cp().control_run(np.pi, tip_force=cp().pulse))
    idx = [lin.state_names.index(n) for n in cp().STATES]
    x_lin = cp().linear_closed_loop(A_cl, res.t, B_tip=B_tip, force=cp().pulse)[:, idx]
    x_nl = np.column_stack([res[n] for n in cp().STATES]) - [0.0, np.pi, 0.0, 0.0]
    peak = np.abs(x_nl[:, 1]).max()
    assert 0.01 < peak < 0.1
    assert np.abs(x_nl[:, 1] - x_lin[:, 1]).max() < 2e-3 * peak
    assert np.abs(x_nl[:, 0] - x_lin[:, 0]).max() < 2e-3 * np.abs(x_lin[:, 0]).max()
    assert np.abs(x_nl[-1, 1]) < 1e-3 * peak


# ============================================================================== Stewart platform
def stewart():
    def make():
        mod = sl()
        m = mod.build_model()
        op = m.trim()
        return m, op, mod.linearize(m, op)
    return cached(("stewart", "trim and linearization"), make)


def test_stewart_trim_is_at_rest():
    m, op, _ = stewart()
    assert np.max(op.residual) < 1e-9
    assert np.abs(op.v).max() < 1e-12
    legs = np.array([sl().op_value(m, op, f"p{i}") for i in range(1, 7)])
    assert np.all(legs < 0) and np.ptp(legs) < 1e-8          # every leg shortened alike (symmetric load)
    # settled by the nonlinear model itself: from rest at the trim point nothing moves
    res = sl().nonlinear_step(m, op, t_end=0.2, step={})
    assert np.abs(res.q - op.q).max() < 1e-9


def test_stewart_minimal_linearization_has_12_stable_states():
    _, _, lin = stewart()
    assert lin.A.shape == (12, 12) and lin.B.shape == (12, 6)
    assert lin.C.shape == (6, 12) and lin.D.shape == (6, 6)
    assert len(lin.state_names) == 12 and lin.input_names == sl().INPUTS
    e = np.linalg.eigvals(lin.A)
    assert e.real.max() < 0


def test_stewart_full_linearization_has_the_same_nonzero_eigenvalues():
    m, op, lin = stewart()
    full = cached(("stewart", "full"), lambda: sl().linearize(m, op, minimal=False, independent=lin.independent))
    nv = len(m.coordinates()[1])
    assert full.A.shape == (2 * nv, 2 * nv) == (42, 42)
    e_full = sl().nonzero_eigenvalues(full.A)
    e_min = np.sort_complex(np.linalg.eigvals(lin.A))
    assert len(e_full) == 12
    assert np.abs(e_full - e_min).max() < 1e-6 * np.abs(e_min).max()


def test_stewart_linear_step_matches_nonlinear():
    """A 1 N step on leg 1 from the trimmed rest, 0.5 s: the linear outputs (platform position and
    quaternion vector part) within 1 % of the nonlinear ones (the paper reports a few per cent)."""
    m, op, lin = stewart()
    res, y_nl, y_lin, rel = cached(("stewart", "step"), lambda: sl().step_comparison(m, op, lin, t_end=0.5))
    assert res.t[-1] == 0.5
    assert np.abs(y_lin[:, :3]).max() > 1e-4 * 1e-2           # it moves (~ tenths of a mm)
    assert rel < 1e-2


def test_stewart_linear_step_error_is_second_order():
    """The linear-nonlinear difference is the nonlinearity alone (no linearization error): it shrinks
    in proportion to the step, relative to the response (0.37 % at 1 N, 0.037 % at 0.1 N)."""
    m, op, lin = stewart()
    _, _, _, rel_1 = cached(("stewart", "step"), lambda: sl().step_comparison(m, op, lin, t_end=0.5))
    _, _, _, rel_01 = sl().step_comparison(m, op, lin, t_end=0.5, step={"f1": 0.1})
    assert rel_01 < 1e-3
    assert rel_01 / rel_1 == pytest.approx(0.1, rel=0.05)


def test_stewart_joint_force_inputs_match_the_actuators():
    """inputs=["p1.force", ...] (generalized forces on the legs' prismatic joints) give the same B as
    the model's actuator inputs f1..f6."""
    m, op, lin = stewart()
    by_joint = m.linearize(op, inputs=[f"p{i}.force" for i in range(1, 7)], outputs=sl().OUTPUTS, minimal=True,
                           independent=lin.independent)
    assert by_joint.state_names == lin.state_names
    assert np.abs(by_joint.A - lin.A).max() < 1e-9 * np.abs(lin.A).max()
    assert np.abs(by_joint.B - lin.B).max() < 1e-9 * np.abs(lin.B).max()


# ============================================================================== the scripts run
SCRIPT_RUNS = {          # id -> (script, arguments, MECHSIM_EXAMPLE_T_END)
    "cart_pendulum_inverse": ("cart_pendulum", ["--inverse"], "2"),
    "cart_pendulum_linearize": ("cart_pendulum", ["--linearize"], "2"),
    "cart_pendulum_control": ("cart_pendulum", ["--control"], "3"),
    "stewart_linearization": ("stewart_linearization", [], "0.1"),
}


@pytest.mark.parametrize("key", list(SCRIPT_RUNS))
def test_analysis_script_runs(script_runs, key):      # script_runs: conftest.py, over SCRIPT_RUNS
    proc, out = script_runs[key]
    name, _, t_end = SCRIPT_RUNS[key]
    finish_script(proc, name, t_end, out, timeout=300)
