"""Changing a model after a run: the parameters of what add_* returned, gravity and input defaults
take effect at the next run and in to_yaml, or raise ModelError naming the attribute; never stale."""
import numpy as np
import pytest

import mechsim as ms

G, L, IZZ = 9.81, 0.5, 1 / 12


def pendulum(mass=1.0):
    """A rod pinned at the origin about z, its COM at (L, 0, 0), under gravity -y."""
    m = ms.Model("p", gravity=(0, -G, 0))
    rod = m.add_body("rod", mass=mass, com=(L, 0, 0), inertia=(0, IZZ, IZZ))
    joint = m.add_joint("j1", "revolute", parent="ground", child="rod", axis=(0, 0, 1), q0=0.3)
    return m, rod, joint


def pendulum_acceleration(q, mass, length=L, g=G):
    return -mass * g * length * np.cos(q) / (IZZ + mass * length ** 2)


def acceleration(m, q=0.3):
    return ms.forward_dynamics(m, np.array([q]), np.zeros(1))[0]


def oscillator(stiffness=8.0, mass=2.0):
    m = ms.Model("osc", gravity=(0, 0, 0))
    cart = m.add_body("cart", mass=mass, inertia=(1, 1, 1))
    m.add_joint("x", "prismatic", parent="ground", child="cart", axis=(1, 0, 0), q0=0.1)
    spring = m.add_force("spring", "joint_spring_damper", joint="x", stiffness=stiffness)
    return m, cart, spring


def test_body_mass_change_after_a_run_takes_effect():
    m, rod, _ = pendulum(mass=1.0)
    res = m.simulate(t_end=0.05)
    assert res["j1.a"][0] == pytest.approx(pendulum_acceleration(0.3, 1.0), rel=1e-9)
    assert acceleration(m) == pytest.approx(pendulum_acceleration(0.3, 1.0), rel=1e-12)
    rod.mass = 3.0
    assert rod.mass == 3.0 and m.bodies["rod"] is rod and m.specs["bodies"]["rod"]["mass"] == 3.0
    assert acceleration(m) == pytest.approx(pendulum_acceleration(0.3, 3.0), rel=1e-12)
    assert m.simulate(t_end=0.05)["j1.a"][0] == pytest.approx(pendulum_acceleration(0.3, 3.0), rel=1e-9)


def test_joint_q0_change_takes_effect_in_the_next_run():
    m, _, joint = pendulum()
    assert m.simulate(t_end=0.01)["j1.q"][0] == pytest.approx(0.3)
    joint.q0 = 0.7
    assert m.simulate(t_end=0.01)["j1.q"][0] == pytest.approx(0.7)
    assert m.initial_state().q[0] == 0.7 and joint.q0[0] == 0.7


def test_spring_stiffness_change_changes_the_frequency():
    m, _, spring = oscillator(stiffness=8.0, mass=2.0)           # omega = sqrt(k / m) = 2
    t = np.linspace(0, 2, 21)
    options = dict(t_end=2.0, t_eval=t, rtol=1e-10, atol=1e-12)
    assert np.allclose(m.simulate(**options)["x.q"], 0.1 * np.cos(2 * t), atol=1e-7)
    spring.stiffness = 32.0                                       # omega = 4
    assert np.allclose(m.simulate(**options)["x.q"], 0.1 * np.cos(4 * t), atol=1e-7)
    assert np.array_equal(spring.stiffness, [32.0])


def test_point_spring_parameters_change():
    m = ms.Model("s", gravity=(0, 0, 0))
    m.add_body("cart", mass=2.0, inertia=(1, 1, 1))
    m.add_joint("x", "prismatic", parent="ground", child="cart", axis=(1, 0, 0), q0=0.5)
    spring = m.add_force("s", "spring_damper", body_a="ground", body_b="cart", stiffness=10.0, rest_length=0.2)
    assert acceleration(m, 0.5) == pytest.approx(-10.0 * 0.3 / 2.0)
    spring.stiffness, spring.rest_length = 40.0, 0.1
    assert acceleration(m, 0.5) == pytest.approx(-40.0 * 0.4 / 2.0)
    spring.point_b = (0.1, 0, 0)                                  # the spring is 0.1 longer
    assert acceleration(m, 0.5) == pytest.approx(-40.0 * 0.5 / 2.0)


def test_a_frame_change_moves_the_joint_that_uses_it():
    m = ms.Model("p", gravity=(0, -G, 0))
    rod = m.add_body("rod", mass=1.0, inertia=(0, IZZ, IZZ), frames={"pin": (-L, 0, 0)})
    m.add_joint("j1", "revolute", parent="ground", child="rod", child_frame="pin", q0=0.3)
    assert acceleration(m) == pytest.approx(pendulum_acceleration(0.3, 1.0, L))
    rod.frames = {"pin": (-1.0, 0, 0)}
    assert acceleration(m) == pytest.approx(pendulum_acceleration(0.3, 1.0, 1.0))
    assert np.allclose(m.joints["j1"].child_pose[0], [-1, 0, 0])


def test_driver_and_constraint_parameters_change():
    m, _, _ = pendulum()
    driver = m.add_driver("j1", position=0.2)
    assert m.assemble().q[0] == pytest.approx(0.2)
    driver.position = "0.4 + 0*t"
    assert m.assemble().q[0] == pytest.approx(0.4) and driver.position == "0.4 + 0*t"
    m2, _, _ = oscillator()
    m2.add_body("b2", mass=1.0, inertia=(1, 1, 1))
    m2.add_joint("y", "prismatic", parent="ground", child="b2", axis=(0, 1, 0))
    gear = m2.add_constraint("g", "gear", joints=("x", "y"), ratio=2.0)
    m2.add_driver("y", position=0.1)
    assert m2.assemble().q == pytest.approx([0.1 + 2.0 * 0.1, 0.1])
    gear.ratio = 3.0
    assert m2.assemble().q == pytest.approx([0.1 + 3.0 * 0.1, 0.1])


def test_invalid_values_raise_naming_the_attribute_and_change_nothing():
    m, rod, joint = pendulum()
    _, _, spring = oscillator()
    for item, attr, value in [(rod, "mass", -1.0), (rod, "mass", "heavy"), (rod, "com", (1, 2)),
                              (rod, "inertia", (1, 1, 5)), (joint, "q0", (0.1, 0.2)), (joint, "axis", (0, 0, 0)),
                              (spring, "stiffness", "stiff"), (spring, "damping", (1, 2))]:
        with pytest.raises(ms.ModelError, match=attr):
            setattr(item, attr, value)
    assert rod.mass == 1.0 and m.specs["bodies"]["rod"]["mass"] == 1.0 and np.array_equal(joint.q0, [0.3])
    assert acceleration(m) == pytest.approx(pendulum_acceleration(0.3, 1.0))


def test_a_change_that_breaks_a_dependent_item_is_refused():
    m = ms.Model("p")
    rod = m.add_body("rod", mass=1.0, frames={"pin": (0, 0, 0)})
    m.add_joint("j1", "revolute", parent="ground", child="rod", child_frame="pin")
    with pytest.raises(ms.ModelError, match="frames.*joint 'j1'.*no frame 'pin'"):
        rod.frames = {"tip": (1, 0, 0)}
    assert set(rod.frames) == {"pin"}


def test_structure_derived_and_unknown_attributes_raise():
    m, rod, joint = pendulum()
    spring = m.add_force("s", "joint_spring_damper", joint="j1", stiffness=1.0)
    driver = m.add_driver("j1", position=0.1)
    for item, attr in [(rod, "name"), (joint, "kind"), (joint, "parent"), (joint, "child"), (joint, "cut"), (joint, "primitives"),
                       (spring, "joint"), (spring, "kind"), (driver, "joint"), (driver, "coordinate")]:
        with pytest.raises(ms.ModelError, match=f"{attr} cannot change once the .* is added"):
            setattr(item, attr, "x")
    for item, attr in [(joint, "nq"), (joint, "parent_pose"), (driver, "motion")]:
        with pytest.raises(ms.ModelError, match=f"{attr} is computed from the arguments of add_"):
            setattr(item, attr, 1)
    with pytest.raises(ms.ModelError, match="body 'rod' has no parameter 'mas' \\(did you mean 'mass'\\?\\)"):
        rod.mas = 2.0
    with pytest.raises(ms.ModelError, match="ground.*add_frame"):
        m.bodies["ground"].mass = 1.0
    rod._note = "internal attributes are free"


def test_to_yaml_writes_the_changed_model_and_load_reproduces_it(tmp_path):
    m, rod, joint = pendulum()
    m.simulate(t_end=0.01)
    rod.mass, joint.q0, joint.axis = 2.5, 0.6, (0, 0, -1)
    m.gravity = (0, -3.0, 0)
    path = tmp_path / "changed.yaml"
    m.to_yaml(path)
    text = path.read_text()
    assert "mass: 2.5" in text and "q0: 0.6" in text and "axis: [0, 0, -1]" in text
    m2 = ms.load(path)
    q, v = m2.initial_state().q, np.zeros(1)
    assert q[0] == 0.6
    assert ms.forward_dynamics(m2, q, v) == pytest.approx(ms.forward_dynamics(m, q, v), rel=1e-14)
    assert ms.forward_dynamics(m, q, v)[0] == pytest.approx(-pendulum_acceleration(0.6, 2.5, g=3.0))


def test_gravity_change_takes_effect():
    m, _, _ = pendulum()
    acceleration(m)
    m.gravity = (0, -2 * G, 0)
    assert acceleration(m) == pytest.approx(pendulum_acceleration(0.3, 1.0, g=2 * G))
    with pytest.raises(ms.ModelError, match="gravity"):
        m.gravity = (0, 1)
    with pytest.raises(ValueError, match="read-only"):
        m.gravity[1] = 0.0
    assert acceleration(m) == pytest.approx(pendulum_acceleration(0.3, 1.0, g=2 * G))


def test_input_default_change_takes_effect():
    m, _, _ = pendulum()
    m.add_input("u", 0.0)
    m.add_force("motor", "joint_force", joint="j1", value="u")
    acceleration(m)
    m.set_input_default("u", 1.5)
    assert acceleration(m) == pytest.approx(pendulum_acceleration(0.3, 1.0) + 1.5 / (IZZ + L ** 2))
    assert m.to_dict()["inputs"] == [{"name": "u", "default": 1.5}]
    with pytest.raises(TypeError, match="read-only.*set_input_default"):
        m.inputs["u"] = 3.0
    with pytest.raises(ms.ModelError, match="unknown input 'w'"):
        m.set_input_default("w", 1.0)
    with pytest.raises(ms.ModelError, match="input 'u'"):
        m.set_input_default("u", "fast")


def test_in_place_writes_raise_instead_of_going_stale():
    m, rod, joint = pendulum()
    spring = m.add_force("s", "joint_spring_damper", joint="j1", stiffness=1.0)
    acceleration(m)
    for array in (rod.com, rod.inertia, joint.q0, joint.v0, joint.parent_pose[0], spring.stiffness):
        with pytest.raises(ValueError, match="read-only"):
            array[0] = 1.0
    with pytest.raises(TypeError, match="read-only"):
        rod.frames["tip"] = (1, 0, 0)
    # the caller's own arrays stay theirs: changing them later changes neither the model nor its file
    com = np.array([L, 0.0, 0.0])
    other = ms.Model("o")
    body = other.add_body("b", mass=1.0, com=com)
    com[0] = 9.0
    assert body.com[0] == L and other.to_dict()["bodies"][0]["com"] == [L, 0.0, 0.0]
    assert acceleration(m) == pytest.approx(pendulum_acceleration(0.3, 1.0) - 1.0 * 0.3 / (IZZ + L ** 2))


def test_parameters_not_stored_by_name_read_back():
    m, _, joint = pendulum()
    motor = m.add_force("motor", "joint_force", joint="j1", value=2.0)
    assert joint.axis == (0, 0, 1) and joint.parent_frame is None
    motor.value = 4.0
    assert motor.value == 4.0 and motor.values[0].constant == 4.0
    with pytest.raises(AttributeError):
        joint.lead
