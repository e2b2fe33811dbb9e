"""Names (SPEC C15, modeling/names.py): bodies, joints and elements have their own name spaces and keep the names
files write (dots, spaces, slashes, brackets); a signal is "<item>.<quantity>", the quantity after the last dot
deciding the kind, and "<section>.<item>.<quantity>" where two kinds share a name and a quantity."""
import numpy as np
import pytest

import mechsim as ms
from mechsim.modeling.names import split_index

L = 0.8


def arm():
    """A two-link arm whose names hold dots, spaces, slashes and brackets, a body and a joint sharing each name, and
    a bushing sharing the first joint's name (both have a .force)."""
    m = ms.Model("names", gravity=(0, 0, -9.81))
    m.add_input("u", 0.5)
    for name, parent in (("link_8.0", "ground"), ("hand/arm [2]", "link_8.0")):
        m.add_body(name, mass=1.0, com=(L / 2, 0, 0), inertia=(0.01, L ** 2 / 12, L ** 2 / 12))
        m.add_joint(name, "revolute", parent, name, parent_frame=(0 if parent == "ground" else L, 0, 0),
                    axis=(0, 1, 0), q0=0.3)
    m.add_force("drive", "joint_force", joint="link_8.0", value="u")
    m.add_force("link_8.0", "bushing", body_a="ground", body_b="link_8.0", stiffness=(0, 0, 0, 0, 2.0, 0))
    return m


def test_bodies_joints_and_elements_keep_their_names_in_their_own_name_spaces():
    m = arm()
    assert list(m.bodies) == ["ground", "link_8.0", "hand/arm [2]"] and list(m.joints) == ["link_8.0", "hand/arm [2]"]
    with pytest.raises(ms.ModelError, match="duplicate name 'link_8.0': a force of that name"):
        m.add_constraint("link_8.0", "gear", joints=["link_8.0", "hand/arm [2]"])
    with pytest.raises(ms.ModelError, match="duplicate name 'hand/arm \\[2\\]': a joint"):
        m.add_joint("hand/arm [2]", "revolute", "ground", "hand/arm [2]")
    with pytest.raises(ms.ModelError, match="control character"):
        m.add_body("two\nlines", mass=1.0)
    with pytest.raises(ms.ModelError, match="input name 'u.1' is invalid"):
        m.add_input("u.1")


def test_signals_are_named_by_the_quantity_after_the_last_dot_and_qualified_where_two_kinds_share_one():
    m = arm()
    names = m.signals()
    assert {"link_8.0.q", "hand/arm [2].q", "link_8.0.position", "hand/arm [2].omega", "link_8.0.reaction",
            "joints.link_8.0.force", "forces.link_8.0.force", "link_8.0.angles", "hand/arm [2].force"} <= set(names)
    assert "link_8.0.force" not in names and len(names) == len(set(names))
    res = m.simulate(0.3)
    assert np.allclose(res["joints.link_8.0.force"], 0.5)                    # the input on the joint
    # the bushing's rotational spring about y, on the arm: -k theta_y about world y (theta_y = q)
    assert np.allclose(res["forces.link_8.0.torque"][:, 1], -2.0 * res["link_8.0.q"], rtol=1e-9, atol=1e-12)
    assert np.allclose(res["link_8.0.angles"][:, 1], res["link_8.0.q"], rtol=1e-12, atol=1e-14)
    assert np.array_equal(res["joints.hand/arm [2].q"], res["hand/arm [2].q"])  # a qualifier is always accepted
    with pytest.raises(ms.MechsimError, match="'link_8.0.force' is ambiguous.*'joints.link_8.0.force'"):
        res["link_8.0.force"]
    x = res["hand/arm [2].position"]
    q1, q2 = res["link_8.0.q"], res["hand/arm [2].q"]
    assert np.allclose(x[:, 0], L * np.cos(q1), atol=1e-9) and np.allclose(x[:, 2], -L * np.sin(q1), atol=1e-9)
    assert q2.shape == q1.shape


def test_events_controllers_and_linearization_take_names_with_dots_spaces_and_brackets():
    m = arm()
    m.add_event("hand/arm [2].position[2]", value=-0.5, direction=-1, terminal=True, name="low")
    res = m.simulate(3.0)
    assert res.events and abs(res["hand/arm [2].position"][-1, 2] + 0.5) < 1e-8
    seen = []
    m2 = arm()
    m2.simulate(0.1, controller=lambda t, y: seen.append(y) or {"u": 0.0},
                outputs=["link_8.0.q", "forces.link_8.0.torque"], sample_time=0.05)
    assert set(seen[0]) == {"link_8.0.q", "forces.link_8.0.torque"}
    lin = arm().linearize(inputs=["joints.link_8.0.force"], outputs=["hand/arm [2].position[0]"])
    assert lin.input_names == ["joints.link_8.0.force"] and lin.output_names == ["hand/arm [2].position[0]"]
    assert split_index("a[1].position[2]") == ("a[1].position", 2) and split_index("a[x]") == ("a[x]", None)


def test_parameters_submodels_and_set_actions_address_items_by_their_names():
    m = arm().with_parameters({"bodies.link_8.0.mass": 2.0, "joints.hand/arm [2].q0": 0.1})
    assert m.bodies["link_8.0"].mass == 2.0 and m.joints["hand/arm [2]"].q0 == 0.1
    host = ms.Model("host")
    host.add_submodel("P", arm())
    host.add_event("P/link_8.0.q", value=0.0, name="up")
    assert "P/link_8.0.q" in host.signals() and "forces.P/link_8.0.force" in host.signals()
    sub = arm()
    sub.add_event("joints.link_8.0.q", value=1.0, name="qualified", action={"set": {"bodies.link_8.0": {"mass": 2.0}}})
    host.add_submodel("Q", sub)
    assert host.events["Q/qualified"].signal == "joints.Q/link_8.0.q"
    assert host.events["Q/qualified"].spec["action"] == {"set": {"bodies.Q/link_8.0": {"mass": 2.0}}}
    with pytest.raises(ms.ModelError, match="say which: bodies.link_8.0, joints.link_8.0, forces.link_8.0"):
        arm().add_event("link_8.0.q", value=0.5, action={"set": {"link_8.0": {"mass": 2.0}}})
    m = arm()
    m.add_event("link_8.0.q", value=0.5, action={"set": {"bodies.link_8.0": {"mass": 2.0}}})
    res = m.simulate(0.5)
    assert res.success


def test_model_files_and_urdf_keep_the_names(tmp_path):
    m = arm()
    m.to_yaml(tmp_path / "arm.yaml")
    back = ms.load(tmp_path / "arm.yaml")
    assert back.signals() == m.signals() and list(back.forces) == list(m.forces)
    u = ms.Model("robot")
    for name, parent in (("link_8.0", "ground"), ("hand/arm [2]", "link_8.0")):
        u.add_body(name, mass=1.0, com=(L / 2, 0, 0), inertia=(0.01, L ** 2 / 12, L ** 2 / 12))
        u.add_joint(name, "revolute", parent, name, parent_frame=(0 if parent == "ground" else L, 0, 0),
                    axis=(0, 1, 0))
    u.to_urdf(tmp_path / "arm.urdf")
    again = ms.load(tmp_path / "arm.urdf")
    assert set(again.joints) == {"link_8.0", "hand/arm [2]"} and {"link_8.0", "hand/arm [2]"} <= set(again.bodies)
    q, v = np.array([0.3, -0.4]), np.array([0.2, 0.1])
    assert np.allclose(ms.forward_dynamics(again, q, v), ms.forward_dynamics(u, q, v), rtol=1e-12, atol=1e-12)
