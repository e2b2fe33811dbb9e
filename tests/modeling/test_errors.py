"""Bad input raises ModelError/SimulationError naming the offending item (SPEC §3 Errors)."""
import numpy as np
import pytest

import mechsim as ms


def pendulum(**joint_options):
    m = ms.Model("p", gravity=(0, -9.81, 0))
    m.add_body("rod", mass=1.0, com=(0.5, 0, 0), inertia=(0, 1 / 12, 1 / 12))
    m.add_joint("j1", "revolute", parent="ground", child="rod", **joint_options)
    return m


def raises(match, func, *args, error=ms.ModelError, **kwargs):
    with pytest.raises(error, match=match) as info:
        func(*args, **kwargs)
    return info.value


@pytest.mark.parametrize("mass", [-1.0, float("nan"), "heavy"])
def test_bad_mass_names_body(mass):
    raises("body 'b'", ms.Model().add_body, "b", mass=mass)


def test_zero_mass_leaf_body_is_refused_at_compile():
    m = ms.Model()
    m.add_body("ghost", mass=0.0)
    m.add_joint("j", "revolute", parent="ground", child="ghost")
    raises("body 'ghost' has zero mass", m.check)


def test_massless_intermediate_body_is_fine():
    m = ms.Model()
    m.add_body("link", mass=0.0)
    m.add_body("tip", mass=1.0, inertia=(1, 1, 1))
    m.add_joint("a", "revolute", parent="ground", child="link")
    m.add_joint("b", "revolute", parent="link", child="tip", axis=(1, 0, 0))
    assert m.check().dof == 2


def test_massless_leaf_welded_to_its_parent_is_fine():
    """A massless link on a weld (a URDF's foot or tool frame) moves with its parent: the model is the pendulum's,
    its dynamics too, and the link's frame follows the rod's tip."""
    m = pendulum(axis=(0, 0, 1))
    m.add_body("foot", mass=0.0)
    m.add_joint("fix", "weld", parent="rod", child="foot", parent_frame=(1.0, 0, 0))
    assert m.check().dof == 1
    q, v = [0.3], [0.5]
    np.testing.assert_allclose(ms.forward_dynamics(m, q, v), ms.forward_dynamics(pendulum(axis=(0, 0, 1)), q, v),
                               rtol=1e-14)
    res = m.simulate(t_end=0.1)
    np.testing.assert_allclose(res["foot.position"][-1], [np.cos(res["j1.q"][-1]), np.sin(res["j1.q"][-1]), 0.0],
                               atol=1e-12)


@pytest.mark.parametrize("inertia, match", [
    ((1.0, -1.0, 1.0), "not positive definite"),
    ((1.0, 1.0, 3.0), "triangle inequality"),
    ((1.0, 1.0, 1.0, 5.0, 0.0, 0.0), "not positive definite"),
    ([[1, 2, 0], [0, 1, 0], [0, 0, 1]], "symmetric"),
    ((1.0, 2.0), "inertia must be"),
])
def test_bad_inertia_names_body(inertia, match):
    err = raises(match, ms.Model().add_body, "wheel", mass=1.0, inertia=inertia)
    assert "wheel" in str(err)


def test_thin_rod_inertia_is_accepted():
    ms.Model().add_body("rod", mass=1.0, inertia=(0.0, 1 / 12, 1 / 12))   # SPEC's own four-bar crank


def test_unknown_parent_or_child():
    m = ms.Model()
    m.add_body("a", mass=1.0, inertia=(1, 1, 1))
    raises("joint 'j' parent: unknown body 'nope'", m.add_joint, "j", "revolute", parent="nope", child="a")
    raises("joint 'j' child: unknown body 'nada'", m.add_joint, "j", "revolute", parent="ground", child="nada")


def test_duplicate_names():
    m = pendulum()
    raises("duplicate name 'rod'", m.add_body, "rod", mass=1.0)
    raises("duplicate name 'j1'", m.add_joint, "j1", "revolute", parent="ground", child="rod")
    m.add_force("spring", "joint_spring_damper", joint="j1", stiffness=1.0)
    raises("duplicate name 'spring': a force of that name", m.add_constraint, "spring", "gear", joints=["j1", "j1"])
    m.add_input("u")
    raises("duplicate name 'u': an input of that name", m.add_input, "u")


def test_body_not_connected_to_ground():
    m = pendulum()
    m.add_body("float", mass=1.0, inertia=(1, 1, 1))
    raises("body 'float' is not connected to ground", m.check)


def test_reversed_joint_gets_a_hint():
    m = ms.Model()
    m.add_body("a", mass=1.0, inertia=(1, 1, 1))
    m.add_body("b", mass=1.0, inertia=(1, 1, 1))
    m.add_joint("j1", "revolute", parent="ground", child="a")
    m.add_joint("j2", "revolute", parent="b", child="a")
    raises("body 'b' is not connected.*joint 'j2'.*swap parent and child", m.check)
    m2 = ms.Model()
    m2.add_body("a", mass=1.0, inertia=(1, 1, 1))
    m2.add_body("b", mass=1.0, inertia=(1, 1, 1))
    m2.add_joint("j1", "revolute", parent="ground", child="a")
    m2.add_joint("j2", "revolute", parent="b", child="ground")
    raises("swap parent and child", m2.check)


def test_impossible_loop_is_reported_with_its_joints_and_misfit():
    m = pendulum()
    m.add_joint("j2", "revolute", parent="ground", child="rod", parent_frame=(1, 0, 0))
    raises(r"cannot assemble the loop j2 -> j1 \(closed by cut joint 'j2'\): it misses closing by 1 ", m.check)


def test_zero_axis():
    raises("joint 'j1' axis is a zero vector", pendulum, axis=(0, 0, 0))


def test_unknown_kind_and_option():
    m = pendulum()
    m.add_body("b", mass=1.0, inertia=(1, 1, 1))
    raises("joint 'x': unknown kind 'hinge'", m.add_joint, "x", "hinge", parent="rod", child="b")
    raises(r"joint 'x' \(revolute\): unknown option\(s\) \['axsi'\]", m.add_joint, "x", "revolute",
           parent="rod", child="b", axsi=(0, 0, 1))
    raises("force 'f': unknown kind 'magnet'", m.add_force, "f", "magnet", joint="j1")
    raises(r"force 'f' \(joint_force\): unknown option", m.add_force, "f", "joint_force", joint="j1", value=1,
           gain=2)
    raises("force 'f' .*unknown joint 'j9'", m.add_force, "f", "joint_force", joint="j9", value=1.0)


def test_wrong_q0_size_names_joint():
    raises(r"joint 'j1' \(revolute\): q0 must have 1", pendulum, q0=(1.0, 2.0))


def test_nan_input_raises_simulation_error_with_partial_results():
    m = pendulum()
    m.add_input("u")
    m.add_force("motor", "joint_force", joint="j1", value="u")
    err = raises("input 'u' is not finite", m.simulate, error=ms.SimulationError, t_end=1.0,
                 inputs={"u": lambda t: np.nan if t > 0.5 else 0.0})
    partial = err.partial
    assert partial is not None and not partial.success
    assert 0.4 < partial.t[-1] <= 0.5 + 1e-9
    assert np.all(np.isfinite(partial["j1.q"]))


def test_nan_in_fixed_step_run_keeps_finite_prefix():
    m = pendulum()
    m.add_force("push", "joint_force", joint="j1", value=lambda t: np.nan if t > 0.25 else 1.0)
    err = raises("force 'push'", m.simulate, error=ms.SimulationError, t_end=1.0, solver="RK4", h=0.01)
    assert err.partial.t[-1] == pytest.approx(0.25, abs=0.011)
    assert np.all(np.isfinite(err.partial.q))


def test_singular_mass_matrix_names_joint():
    m = ms.Model()
    m.add_body("dot", mass=1.0)          # point mass on its own rotation axis: no inertia about it
    m.add_joint("spin", "revolute", parent="ground", child="dot")
    err = raises("singular mass matrix at joint 'spin'", m.simulate, error=ms.SimulationError, t_end=0.1)
    assert err.partial is not None


def test_bad_simulate_options():
    m = pendulum()
    raises("solver='RK99'", m.simulate, error=ms.MechsimError, t_end=1.0, solver="RK99")
    raises("fixed-step", m.simulate, error=ms.MechsimError, t_end=1.0, solver="RK4")
    raises("unknown option", m.simulate, error=ms.MechsimError, t_end=1.0, tolerance=1e-3)
    raises("unknown input", m.simulate, error=ms.MechsimError, t_end=1.0, inputs={"zz": 1.0})


def test_option_defaults_pass_their_own_checks():
    # resolve() checks only the options given (the model file's and the call's): the registry's defaults
    # must each pass the check a user's value would get
    from mechsim.simulation.options import DEFAULTS, check_option
    for name, value in DEFAULTS.items():
        check_option(name, value)
