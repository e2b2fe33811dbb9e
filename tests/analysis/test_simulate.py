"""m.simulate: solvers, output grids, inputs, controllers, results and their export."""
import numpy as np
import pytest

import mechsim as ms

G, L = 9.81, 1.0


def point_pendulum(q0=0.5):
    m = ms.Model("pendulum", gravity=(0, -G, 0))
    m.add_body("bob", mass=1.0, com=(0, -L, 0), inertia=(0, 0, 0))
    m.add_joint("j", "revolute", parent="ground", child="bob", axis=(0, 0, 1), q0=q0)
    return m


def motorized_pendulum(q0):
    """The point pendulum with a joint_force driven by the input "u"."""
    m = point_pendulum(q0)
    m.add_input("u")
    m.add_force("motor", "joint_force", joint="j", value="u")
    return m


def pendulum_energy(res):
    y = res.point("bob", (0, -L, 0))[:, 1]
    return 0.5 * L ** 2 * res["j.v"] ** 2 + G * y


@pytest.mark.parametrize("solver", ["RK23", "RK45", "DOP853", "Radau", "BDF", "LSODA"])
def test_every_adaptive_solver_agrees(solver):
    reference = point_pendulum().simulate(t_end=2.0, solver="DOP853", rtol=1e-12, atol=1e-12, t_eval=[2.0])
    res = point_pendulum().simulate(t_end=2.0, solver=solver, rtol=1e-8, atol=1e-10, t_eval=[0.0, 1.0, 2.0])
    np.testing.assert_allclose(res.t, [0.0, 1.0, 2.0])
    assert abs(res["j.q"][-1] - reference["j.q"][-1]) < 1e-5
    assert np.ptp(pendulum_energy(res)) < 1e-4


@pytest.mark.parametrize("solver, h, tol", [("Euler", 1e-4, 2e-2), ("RK4", 1e-3, 1e-9)])
def test_fixed_step_converges_to_reference(solver, h, tol):
    reference = point_pendulum().simulate(t_end=1.0, solver="DOP853", rtol=1e-12, atol=1e-12, t_eval=[1.0])
    res = point_pendulum().simulate(t_end=1.0, solver=solver, h=h)
    assert len(res.t) == round(1.0 / h) + 1
    assert res.t[-1] == pytest.approx(1.0)
    assert abs(res["j.q"][-1] - reference["j.q"][-1]) < tol


def test_rk4_error_is_fourth_order():
    reference = point_pendulum(2.0).simulate(t_end=1.0, solver="DOP853", rtol=1e-13, atol=1e-13, t_eval=[1.0])
    errors = [abs(point_pendulum(2.0).simulate(t_end=1.0, solver="RK4", h=h)["j.q"][-1] - reference["j.q"][-1])
              for h in (0.02, 0.01)]
    assert 12 < errors[0] / errors[1] < 20          # 2^4 = 16


def test_fixed_step_t_eval_picks_step_points():
    res = point_pendulum().simulate(t_end=1.0, solver="RK4", h=0.01, t_eval=np.linspace(0, 1, 11))
    np.testing.assert_allclose(res.t, np.linspace(0, 1, 11))


def test_t_eval_dense_output_matches_steps():
    m = point_pendulum()
    dense = m.simulate(t_end=3.0, rtol=1e-10, atol=1e-12, t_eval=np.linspace(0, 3, 31))
    steps = m.simulate(t_end=3.0, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(np.interp(dense.t, steps.t, steps["j.q"]), dense["j.q"], atol=1e-4)
    assert steps.t[0] == 0.0 and steps.t[-1] == 3.0


def test_time_varying_input_and_expression_force():
    m = motorized_pendulum(0.0)
    m.add_force("kick", "joint_force", joint="j", value="0.5*(t < 0.1)")
    res = m.simulate(t_end=0.5, rtol=1e-9, atol=1e-11, inputs={"u": lambda t: 2.0 * t}, t_eval=[0.05, 0.3])
    np.testing.assert_allclose(res["j.force"], [0.1 + 0.5, 0.6])


def test_continuous_controller_holds_upright_pendulum():
    m = motorized_pendulum(np.pi - 0.1)
    kp, kd = 40.0, 10.0
    res = m.simulate(t_end=5.0, rtol=1e-8, controller=lambda t, y: {"u": -kp * (y["j.q"] - np.pi) - kd * y["j.v"]})
    assert abs(res["j.q"][-1] - np.pi) < 1e-3


def test_controller_reads_body_and_force_signals():
    """Outputs other than joint coordinates: the body's rotation and angular velocity (sensor signals)
    hold it upright as the joint coordinates did; the motor force it reads back is the one held."""
    m = motorized_pendulum(np.pi - 0.1)
    kp, kd = 40.0, 10.0
    seen = []

    def controller(t, y):
        angle = np.arctan2(y["bob.rotation"][1, 0], y["bob.rotation"][0, 0])      # the body's turn about z
        seen.append((y["j.force"], y["bob.omega"][2] - y["j.v"]))
        return {"u": -kp * (np.mod(angle, 2 * np.pi) - np.pi) - kd * y["bob.omega"][2]}
    res = m.simulate(t_end=5.0, rtol=1e-8, controller=controller, sample_time=0.01,
                     outputs=["j.v", "bob.rotation", "bob.omega", "j.force"])
    assert abs(res["j.q"][-1] - np.pi) < 1e-3
    assert all(abs(rate_difference) < 1e-12 for _, rate_difference in seen)
    held = [force for force, _ in seen]
    np.testing.assert_allclose(held[1:4], res["j.force"][np.searchsorted(res.t, [0.0, 0.01, 0.02])], rtol=1e-12)
    with pytest.raises(ms.MechsimError, match="unknown controller output 'bob.speed'"):
        m.simulate(t_end=0.1, controller=controller, outputs=["bob.speed"])


def test_sampled_controller_is_zero_order_hold():
    m = motorized_pendulum(0.0)
    calls = []

    def controller(t, y):
        calls.append(t)
        return {"u": t}                      # held value: the sample instant
    res = m.simulate(t_end=1.0, controller=controller, sample_time=0.25, t_eval=np.linspace(0, 1, 9))
    np.testing.assert_allclose(calls, [0.0, 0.25, 0.5, 0.75])
    np.testing.assert_allclose(res["j.force"], [0, 0, 0.25, 0.25, 0.5, 0.5, 0.75, 0.75, 0.75])


def test_initial_state_and_state_by_name():
    m = point_pendulum(0.5)
    state = m.assemble()
    assert state["j.q"] == 0.5
    state["j.q"] = 0.1
    res = m.simulate(t_end=0.1, initial=state, t_eval=[0.0])
    assert res["j.q"][0] == pytest.approx(0.1)


def test_result_export(tmp_path):
    m = point_pendulum()
    res = m.simulate(t_end=0.2, t_eval=np.linspace(0, 0.2, 5))
    res.save(tmp_path / "out.csv")
    header = (tmp_path / "out.csv").read_text().splitlines()[0].split(",")
    assert header[0] == "t" and "j.q" in header and "bob.position[2]" in header and "bob.rotation[8]" in header
    data = np.loadtxt(tmp_path / "out.csv", delimiter=",", skiprows=1)
    np.testing.assert_allclose(data[:, header.index("j.q")], res["j.q"], rtol=1e-10)
    res.save(tmp_path / "out.npz")
    npz = np.load(tmp_path / "out.npz")
    np.testing.assert_allclose(npz["bob.quat[0]"], res["bob.quat"][:, 0])
    frame = res.to_dataframe(["j.q", "bob.velocity"])
    assert list(frame.columns) == ["j.q", "bob.velocity[0]", "bob.velocity[1]", "bob.velocity[2]"]
    with pytest.raises(ms.MechsimError, match="csv or .npz"):
        res.save(tmp_path / "out.txt")


def test_signals_cover_every_joint_and_body():
    m = point_pendulum()
    res = m.simulate(t_end=0.1)
    for name in m.signals():
        assert len(res[name]) == len(res.t), name
    with pytest.raises(ms.MechsimError, match="unknown signal"):
        res["bob.speed"]


def test_progress_bar_runs(capsys):
    point_pendulum().simulate(t_end=0.5, progress=True)
    assert "100" in capsys.readouterr().err


def test_sampled_controller_in_fixed_step_run():
    m = motorized_pendulum(0.0)
    calls = []

    def controller(t, y):
        calls.append(round(t, 9))
        return {"u": t}
    res = m.simulate(t_end=0.2, solver="RK4", h=0.01, controller=controller, sample_time=0.05)
    assert calls == [0.0, 0.05, 0.1, 0.15]
    held = res["j.force"][res.t < 0.2 - 1e-9]
    np.testing.assert_allclose(held, np.floor(res.t[res.t < 0.2 - 1e-9] / 0.05 + 1e-9) * 0.05)
