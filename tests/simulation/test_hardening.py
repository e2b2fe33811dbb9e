"""Bad input ends in one clear ModelError/SimulationError, never a raw exception, a hang or a NaN
(issue 16, defects found by fuzzing the API and model files)."""
from pathlib import Path

import numpy as np
import pytest

import mechsim as ms
from mechsim.simulation.driver import CHUNK, PACE_WINDOW

HUGE = 10 ** 400           # beyond float's range


def pendulum():
    m = ms.Model("p", gravity=(0, -9.81, 0))
    m.add_body("rod", mass=1.0, com=(0.5, 0, 0), inertia=(0, 1 / 12, 1 / 12))
    m.add_joint("j1", "revolute", parent="ground", child="rod", q0=0.3)
    return m


def cart(mass=1.0):
    m = ms.Model("c")
    m.add_body("cart", mass=mass, inertia=(1, 1, 1))
    m.add_joint("x", "prismatic", parent="ground", child="cart", axis=(1, 0, 0))
    return m


def test_bogus_formulation_is_a_model_error():                                  # defect 11
    with pytest.raises(ms.ModelError, match="formulation='bogus'"):
        pendulum().simulate(0.1, formulation="bogus")


def test_empty_custom_primitive_is_a_model_error():                             # defect 9
    with pytest.raises(ms.ModelError, match="joint 'j': primitive 0"):
        cart().add_joint("j", "custom", parent="cart", child="ground", primitives=[[]])


@pytest.mark.parametrize("option, value", [("rtol", 1j), ("h", "0.01"), ("t_end", (0.05,)), ("initial", "abc"),
                                           ("outputs", [3]), ("atol", np.nan), ("sample_time", -1.0),
                                           ("progress", "yes"), ("baumgarte", (1.0,)), ("inputs", [1]),
                                           ("step_control", "PI")])
def test_bad_simulate_options_name_the_option(option, value):                   # defect 9
    options = {"t_end": 0.05, "solver": "RK4", "h": 1e-3, option: value}
    with pytest.raises(ms.ModelError, match=option):
        pendulum().simulate(**options)


@pytest.mark.parametrize("build", [
    lambda: cart(mass=HUGE),
    lambda: ms.Model().add_body("b", mass=1.0, inertia=(HUGE, 1, 1)),
    lambda: ms.Model().add_body("b", mass=1.0, com=(HUGE, 0, 0)),
    lambda: ms.Model(gravity=(0, 0, HUGE)),
    lambda: cart().add_joint("j", "revolute", parent="cart", child="ground", q0=HUGE),
    lambda: cart().add_driver("x", position=HUGE),
    lambda: cart().add_input("u", default=HUGE),
    lambda: pendulum().simulate(HUGE),
])
def test_huge_numbers_are_model_errors(build):                                  # defect 2
    with pytest.raises(ms.ModelError):
        build()


def test_huge_axis_keeps_its_direction():                                       # defect 2
    m = cart()
    m.add_body("b", mass=1.0, inertia=(1, 1, 1))
    joint = m.add_joint("j", "revolute", parent="cart", child="b", axis=[1e200, 1e200, 0])
    np.testing.assert_allclose(joint.primitives[0][1], [2 ** -0.5, 2 ** -0.5, 0])


def test_distance_between_coincident_points_is_undefined():                     # defect 4
    m = cart()
    m.add_constraint("c", "distance", body_a="ground", body_b="cart", length=1.0)
    for run in (m.check, lambda: m.simulate(0.1)):
        with pytest.raises(ms.ModelError, match="constraint 'c'.*distance is undefined"):
            run()


def test_absurd_output_grid_is_refused_before_allocating():                     # defect 5
    with pytest.raises(ms.ModelError, match="t_eval"):
        pendulum().simulate(0.05, t_eval={"start": 0, "stop": 0.05, "num": 1000000000})


@pytest.mark.parametrize("options", [dict(max_step=1e-300), dict(t_end=np.inf), dict(solver="RK4", h=1e-300)])
def test_endless_settings_are_refused(options):                                 # defect 6
    with pytest.raises(ms.ModelError):
        pendulum().simulate(**{"t_end": 1.0, **options})


def driven_pendulum(**force):
    m = pendulum()
    m.add_input("u")
    m.add_force("motor", "joint_force", joint="j1", value="u")
    if force:
        m.add_force("f", **force)
    return m


@pytest.mark.parametrize("options, match", [
    (dict(controller=lambda t, outputs: {"zz": 1.0}), "unknown input 'zz'"),
    (dict(controller=lambda t, outputs: [1.0]), r"controller returned \[1.0\]"),
    (dict(controller=lambda t, outputs: {"u": "abc"}), "controller's input 'u'.*'abc'"),
])
def test_bad_controller_at_t0_is_a_simulation_error(options, match):            # defect 1
    with pytest.raises(ms.SimulationError, match=match) as info:
        driven_pendulum().simulate(0.05, **options)
    assert info.value.partial is not None


@pytest.mark.parametrize("force, match", [
    (dict(kind="joint_force", joint="j1", value=lambda t: "abc"), "force 'f'.*returned 'abc'"),
    (dict(kind="body_force", body="rod", force=lambda t: [1.0, 2.0]), r"force 'f'.*returned \[1.0, 2.0\].*3 numbers"),
    (dict(kind="joint_force", joint="j1", value="9**9**9"), "force 'f' is not finite"),
])
def test_bad_force_at_t0_is_a_simulation_error(force, match):                   # defect 1
    with pytest.raises(ms.SimulationError, match=match):
        driven_pendulum(**force).simulate(0.05)


def test_driver_function_returning_none_is_a_model_error():                     # defect 1
    m = pendulum()
    m.add_driver("j1", position=lambda t: None)
    for run in (m.check, lambda: m.simulate(0.05)):
        with pytest.raises(ms.ModelError, match="driver 'j1' position: the function returned None"):
            run()


@pytest.mark.parametrize("backend", ["auto", "python"])
def test_blow_up_ends_the_run_with_the_partial_result(backend):                 # defect 6
    m = cart()                 # (a driver's motion that overflows is refused before the run: test_motions.py)
    m.add_force("f", "joint_force", joint="x", value="1e308*t")
    with pytest.raises(ms.SimulationError) as info:
        m.simulate(1.0, backend=backend)
    assert info.value.partial is not None and info.value.partial.t[0] == 0.0


def test_absurd_mass_is_refused():                                              # defect 7
    with pytest.raises(ms.ModelError, match="body 'cart': mass"):
        cart(mass=1e308)
    res = cart(mass=1e100).simulate(0.1)
    assert all(np.all(np.isfinite(column)) for column in res.flat_columns().values())


def test_absurd_gravity_is_refused():                 # found by tests/fuzz: 1e308 m/s^2 wrote reactions of inf and nan
    with pytest.raises(ms.ModelError, match=r"gravity must be at most 1e\+100 m/s\^2 along each axis"):
        pendulum().gravity = (0, -9.81, 1e308)
    m = pendulum()
    m.gravity = (0, -9.81, 1e100)                       # along the joint's axis: the plain pendulum's motion
    res, plain = m.simulate(0.1), pendulum().simulate(0.1)
    assert all(np.all(np.isfinite(column)) for column in res.flat_columns().values())
    assert np.allclose(res["j1.q"], plain["j1.q"], rtol=0, atol=1e-12)


def test_force_on_a_cut_joint_is_refused():                                     # defect 8
    m = ms.load(str(Path(__file__).parents[2] / "examples" / "four_bar.yaml"))
    m.add_force("k", "joint_spring_damper", joint="j3", stiffness=1.0)
    with pytest.raises(ms.ModelError, match="joint 'j3' closes a kinematic loop but must stay in the spanning tree: force 'k'"):
        m.check()


def driven_cart():
    m = cart()
    m.add_input("u")
    m.add_force("motor", "joint_force", joint="x", value="u")
    return m


@pytest.mark.parametrize("run, match", [                                        # found by tests/fuzz
    (lambda m: m.assemble(fixed=lambda: 0), "assemble.*fixed must be a list of joint or coordinate names"),
    (lambda m: m.assemble(fixed={"x.q": np.nan}), r"assemble.*fixed 'x.q': the value must be 1 finite number"),
    (lambda m: m.assemble(fixed={"x": [1.0, 2.0]}), r"fixed 'x': the value must be 1 finite number"),
    (lambda m: m.trim(fixed=3), "trim.*fixed must be a list"),
    (lambda m: m.trim(free_inputs=1j), "trim.*free_inputs a list of input names"),
    (lambda m: m.trim(inputs={"u": "abc"}), "trim.*input 'u' must be a finite number, got 'abc'"),
    (lambda m: m.trim(free_inputs=[["u"]]), r"trim.*unknown input \['u'\]"),
    (lambda m: m.linearize(inputs=1j), r"linearize.*inputs must be a list of names, got 1j"),
    (lambda m: m.linearize(outputs=[3]), r"linearize.*outputs must be a list of names"),
    (lambda m: m.linearize(inputs=["x.force[a]"]), r"linearize.*unknown input 'x.force\[a\]'"),
    (lambda m: m.linearize(perturbation="abc"), "linearize.*perturbation must be a finite positive number"),
])
def test_junk_arguments_of_the_analyses_are_model_errors(run, match):
    with pytest.raises(ms.MechsimError, match=match):
        run(driven_cart())


def test_a_single_name_is_one_linearization_input():
    lin = driven_cart().linearize(inputs="u", outputs="x.q")
    assert lin.input_names == ["u"] and lin.output_names == ["x.q"]


def test_linearizing_a_fully_driven_moving_machine():                          # found by tests/fuzz
    m = pendulum()
    m.add_driver("j1", position="0.3 + t")          # no independent coordinate, a nonzero velocity
    lin = m.linearize(outputs=["j1.q"])
    assert lin.independent == [] and np.all(np.isfinite(lin.C))


@pytest.mark.parametrize("state", [[], lambda t: 0.0, "abc", [1j]])
def test_forward_dynamics_of_junk_states_names_the_state(state):                # found by tests/fuzz
    with pytest.raises(ms.MechsimError, match="^q must (be|have) 1"):
        ms.forward_dynamics(pendulum(), state, state)


@pytest.mark.parametrize("solver, load, match", [("RK45", "gravity", "not advancing.*huge gravity, stiffness or force"),
                                                 ("Radau", "torque", "failed at t = 0")])
def test_a_run_that_would_never_reach_t_end_stops_with_its_partial_result(solver, load, match):   # found by tests/fuzz
    """Accelerations of 1e100 (gravity at its limit) leave an explicit solver's step near 1e-50 s, finite but
    hopeless: the run stops once its pace shows it would need more than 1e8 steps, instead of running for ever.
    Under a torque of 1e300 N m Radau's Newton iteration fails at once."""
    m = pendulum()
    if load == "gravity":
        m.gravity = (1e100, -9.81, 0)
    else:
        m.add_force("push", "joint_force", joint="j1", value=1e300)
    with pytest.raises(ms.SimulationError, match=match) as failure:
        m.simulate(0.1, solver=solver)
    assert len(failure.value.partial) >= 1 and np.all(np.isfinite(failure.value.partial["j1.q"]))
    assert failure.value.partial.stats["steps"] <= 2 * PACE_WINDOW     # stopped at the first or second check


@pytest.mark.parametrize("backend", ["compiled", "python"])
def test_an_adaptive_run_given_a_first_step_is_still_paced(backend):
    """h is only an adaptive solver's first step: the run is checked for pace as any adaptive run (the
    fixed-step solvers' h is their step, checked before the run)."""
    m = pendulum()
    m.gravity = (1e100, -9.81, 0)
    with pytest.raises(ms.SimulationError, match="not advancing") as failure:
        m.simulate(0.1, solver="RK45", h=1e-3, backend=backend)
    assert failure.value.partial.stats["steps"] <= 2 * PACE_WINDOW


@pytest.mark.parametrize("solver", ["RK45", "DOP853"])
def test_a_closed_loop_under_absurd_gravity_stops_at_the_first_pace_check(solver):      # found by tests/fuzz (CI)
    """A four-bar under 9.2e18 m/s^2 (an int64 overflow in a model file) takes steps of 4e-11 s (RK45) or
    2e-10 s (DOP853): 0.1 s would take 2.8e9 or 5e8 steps, hours. The run stops at the first pace check, after
    about a second of steps; not after 100 000 steps (11 s on a Zen 3), or hours (DOP853, under 1e9 steps)."""
    m = ms.load(str(Path(__file__).parents[2] / "examples" / "four_bar.yaml"))
    m.gravity = (0, 2.0 ** 63, 0)
    with pytest.raises(ms.SimulationError, match="not advancing") as failure:
        m.simulate(0.1, solver=solver, rtol=1e-8, atol=1e-8)
    assert failure.value.partial.stats["steps"] <= PACE_WINDOW + CHUNK
