"""m.add_submodel and the submodels: section: a machine assembled from copies of other models."""
import textwrap

import numpy as np
import pytest

import mechsim as ms

LEG = """\
name: leg
gravity: [0, -9.81, 0]
inputs: [u]
bodies:
  - {name: ground, frames: {hip: [0.1, 0, 0]}}
  - {name: thigh, mass: 1.0, com: [0.5, 0, 0], inertia: [0.01, 0.08, 0.08], frames: {knee: [1, 0, 0]}}
  - {name: shin, mass: 0.5, com: [0.5, 0, 0], inertia: [0.005, 0.04, 0.04]}
joints:
  - {name: hip, kind: revolute, parent: ground, child: thigh, parent_frame: hip, axis: [0, 0, 1], q0: 0.3}
  - {name: knee, kind: revolute, parent: thigh, child: shin, parent_frame: knee, axis: [0, 0, 1], q0: 0.2}
forces:
  - {name: motor, kind: joint_force, joint: hip, value: u}
  - {name: tendon, kind: joint_spring_damper, joint: knee, stiffness: 10.0, damping: 0.1}
events:
  - {name: bent, signal: knee.q, value: 0.5, direction: 1, action: {set_input: {u: 1.0}}}
"""

# two legs whose feet are pinned to one bar: a closed loop through both submodels
WALKER = """\
name: walker
gravity: [0, -9.81, 0]
submodels:
  - {name: left, file: leg.yaml}
  - {name: right, file: leg.yaml, parameters: {bodies.shin.mass: 0.7, joints.hip.q0: -0.3, joints.knee.q0: -0.2}}
bodies:
  - {name: bar, mass: 2.0, com: [0, 0, 0], inertia: [0.01, 0.1, 0.1]}
joints:
  - {name: foot, kind: revolute, parent: left/shin, child: bar, parent_frame: [1, 0, 0], axis: [0, 0, 1]}
constraints:
  - {name: pin, kind: point_coincident, body_a: right/shin, point_a: [1, 0, 0], body_b: bar, point_b: [0.3, 0, 0]}
"""


def flat_leg(prefix, shin_mass, hip_q0, knee_q0):
    return textwrap.dedent(f"""\
      - {{name: {prefix}/thigh, mass: 1.0, com: [0.5, 0, 0], inertia: [0.01, 0.08, 0.08], frames: {{knee: [1, 0, 0]}}}}
      - {{name: {prefix}/shin, mass: {shin_mass}, com: [0.5, 0, 0], inertia: [0.005, 0.04, 0.04]}}
    """), textwrap.dedent(f"""\
      - {{name: {prefix}/hip, kind: revolute, parent: ground, child: {prefix}/thigh, parent_frame: {prefix}/hip, axis: [0, 0, 1], q0: {hip_q0}}}
      - {{name: {prefix}/knee, kind: revolute, parent: {prefix}/thigh, child: {prefix}/shin, parent_frame: knee, axis: [0, 0, 1], q0: {knee_q0}}}
    """)


def flat_walker():
    """The walker written by hand as one flat file."""
    (lb, lj), (rb, rj) = flat_leg("left", 0.5, 0.3, 0.2), flat_leg("right", 0.7, -0.3, -0.2)
    indent = lambda text: textwrap.indent(text, "  ")
    return ms.load_dict(__import__("yaml").safe_load(
        "name: walker\ngravity: [0, -9.81, 0]\ninputs: [left/u, right/u]\nbodies:\n"
        "  - {name: ground, frames: {left/hip: [0.1, 0, 0], right/hip: [0.1, 0, 0]}}\n" + indent(lb) + indent(rb)
        + "  - {name: bar, mass: 2.0, com: [0, 0, 0], inertia: [0.01, 0.1, 0.1]}\njoints:\n" + indent(lj) + indent(rj)
        + "  - {name: foot, kind: revolute, parent: left/shin, child: bar, parent_frame: [1, 0, 0], axis: [0, 0, 1]}\n"
        "constraints:\n  - {name: pin, kind: point_coincident, body_a: right/shin, point_a: [1, 0, 0], body_b: bar, "
        "point_b: [0.3, 0, 0]}\nforces:\n"
        "  - {name: left/motor, kind: joint_force, joint: left/hip, value: left/u}\n"
        "  - {name: left/tendon, kind: joint_spring_damper, joint: left/knee, stiffness: 10.0, damping: 0.1}\n"
        "  - {name: right/motor, kind: joint_force, joint: right/hip, value: right/u}\n"
        "  - {name: right/tendon, kind: joint_spring_damper, joint: right/knee, stiffness: 10.0, damping: 0.1}\n"
        "events:\n"
        "  - {name: left/bent, signal: left/knee.q, value: 0.5, direction: 1, action: {set_input: {left/u: 1.0}}}\n"
        "  - {name: right/bent, signal: right/knee.q, value: 0.5, direction: 1, action: {set_input: {right/u: 1.0}}}\n"))


@pytest.fixture
def files(tmp_path):
    (tmp_path / "leg.yaml").write_text(LEG)
    (tmp_path / "walker.yaml").write_text(WALKER)
    return tmp_path


def test_a_model_from_submodel_files_equals_it_written_flat(files):
    walker, flat = ms.load(files / "walker.yaml"), flat_walker()
    report = walker.check()
    assert report.dof == 3 and report.n_constraints == 3 and report.redundant == ["pin[2]"]   # planar: z redundant
    assert str(report) == str(flat.check())
    assert walker.coordinates() == flat.coordinates() and sorted(walker.signals()) == sorted(flat.signals())
    rng = np.random.default_rng(0)
    cm = walker.compile()
    for _ in range(5):
        q, v = rng.normal(size=cm.nq), rng.normal(size=cm.nv)
        assert np.array_equal(ms.mass_matrix(walker, q), ms.mass_matrix(flat, q))
        assert np.array_equal(ms.forward_dynamics(walker, q, v, inputs={"left/u": 0.3}),
                              ms.forward_dynamics(flat, q, v, inputs={"left/u": 0.3}))
    a = walker.simulate(t_end=1.0, inputs={"right/u": 0.5}, rtol=1e-9, atol=1e-11)
    b = flat.simulate(t_end=1.0, inputs={"right/u": 0.5}, rtol=1e-9, atol=1e-11)
    assert np.array_equal(a["left/knee.q"], b["left/knee.q"]) and np.array_equal(a["pin.reaction"], b["pin.reaction"])
    assert [(e.time, e.name) for e in a.events] == [(e.time, e.name) for e in b.events]
    assert ms.load_dict(walker.to_dict()).to_dict() == walker.to_dict()      # it writes out flat


def test_the_copies_are_independent_and_renamed():
    leg = ms.load_dict(__import__("yaml").safe_load(LEG))
    m = ms.Model("two", gravity=(0, -9.81, 0))
    m.add_submodel("a", leg)
    m.add_submodel("b", leg, parameters={"forces.tendon.stiffness": 20.0})
    assert m.forces["a/tendon"].stiffness[0] == 10.0 and m.forces["b/tendon"].stiffness[0] == 20.0
    assert m.forces["b/motor"].values[0].input == "b/u" and m.joints["b/knee"].parent == "b/thigh"
    assert set(m.events) == {"a/bent", "b/bent"} and set(m.inputs) == {"a/u", "b/u"}
    assert leg.forces["tendon"].stiffness[0] == 10.0 and "a/u" not in leg.inputs
    m.bodies["a/shin"].mass = 3.0
    assert leg.bodies["shin"].mass == 0.5 and m.bodies["b/shin"].mass == 0.5


def test_a_clash_leaves_the_model_as_it_was():
    leg = ms.load_dict(__import__("yaml").safe_load(LEG))
    m = ms.Model("host")
    m.add_body("a/shin", mass=1.0)
    with pytest.raises(ms.ModelError, match=r"submodel 'a' \(leg\): duplicate name 'a/shin'"):
        m.add_submodel("a", leg)
    assert list(m.bodies) == ["ground", "a/shin"] and not m.joints and not m.inputs
    with pytest.raises(ms.ModelError, match="prefix 'a.b' is invalid"):
        m.add_submodel("a.b", leg)
    with pytest.raises(ms.ModelError, match="parameter 'bodies.shn.mass'"):
        m.add_submodel("c", leg, parameters={"bodies.shn.mass": 1.0})


@pytest.mark.parametrize("entry, message", [
    ("{name: left, file: nowhere.yaml}", "cannot read the model file"),
    ("{name: left}", "missing key 'file'"),
    ("{name: left, file: leg.yaml, parameter: {}}", "unknown key 'parameter' (did you mean 'parameters'?)"),
    ("{name: left, file: walker.yaml}", "includes itself"),
    ("{name: left, file: leg.yaml, parameters: {bodies.shin.mass: -1}}", "mass must be non-negative"),
])
def test_bad_submodel_entries_are_named(files, entry, message):
    (files / "walker.yaml").write_text(WALKER.replace("  - {name: left, file: leg.yaml}", "  - " + entry))
    with pytest.raises(ms.ModelError) as info:
        ms.load(files / "walker.yaml")
    assert "walker.yaml: submodels[0]" in str(info.value) and message in str(info.value)


def test_every_kind_of_event_action_is_renamed():
    """Each action kind renames what it names (modeling/actions): a submodel's {set: {element: ...}} event stiffens
    its own tendon, as the same event written by hand on the renamed model does."""
    leg = ms.load_dict(__import__("yaml").safe_load(LEG))
    leg.add_event("knee.q", name="stiffen", value=0.0, direction=-1, action={"set": {"tendon": {"stiffness": 40.0}}})
    leg.add_event("hip.q", name="halt", value=-5.0, action="stop")
    m = ms.Model("one", gravity=(0, -9.81, 0))
    m.add_submodel("a", leg)
    assert m.events["a/stiffen"].spec["action"] == {"set": {"a/tendon": {"stiffness": 40.0}}}
    assert m.events["a/halt"].spec["action"] == "stop"
    by_hand = ms.load_dict(m.to_dict())
    a = m.simulate(t_end=2.0, rtol=1e-9, atol=1e-11)
    b = by_hand.simulate(t_end=2.0, rtol=1e-9, atol=1e-11)
    assert "a/stiffen" in [e.name for e in a.events]
    np.testing.assert_allclose(a["a/knee.q"][-1], b["a/knee.q"][-1], rtol=1e-9)
    plain = ms.Model("plain", gravity=(0, -9.81, 0))
    plain.add_submodel("a", ms.load_dict(__import__("yaml").safe_load(LEG)))
    assert abs(plain.simulate(t_end=2.0, rtol=1e-9, atol=1e-11)["a/knee.q"][-1] - a["a/knee.q"][-1]) > 1e-3


def test_an_unknown_action_names_the_forms():
    m = ms.load_dict(__import__("yaml").safe_load(LEG))
    with pytest.raises(ms.ModelError, match=r"action must be 'stop', \{set_input: .*\{set: "):
        m.add_event("knee.q", name="odd", value=0.1, action={"jump": 1})


def test_the_joints_and_bodies_a_tendon_a_polynomial_coupling_and_a_fluid_name_are_renamed():
    """The kinds whose arguments name several joints ({joint: coefficient}) or bodies (a list) keep working in a copy:
    the host's accelerations are the submodel's, where a missed renaming would refuse the copy or couple other joints."""
    sub = ms.Model("tendons", gravity=(0, 0, -9.81))
    for name, parent in (("a", "ground"), ("b", "a")):
        sub.add_body(name, mass=1.0, com=(0.5, 0, 0), inertia=(0.01, 0.1, 0.1))
        sub.add_joint(name, "revolute", parent, name, parent_frame=(0 if parent == "ground" else 1.0, 0, 0),
                      axis=(0, 1, 0), q0=0.2)
    sub.add_body("c", mass=1.0, com=(0.5, 0, 0), inertia=(0.01, 0.1, 0.1))
    sub.add_joint("c", "revolute", "b", "c", parent_frame=(1.0, 0, 0), axis=(0, 1, 0), q0=-0.1)
    sub.add_force("t", "fixed_tendon", joints={"a": 1.0, "b": -0.5}, stiffness=20.0, damping=0.3)
    sub.add_constraint("p", "polynomial_coupling", y="c", x={"a": 1.0, "b": 1.0}, coefficients=(0, 0.5, 0.2))
    sub.add_force("fluid", "fluid_drag", density=1000.0, viscosity=0.01, bodies=["a", "b", "c"])
    host = ms.Model("host", gravity=(0, 0, -9.81))
    host.add_submodel("s", sub)
    assert host.forces["s/t"].joints == {"s/a": 1.0, "s/b": -0.5} and host.forces["s/fluid"].bodies == ("s/a", "s/b",
                                                                                                       "s/c")
    q, v = np.array([0.3, -0.2, 0.1]), np.array([0.5, 1.0, -0.4])
    np.testing.assert_allclose(ms.forward_dynamics(host, q, v), ms.forward_dynamics(sub, q, v), rtol=1e-12,
                               atol=1e-12)
