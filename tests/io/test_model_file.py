"""Model files: YAML/JSON <-> Model round trips and errors that name the file, entry and key."""
import json
import textwrap

import numpy as np
import pytest
import yaml

from mechsim.errors import ModelError
from mechsim.expressions import parse_expression
from mechsim.io import load, load_dict, model_to_dict, save
from mechsim.modeling import Model


def build_model():
    """A tree using most joint kinds, frames on bodies and ground, expressions and an input."""
    m = Model("demo", gravity=(0, -9.81, 0))
    m.add_input("u")
    m.add_input("w", default=2.5)
    m.add_frame("ground", "base", {"position": [0, 0, 1], "rotation": [1, 0, 0, 0]})
    m.add_body("arm", mass=1.0, com=(0.5, 0, 0), inertia=np.array([0.01, 0.08, 0.08]), frames={"tip": (1, 0, 0)})
    m.add_frame("arm", "mid", (0.5, 0, 0))
    m.add_body("ball", mass=np.float64(2.0), inertia=(1, 1, 1, 0.1, 0, 0),
               frames={"p": ((0, 1, 0), {"euler": [0, 0, 0.5], "seq": "xyz"})})
    m.add_body("slider", mass=0.5, inertia=np.eye(3), geometry={"kind": "box", "size": [0.1, 0.2, 0.3]})
    m.add_body("cart", mass=3.0, inertia=(1, 1, 1))
    m.add_body("hand", mass=0.2, inertia=(0.1, 0.1, 0.1))
    m.add_body("float", mass=1.0, inertia=(1, 1, 1))
    m.add_joint("j1", "revolute", "ground", "arm", parent_frame="base", axis=(0, 0, 1), q0=0.3, v0=0.1)
    m.add_joint("j2", "spherical", "arm", "ball", parent_frame="tip", q0={"euler": [0.1, 0.2, 0.3], "seq": "xyz"})
    m.add_joint("j3", "custom", "ball", "slider", primitives=[("R", (1, 0, 0)), ("P", np.array([0, 1.0, 0]))], v0=[1, 2])
    m.add_joint("j4", "prismatic", "ground", "cart", axis=(1, 0, 0), child_frame=((0, 0, 0.1), np.eye(3)))
    m.add_joint("j5", "universal", "cart", "hand", axes=((1, 0, 0), (0, 1, 0)), q0=[0.1, -0.2])
    m.add_joint("j6", "free", "ground", "float", q0={"position": [1, 2, 3], "rotation": [1, 0, 0, 0]})
    m.add_force("spring", "joint_spring_damper", joint="j4", stiffness=10.0, damping=0.5, rest=0.1)
    m.add_force("motor", "joint_force", joint="j1", value="u")
    m.add_force("drive", "joint_force", joint="j5", value=["2*sin(t)", parse_expression("t**2")])
    m.add_force("push", "body_force", body="ball", point=(1, 0, 0), force=("heaviside(t - 1)", 0, 0))
    m.add_force("cord", "spring_damper", body_a="ground", point_a=(0, 1, 0), body_b="hand",
                stiffness=100.0, rest_length=0.5)
    m.simulation = {"t_end": 2.0, "t_eval": {"start": 0, "stop": 2, "num": 11}, "rtol": 1e-8,
                    "inputs": {"u": "sin(t)", "w": 1.0}}
    return m


def assert_equivalent(a, b):
    assert a.name == b.name and np.allclose(a.gravity, b.gravity) and a.inputs == b.inputs
    assert list(a.bodies) == list(b.bodies)
    for name, body in a.bodies.items():
        other = b.bodies[name]
        assert body.mass == other.mass and np.allclose(body.com, other.com) and np.allclose(body.inertia, other.inertia)
        assert list(body.frames) == list(other.frames)
        for frame, (p, R) in body.frames.items():
            assert np.allclose(p, other.frames[frame][0]) and np.allclose(R, other.frames[frame][1])
    assert list(a.joints) == list(b.joints)
    for name, joint in a.joints.items():
        other = b.joints[name]
        assert (joint.kind, joint.parent, joint.child) == (other.kind, other.parent, other.child)
        assert np.allclose(joint.q0, other.q0) and np.allclose(joint.v0, other.v0)
        for pose, other_pose in ((joint.parent_pose, other.parent_pose), (joint.child_pose, other.child_pose)):
            assert np.allclose(pose[0], other_pose[0]) and np.allclose(pose[1], other_pose[1])
        for (t1, a1, p1), (t2, a2, p2) in zip(joint.primitives, other.primitives, strict=True):
            assert t1 == t2 and np.allclose(a1, a2) and p1 == p2
    assert list(a.forces) == list(b.forces)
    assert a.simulation == b.simulation


# ------------------------------------------------------------------------------ round trips
def test_dict_round_trip():
    m = build_model()
    data = model_to_dict(m)
    m2 = load_dict(data)
    assert model_to_dict(m2) == data
    assert_equivalent(m, m2)


def test_dict_is_plain_data_without_defaults():
    data = model_to_dict(build_model())
    json.dumps(data, allow_nan=False)        # only lists, dicts, str, numbers
    bodies = {b["name"]: b for b in data["bodies"]}
    joints = {j["name"]: j for j in data["joints"]}
    forces = {f["name"]: f for f in data["forces"]}
    assert data["inputs"] == ["u", {"name": "w", "default": 2.5}]
    assert bodies["ground"] == {"name": "ground", "frames": {"base": {"position": [0, 0, 1], "rotation": [1, 0, 0, 0]}}}
    assert bodies["arm"]["frames"] == {"tip": [1, 0, 0], "mid": [0.5, 0, 0]}
    assert bodies["arm"]["inertia"] == [0.01, 0.08, 0.08] and type(bodies["ball"]["mass"]) is float
    assert "com" not in bodies["ball"] and "geometry" not in bodies["ball"]
    assert joints["j4"] == {"name": "j4", "kind": "prismatic", "parent": "ground", "child": "cart",
                            "child_frame": [[0, 0, 0.1], np.eye(3).tolist()], "axis": [1, 0, 0]}
    assert joints["j3"]["primitives"] == [["R", [1, 0, 0]], ["P", [0.0, 1.0, 0.0]]]
    assert forces["drive"]["value"] == ["2*sin(t)", "t**2"]
    assert forces["motor"]["value"] == "u"


@pytest.mark.parametrize("suffix", [".yaml", ".yml", ".json"])
def test_file_round_trip(tmp_path, suffix):
    m = build_model()
    path = tmp_path / ("model" + suffix)
    save(m, path)
    m2 = load(path)
    assert model_to_dict(m2) == model_to_dict(m)
    assert_equivalent(m, m2)
    text = path.read_text()
    assert (json.loads(text) if suffix == ".json" else yaml.safe_load(text))["name"] == "demo"


def test_model_methods_use_the_file_format(tmp_path):
    m = build_model()
    m.to_yaml(tmp_path / "m.yaml")
    assert m.to_dict() == model_to_dict(load(tmp_path / "m.yaml"))


def test_spec_example_loads(tmp_path):
    path = tmp_path / "four-bar.yaml"
    path.write_text(textwrap.dedent("""\
        name: four-bar
        gravity: [0, -9.81, 0]
        inputs: [u]
        bodies:
          - {name: crank, mass: 1.0, com: [0.5, 0, 0], inertia: [0.0, 0.0833, 0.0833], frames: {tip: [1, 0, 0]}}
        joints:
          - {name: j1, kind: revolute, parent: ground, child: crank, parent_frame: [0, 0, 0], child_frame: [0, 0, 0], axis: [0, 0, 1], q0: 1.5708}
        constraints: []
        drivers: []     # position given as an expression string of t, e.g. "6.28*t"
        forces:
          - {name: motor, kind: joint_force, joint: j1, value: 6.0}
        simulation: {t_end: 10, solver: RK45, rtol: 1.0e-6}
        """))
    m = load(path)
    assert m.name == "four-bar" and m.inputs == {"u": 0.0}
    assert m.joints["j1"].q0[0] == pytest.approx(1.5708)
    assert np.allclose(m.bodies["crank"].frames["tip"][0], [1, 0, 0])
    assert m.forces["motor"].values[0].constant == 6.0
    assert m.simulation == {"t_end": 10, "solver": "RK45", "rtol": 1e-6}


def test_yaml_exponents_without_dot_are_numbers(tmp_path):
    path = tmp_path / "m.yaml"
    path.write_text("simulation: {rtol: 1e-6, atol: 5E-9, t_end: 2e1}\n")
    assert load(path).simulation == {"rtol": 1e-6, "atol": 5e-9, "t_end": 20.0}


def test_ground_entry_adds_frames_used_by_joints():
    m = load_dict({"bodies": [{"name": "ground", "frames": {"pivot": [0, 0, 2]}},
                              {"name": "a", "mass": 1.0, "inertia": [1, 1, 1]}],
                   "joints": [{"name": "j", "kind": "revolute", "parent": "ground", "child": "a",
                               "parent_frame": "pivot"}]})
    assert np.allclose(m.joints["j"].parent_pose[0], [0, 0, 2])


def test_inputs_as_strings_and_mappings():
    m = load_dict({"inputs": ["u", {"name": "v", "default": 1.5}, {"name": "w"}]})
    assert m.inputs == {"u": 0.0, "v": 1.5, "w": 0.0}


def test_forces_take_expressions_and_inputs():
    m = load_dict({"inputs": ["u"], "bodies": [{"name": "a", "mass": 1.0, "inertia": [1, 1, 1]}],
                   "joints": [{"name": "j", "kind": "revolute", "parent": "ground", "child": "a"}],
                   "forces": [{"name": "f1", "kind": "joint_force", "joint": "j", "value": "u"},
                              {"name": "f2", "kind": "joint_force", "joint": "j", "value": "3*cos(t)"}]})
    assert m.forces["f1"].values[0].input == "u"
    assert m.forces["f2"].values[0].function(0.0) == 3.0


# ------------------------------------------------------------------------------ saving errors
def test_callables_are_refused_on_save(tmp_path):
    m = build_model()
    m.add_force("lam", "joint_force", joint="j1", value=lambda t: 2.0 * t)
    with pytest.raises(ModelError, match=r"force 'lam' value: .*use an expression string"):
        model_to_dict(m)
    with pytest.raises(ModelError, match="force 'lam'"):
        save(m, tmp_path / "m.yaml")
    assert not (tmp_path / "m.yaml").exists()


def test_callable_vector_is_refused_naming_the_component():
    m = build_model()
    m.add_force("kick", "body_force", body="arm", force=(0, lambda t: t, 0))
    with pytest.raises(ModelError, match=r"force 'kick' force\[1\]: a Python function"):
        model_to_dict(m)


# ------------------------------------------------------------------------------ loading errors
BODY = {"name": "a", "mass": 1.0, "inertia": [1, 1, 1]}


def joint(**kw):
    return dict({"name": "j1", "kind": "revolute", "parent": "ground", "child": "a"}, **kw)


def test_unknown_joint_key_names_file_entry_and_key(tmp_path):
    path = tmp_path / "model.yaml"
    bodies = [dict(BODY, name=name) for name in ("a", "b", "c")]
    path.write_text(yaml.safe_dump({"bodies": bodies, "joints": [
        joint(), joint(name="j2", parent="a", child="b"), joint(name="j3", parent="b", child="c", axsi=[0, 0, 1])]}))
    with pytest.raises(ModelError) as info:
        load(path)
    assert str(info.value).startswith(f"{path}: joints[2] 'j3': unknown key 'axsi' (did you mean 'axis'?)")


@pytest.mark.parametrize("data, message", [
    ({"bodys": []}, r"^model.yaml: unknown top-level key 'bodys' \(did you mean 'bodies'\?\)"),
    ({"bodies": [dict(BODY, mas=1)]}, r"^model.yaml: bodies\[0\] 'a': unknown key 'mas'"),
    ({"bodies": [{"name": "ground", "mass": 1}]}, r"^model.yaml: bodies\[0\] 'ground': unknown key 'mass'"),
    ({"bodies": [BODY], "joints": [joint(), joint(name="j2", kind="universal", axis=[1, 0, 0])]},
     r"^model.yaml: joints\[1\] 'j2': unknown key 'axis' .*takes .*axes"),
    ({"bodies": [BODY], "joints": [joint()], "forces": [{"name": "f", "kind": "joint_force", "joint": "j1", "valeu": 1}]},
     r"^model.yaml: forces\[0\] 'f': unknown key 'valeu' \(did you mean 'value'\?\)"),
    ({"inputs": [{"name": "u", "deflt": 1}]}, r"^model.yaml: inputs\[0\] 'u': unknown key 'deflt'"),
    ({"simulation": {"t_ned": 1}}, r"^model.yaml: simulation: unknown key 't_ned' \(did you mean 't_end'\?\)"),
    ({"simulation": {"t_eval": {"start": 0, "stop": 1, "number": 3}}}, r"^model.yaml: simulation: unknown key 'number'"),
])
def test_unknown_keys(data, message):
    with pytest.raises(ModelError, match=message):
        load_dict(data, "model.yaml")


LOOP = {
    "bodies": [{"name": "crank", "mass": 1.0, "com": [0.5, 0, 0], "inertia": [0, 0.1, 0.1]},
               {"name": "slider", "mass": 2.0}],
    "joints": [{"name": "j1", "kind": "revolute", "parent": "ground", "child": "crank", "q0": 0.3},
               {"name": "s", "kind": "prismatic", "parent": "ground", "child": "slider", "axis": [1, 0, 0],
                "q0": 2.0}],
    "constraints": [{"name": "rod", "kind": "distance", "body_a": "crank", "point_a": [1, 0, 0],
                     "body_b": "slider", "length": "1.5 + 0*t"}],
    "drivers": [{"joint": "j1", "position": "0.3 + 2*t"}],
}


def test_constraints_and_drivers_load_and_round_trip(tmp_path):
    m = load_dict(LOOP)
    assert m.check().dof == 0 and m.check().n_constraints == 2
    m.to_yaml(tmp_path / "loop.yaml")
    again = load(tmp_path / "loop.yaml")
    assert again.to_dict() == m.to_dict()
    assert again.to_dict()["drivers"] == [{"joint": "j1", "position": "0.3 + 2*t"}]
    res = again.simulate(t_end=0.5, rtol=1e-9, atol=1e-11)
    theta = 0.3 + 2 * res.t               # slider on x: x = cos(theta) + sqrt(1.5^2 - sin^2(theta))
    np.testing.assert_allclose(res["s.q"], np.cos(theta) + np.sqrt(2.25 - np.sin(theta) ** 2), atol=1e-8)


@pytest.mark.parametrize("entry, message", [
    ({"constraints": [{"kind": "gear"}]}, r"^m.yaml: constraints\[0\]: missing name"),
    ({"constraints": [{"name": "c", "kind": "glue"}]}, r"constraint 'c': unknown kind 'glue'"),
    ({"constraints": [{"name": "c", "kind": "distance", "body_a": "crank", "body_b": "slider", "lenght": 1}]},
     r"unknown key 'lenght' \(did you mean 'length'\?\)"),
    ({"drivers": [{"position": "t"}]}, r"^m.yaml: drivers\[0\]: missing key 'joint'"),
    ({"drivers": [{"joint": "j9", "position": "t"}]}, r"unknown joint 'j9'"),
])
def test_malformed_constraints_and_drivers(entry, message):
    data = {**LOOP, "constraints": [], "drivers": [], **entry}
    with pytest.raises(ModelError, match=message):
        load_dict(data, "m.yaml")


@pytest.mark.parametrize("data, message", [
    ([1, 2], r"^m.yaml: a model file must be a mapping"),
    ({"bodies": {"a": BODY}}, r"^m.yaml: bodies must be a list"),
    ({"bodies": [5]}, r"^m.yaml: bodies\[0\]: expected a mapping"),
    ({"bodies": [{"mass": 1.0}]}, r"^m.yaml: bodies\[0\]: missing name"),
    ({"bodies": [dict(BODY, inertia="abc")]}, r"^m.yaml: bodies\[0\]: body 'a': invalid argument"),
    ({"bodies": [dict(BODY, frames=[1, 2])]}, r"^m.yaml: bodies\[0\] 'a': frames must be a mapping"),
    ({"bodies": [BODY, BODY]}, r"^m.yaml: bodies\[1\]: duplicate name 'a'"),
    ({"bodies": [BODY], "joints": [{"name": "j", "kind": "revolute", "child": "a"}]},
     r"^m.yaml: joints\[0\] 'j': missing key 'parent'"),
    ({"bodies": [BODY], "joints": [joint(kind="revolut")]}, r"^m.yaml: joints\[0\]: joint 'j1': unknown kind 'revolut'"),
    ({"bodies": [BODY], "joints": [joint(child="b")]}, r"^m.yaml: joints\[0\]: joint 'j1' child: unknown body 'b'"),
    ({"bodies": [BODY], "joints": [joint(q0="abc")]}, r"^m.yaml: joints\[0\]: joint 'j1': invalid argument"),
    ({"bodies": [BODY], "joints": [joint()], "forces": [{"name": "f", "kind": "joint_force", "joint": "j1", "value": "x+1"}]},
     r"^m.yaml: forces\[0\]: force 'f' .*invalid expression 'x\+1': not allowed: the name 'x'"),
    ({"forces": [{"name": "f", "joint": "j1"}]}, r"^m.yaml: forces\[0\] 'f': missing key 'kind'"),
    ({"inputs": [{"name": "u", "default": "abc"}]}, r"^m.yaml: inputs\[0\]: input 'u': invalid argument"),
    ({"gravity": [1, 2]}, r"^m.yaml: gravity must be 3 numbers"),
    ({"simulation": [1]}, r"^m.yaml: simulation: the simulation section must be a mapping"),
    ({"simulation": {"t_end": "abc"}}, r"^m.yaml: simulation: t_end must be a finite number"),
    ({"simulation": {"solver": 3}}, r"^m.yaml: simulation: solver=3 is not one of Euler, RK4"),
    ({"simulation": {"drift": "magic"}}, r"^m.yaml: simulation: drift='magic' is not one of projection"),
    ({"simulation": {"rtol": -1}}, r"^m.yaml: simulation: rtol must be a finite positive number, got -1"),
    ({"simulation": {"baumgarte": [1]}}, r"^m.yaml: simulation: baumgarte must be two finite numbers"),
    ({"simulation": {"progress": "yes"}}, r"^m.yaml: simulation: progress must be True or False"),
    ({"simulation": {"t_eval": {"start": 0, "stop": 1}}}, r"^m.yaml: simulation: missing key 'num'"),
    ({"simulation": {"t_eval": {"start": 0, "stop": 1, "num": 2.5}}}, r"^m.yaml: simulation: t_eval num must be a positive integer"),
    ({"simulation": {"t_eval": "0:1"}}, r"^m.yaml: simulation: t_eval must be a list"),
    ({"simulation": {"inputs": {"u": 1.0}}}, r"^m.yaml: simulation: inputs: 'u' is not an input of the model"),
    ({"inputs": ["u"], "simulation": {"inputs": {"u": "open('f')"}}}, r"^m.yaml: simulation: inputs 'u': invalid expression"),
])
def test_bad_entries_name_file_and_entry(data, message):
    with pytest.raises(ModelError, match=message):
        load_dict(data, "m.yaml")


def test_simulation_section_is_kept():
    settings = {"t_end": 1.0, "t_eval": [0, 0.5, 1.0], "solver": "RK4", "h": 1e-3, "max_step": None,
                "progress": True, "inputs": {"u": "2*t"}}
    assert load_dict({"inputs": ["u"], "simulation": settings}).simulation == settings


def test_malformed_yaml_names_the_line(tmp_path):
    path = tmp_path / "bad.yaml"
    path.write_text("name: x\nbodies:\n  - {name: a, mass: 1.0\njoints: []\n")
    with pytest.raises(ModelError, match=rf"^{path}: line 4, column \d+: invalid YAML"):
        load(path)


def test_duplicate_yaml_key_names_the_line(tmp_path):
    path = tmp_path / "dup.yaml"
    path.write_text("name: x\nbodies:\n  - {name: a, mass: 1.0, mass: 2.0}\n")
    with pytest.raises(ModelError, match=rf"^{path}: line 3, column \d+: invalid YAML: duplicate key 'mass'"):
        load(path)


def test_malformed_json_names_the_line(tmp_path):
    path = tmp_path / "bad.json"
    path.write_text('{"name": "x",\n "bodies": [\n  {"name": "a",}]}\n')
    with pytest.raises(ModelError, match=rf"^{path}: line 3, column \d+: invalid JSON"):
        load(path)


def test_file_level_errors(tmp_path):
    with pytest.raises(ModelError, match="robot.urdf: cannot read the URDF file"):
        load(tmp_path / "robot.urdf")
    with pytest.raises(ModelError, match="takes no options.*floating_base"):
        load(tmp_path / "model.yaml", floating_base=True)
    with pytest.raises(ModelError, match="unknown model file type '.txt'"):
        load(tmp_path / "model.txt")
    with pytest.raises(ModelError, match="cannot read the model file"):
        load(tmp_path / "missing.yaml")
    (tmp_path / "empty.yaml").write_text("# nothing\n")
    with pytest.raises(ModelError, match="empty.yaml: the model file is empty"):
        load(tmp_path / "empty.yaml")


def test_simulation_section_takes_the_closed_loop_options():
    m = load_dict({**LOOP, "drivers": [], "simulation": {"drift": "stabilization", "constraint_solver": "qr",
                                                         "baumgarte": [5, 5], "t_end": 0.1}})
    assert m.simulation["drift"] == "stabilization"
    res = m.simulate()
    assert res.constraint_error.max() < 1e-9


@pytest.mark.parametrize("text", ["a: !!int 0.2\n", "!!float bodies: []\n", "t: !!binary abc\n"])
def test_yaml_tag_the_value_cannot_take_is_a_model_error(tmp_path, text):     # found by tests/fuzz
    path = tmp_path / "tag.yaml"
    path.write_text(text)
    with pytest.raises(ModelError, match=rf"^{path}: .*invalid YAML"):
        load(path)
