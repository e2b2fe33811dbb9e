"""URDF import (SPEC C10): robots from example-robot-data (tests/data/robots, README.md there) against
Pinocchio's own URDF reader and dynamics, the mapping of each URDF element, and errors that name the
file and the line."""
import subprocess
import sys
import textwrap
import warnings
from pathlib import Path

import numpy as np
import pytest

import mechsim as ms
from mechsim.bench import robots as bench_robots
from mechsim.errors import ModelError

from robot_files import ROBOTS, assert_agrees_with_pinocchio, random_state, relative_error, robot_file
EXAMPLES = Path(__file__).parents[2] / "examples"
TOL = 1e-10           # relative agreement with Pinocchio


def load(name, **options):
    """A shipped robot (its meshes are not shipped: the warnings about them are expected)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return ms.load(robot_file(name), **options)


def load_warned(path, **options):
    """(model, the messages of the warnings its loading gave)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        model = ms.load(path, **options)
    return model, [str(w.message) for w in caught]


def write(tmp_path, text, name="robot.urdf"):
    path = tmp_path / name
    path.write_text(textwrap.dedent(text).lstrip())
    return path


def inertial(mass=1.0, xyz="0 0 0", rpy="0 0 0", ixx=0.1, iyy=0.1, izz=0.1):
    return (f'<inertial><origin xyz="{xyz}" rpy="{rpy}"/><mass value="{mass}"/>'
            f'<inertia ixx="{ixx}" ixy="0" ixz="0" iyy="{iyy}" iyz="0" izz="{izz}"/></inertial>')


# ------------------------------------------------------------------------------ Pinocchio's coordinates
def pinocchio_state(m, pm, q, v):
    """Pinocchio's (q, v) for mechsim's (q, v), and P with v = P v_pin (mechsim.bench.robots, which
    maps joint order, continuous joints' (cos, sin) and the free flyer's quaternion and local velocity)."""
    import pinocchio as pin
    return bench_robots.pinocchio_state(pin, m, pm, q, v)


free_flyer_bias = bench_robots.free_flyer_bias


def build_pinocchio(name, floating_base):
    pin = pytest.importorskip("pinocchio")
    path = str(robot_file(name))
    pm = pin.buildModelFromUrdf(path, pin.JointModelFreeFlyer()) if floating_base else pin.buildModelFromUrdf(path)
    return pin, pm, pm.createData()


CASES = [("ur5", False, {}), ("panda", False, {}), ("panda", True, {}), ("solo12", False, {}),
         ("solo12", True, {}), ("pr2", False, {"merge_fixed": True}), ("pr2", True, {"merge_fixed": True}),
         ("pr2", False, {}), ("pr2", True, {})]                  # verbatim: its sensor mount's inertia joins its link


@pytest.mark.reference
@pytest.mark.parametrize("name, floating_base, options", CASES)
def test_dynamics_match_pinocchio(name, floating_base, options):
    """Forward and inverse dynamics and the mass matrix at random states (robot_files.py)."""
    pin, pm, pd = build_pinocchio(name, floating_base)
    m = load(name, floating_base=floating_base, mimic=False, **options)
    assert_agrees_with_pinocchio(pin, m, pm, np.random.default_rng(1), TOL, samples=4)


def constrained_accelerations(M, h, tau, G):
    """a of M a + h = tau + G^T lambda with G a = 0 (a gear between joint coordinates)."""
    n, k = M.shape[0], G.shape[0]
    K = np.block([[M, G.T], [G, np.zeros((k, k))]])
    return np.linalg.solve(K, np.concatenate([tau - h, np.zeros(k)]))[:n]


def gear_rows(m):
    """G with G v = 0 for the model's gears (q_a - ratio q_b held)."""
    v_names = m.coordinates()[1]
    G = np.zeros((len(m.constraints), len(v_names)))
    for row, c in zip(G, m.constraints.values()):
        a, b = c.joints
        row[v_names.index(f"{a}.v")], row[v_names.index(f"{b}.v")] = 1.0, -c.ratio
    return G


def consistent(m, x, letter):
    """x with every mimicking coordinate set to ratio * its source's (mimic offsets are 0 in these files)."""
    names = m.coordinates()[0 if letter == "q" else 1]
    for c in m.constraints.values():
        a, b = c.joints
        x[names.index(f"{a}.{letter}")] = c.ratio * x[names.index(f"{b}.{letter}")]
    return x


@pytest.mark.reference
@pytest.mark.parametrize("name, options, gears", [("panda", {}, 1), ("pr2", {"merge_fixed": True}, 10)])
def test_mimic_joints_follow_their_joint_as_pinocchio_says(name, options, gears):
    """<mimic> -> gear: forward dynamics of the geared robot against the constrained equations of motion
    built from Pinocchio's mass matrix and bias forces of the robot with independent joints."""
    pin, pm, pd = build_pinocchio(name, False)
    m = load(name, **options)
    assert len(m.constraints) == gears and all(c.kind == "gear" for c in m.constraints.values())
    G = gear_rows(m)
    rng = np.random.default_rng(2)
    for _ in range(3):
        q, v = random_state(m, rng)
        q, v = consistent(m, q, "q"), consistent(m, v, "v")
        qp, vp, P = pinocchio_state(m, pm, q, v)
        tau = rng.uniform(-2, 2, len(v))
        M = pin.crba(pm, pd, qp)
        M = P @ (np.triu(M) + np.triu(M, 1).T) @ P.T
        h = P @ (pin.rnea(pm, pd, qp, vp, np.zeros(pm.nv)) + pm.damping * vp)
        expected = constrained_accelerations(M, h, tau, G)
        assert relative_error(ms.forward_dynamics(m, q, v, tau), expected) < 1e-9


MIMIC = """
<robot name="tongs">
  <link name="base">{inertial}</link>
  <link name="a">{inertial}</link>
  <link name="b">{inertial}</link>
  <joint name="ja" type="revolute"><parent link="base"/><child link="a"/><axis xyz="0 1 0"/>
    <origin xyz="0.3 0 0"/></joint>
  <joint name="jb" type="continuous"><parent link="base"/><child link="b"/><axis xyz="0 1 0"/>
    <origin xyz="-0.3 0 0" rpy="0 0 0.4"/>
    <mimic joint="ja" multiplier="-2" offset="0.1"/></joint>
</robot>
"""


def test_mimic_becomes_a_gear_with_its_offset(tmp_path):
    path = write(tmp_path, MIMIC.format(inertial=inertial(xyz="0.2 0 0.1")))
    m = ms.load(path)
    gear = m.constraints["jb_mimic"]
    assert gear.kind == "gear" and gear.joints == ("jb", "ja") and gear.ratio == -2.0
    assert m.joints["jb"].q0[0] == pytest.approx(0.1) and m.joints["ja"].q0[0] == 0.0
    # the geared accelerations: the free robot's equations with the gear's reaction
    free = ms.load(path, mimic=False)
    assert not free.constraints
    q, v, tau = np.array([0.3, -0.5]), np.array([0.7, -1.4]), np.array([0.2, -0.1])
    expected = constrained_accelerations(ms.mass_matrix(free, q), ms.inverse_dynamics(free, q, v, np.zeros(2)),
                                         tau, np.array([[2.0, 1.0]]))
    assert np.allclose(ms.forward_dynamics(m, q, v, tau), expected, rtol=1e-10, atol=1e-12)
    # a run keeps q_b = -2 q_a + 0.1
    res = m.simulate(t_end=0.3, rtol=1e-10, atol=1e-12)
    assert np.abs(res["jb.q"] + 2 * res["ja.q"] - 0.1).max() < 1e-8
    assert np.ptp(res["ja.q"]) > 0.01


def test_mimic_of_an_unknown_joint(tmp_path):
    text = MIMIC.format(inertial=inertial()).replace('mimic joint="ja"', 'mimic joint="jz"')
    with pytest.raises(ModelError, match=r"robot.urdf line 9: joint 'jb': <mimic> names the unknown joint 'jz'"):
        ms.load(write(tmp_path, text))


# ------------------------------------------------------------------------------ mapping of the elements
def test_names_kinds_and_signals():
    m = load("ur5")
    assert m.name == "ur5"
    assert "shoulder_pan_joint.q" in m.signals() and "wrist_3_link.position" in m.signals()
    assert m.coordinates()[0] == ["shoulder_pan_joint.q", "shoulder_lift_joint.q", "elbow_joint.q",
                                  "wrist_1_joint.q", "wrist_2_joint.q", "wrist_3_joint.q"]
    assert m.joints["world_joint"].kind == "weld" and m.joints["world_joint"].parent == "ground"
    lift = m.joints["shoulder_lift_joint"]        # <origin rpy="0.0 1.57079632679 0.0" xyz="0.0 0.13585 0.0"/>
    position, rotation = lift.parent_pose
    assert np.allclose(position, [0, 0.13585, 0])
    assert np.allclose(rotation, [[0, 0, 1], [0, 1, 0], [-1, 0, 0]], atol=1e-11)
    assert np.allclose(lift.axis, [0, 1, 0]) and lift.kind == "revolute"
    # ee_link: massless, on a fixed joint: a frame of wrist_3_link
    assert "ee_link" not in m.bodies and "ee_link" in m.bodies["wrist_3_link"].frames
    assert "base_link" in load("ur5", merge_fixed=True).bodies["ground"].frames      # merged into world
    floating = load("solo12", floating_base=True)
    assert floating.joints["root_joint"].kind == "free" and floating.joints["root_joint"].child == "base_link"
    assert floating.coordinates()[0][:7] == [f"root_joint.q[{i}]" for i in range(7)]
    assert load("solo12").joints["root_joint"].kind == "weld"
    pr2 = load("pr2", merge_fixed=True)
    assert pr2.joints["r_forearm_roll_joint"].kind == "revolute"          # continuous
    assert pr2.joints["torso_lift_joint"].kind == "prismatic"


def test_inertial_frame_is_rotated_into_the_link_frame(tmp_path):
    path = write(tmp_path, f"""
        <robot name="r">
          <link name="base">{inertial()}</link>
          <link name="arm">{inertial(mass=2.0, xyz="0.1 0.2 0.3", rpy="0 0 1.5707963267948966",
                                     ixx=0.01, iyy=0.02, izz=0.03)}</link>
          <joint name="j" type="prismatic"><parent link="base"/><child link="arm"/><axis xyz="0 0 2"/></joint>
        </robot>""")
    arm = ms.load(path).bodies["arm"]
    assert arm.mass == 2.0 and np.allclose(arm.com, [0.1, 0.2, 0.3])
    assert np.allclose(arm.inertia, np.diag([0.02, 0.01, 0.03]))      # x and y swapped by the yaw
    assert ms.load(path).joints["j"].kind == "prismatic"


def test_damping_limits_and_friction(tmp_path):
    m, messages = load_warned(ROBOTS / "panda.urdf")
    assert f"{ROBOTS / 'panda.urdf'}: the effort and velocity limits of 9 joint(s) are kept in model.urdf_limits " \
        "and model.urdf_friction, not simulated" in messages
    assert m.urdf_limits["panda_joint4"] == {"lower": -3.0718, "upper": -0.0698, "effort": 87.0, "velocity": 2.175}
    stop = m.forces["panda_joint4_limit"]
    assert stop.kind == "joint_limit" and (stop.lower, stop.upper, stop.restitution) == (-3.0718, -0.0698, 0.0)
    assert m.joints["panda_joint4"].q0[0] == -0.0698            # its zero is outside [-3.0718, -0.0698]
    assert any("panda_joint4 = -0.0698" in message for message in messages)
    assert m.urdf_friction == {}
    damper = m.forces["panda_finger_joint1_damping"]
    assert damper.kind == "joint_spring_damper" and damper.damping[0] == 0.3 and damper.stiffness[0] == 0.0
    assert m.forces["panda_joint1_damping"].damping[0] == 0.003
    path = write(tmp_path, f"""
        <robot name="r">
          <link name="base">{inertial()}</link>
          <link name="wheel">{inertial()}</link>
          <joint name="spin" type="continuous"><parent link="base"/><child link="wheel"/>
            <limit effort="3" velocity="4"/><dynamics friction="0.5"/></joint>
        </robot>""")
    m, messages = load_warned(path)
    assert messages == [f"{path}: the effort and velocity limits of 1 joint(s) are kept in model.urdf_limits and "
                        "model.urdf_friction, not simulated"]
    assert m.urdf_limits == {"spin": {"effort": 3.0, "velocity": 4.0}} and m.urdf_friction == {"spin": 0.5}
    friction = m.forces["spin_friction"]
    assert friction.kind == "joint_friction" and friction.static == friction.kinetic == 0.5
    m, messages = load_warned(path, limits=False)
    assert not m.forces and "the limits and friction of 1 joint(s) (spin) are kept" in messages[0]


GEOMETRY = """
<robot name="shapes">
  <link name="base">
    {inertial}
    <visual><origin xyz="1 2 3" rpy="0 0 1.5707963267948966"/><geometry><box size="0.1 0.2 0.3"/></geometry></visual>
    <collision><geometry><cylinder radius="0.05" length="0.4"/></geometry></collision>
    <visual><geometry><mesh filename="package://mypkg/meshes/part.stl" scale="2 2 2"/></geometry></visual>
    <visual><geometry><mesh filename="meshes/local.dae"/></geometry></visual>
    <visual><geometry><mesh filename="package://otherpkg/lost.stl"/></geometry></visual>
    <collision><geometry><mesh filename="meshes/gone.stl"/></geometry></collision>
  </link>
  <link name="tool">
    {inertial}
    <visual><origin xyz="0.1 0 0.1"/><geometry><sphere radius="0.02"/></geometry></visual>
  </link>
  <joint name="tool_joint" type="fixed"><parent link="base"/><child link="tool"/>
    <origin xyz="0.5 0 0" rpy="0 0 1.5707963267948966"/></joint>
</robot>
"""


def test_geometry_and_meshes(tmp_path):
    package = tmp_path / "somewhere" / "mypkg"
    (package / "meshes").mkdir(parents=True)
    (package / "meshes" / "part.stl").write_text("solid part\nendsolid part\n")
    (tmp_path / "meshes").mkdir()
    (tmp_path / "meshes" / "local.dae").write_text("<COLLADA/>\n")
    path = write(tmp_path, GEOMETRY.format(inertial=inertial()))
    m, messages = load_warned(path, package_dirs={"mypkg": str(package)})
    assert messages == [f"{path}: 2 mesh file(s) not found, their shapes left out: package://otherpkg/lost.stl "
                        "(line 8), meshes/gone.stl (line 9)"]
    box, cylinder, part, local = m.bodies["base"].geometry
    assert box["kind"] == "box" and box["role"] == "visual" and box["size"] == (0.1, 0.2, 0.3)
    assert box["pose"]["position"] == (1, 2, 3)
    assert np.allclose(box["pose"]["rotation"], [[0, -1, 0], [1, 0, 0], [0, 0, 1]])
    assert cylinder["role"] == "collision" and (cylinder["radius"], cylinder["length"]) == (0.05, 0.4)
    assert part == {**part, "kind": "mesh", "path": str(package / "meshes" / "part.stl"), "scale": (2, 2, 2)}
    assert local["path"] == str(tmp_path / "meshes" / "local.dae") and local["scale"] == (1, 1, 1)
    assert m.bodies["tool"].geometry[0]["kind"] == "sphere"
    # merged: the tool's sphere and frame on the base, at the fixed joint's pose
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        merged = ms.load(path, package_dirs={"mypkg": str(package)}, merge_fixed=True)
    assert "tool" not in merged.bodies and len(merged.bodies["base"].geometry) == 5
    sphere = merged.bodies["base"].geometry[4]
    assert sphere["kind"] == "sphere" and np.allclose(sphere["pose"]["position"], [0.5, 0.1, 0.1])
    position, rotation = merged.bodies["base"].frames["tool"]
    assert np.allclose(position, [0.5, 0, 0]) and np.allclose(rotation, [[0, -1, 0], [1, 0, 0], [0, 0, 1]])
    # without package_dirs the package mesh is not found either
    assert load_warned(path)[1][0].startswith(f"{path}: 3 mesh file(s) not found, their shapes left out: "
                                              "package://mypkg/meshes/part.stl (line 6), ")


def test_urdf_model_round_trips_through_yaml(tmp_path):
    m = load("ur5")
    m.to_yaml(tmp_path / "ur5.yaml")
    again = ms.load(tmp_path / "ur5.yaml")
    q = np.linspace(-1, 1, 6)
    assert np.allclose(ms.mass_matrix(again, q), ms.mass_matrix(m, q), rtol=1e-14, atol=0)
    assert again.bodies["wrist_3_link"].frames.keys() == m.bodies["wrist_3_link"].frames.keys()
    shapes = load_warned(write(tmp_path, GEOMETRY.format(inertial=inertial())), merge_fixed=True)[0]
    shapes.to_yaml(tmp_path / "shapes.yaml")
    assert ms.load(tmp_path / "shapes.yaml").bodies["base"].geometry == shapes.bodies["base"].geometry


def test_world_root_is_the_ground(tmp_path):
    """A root link named world is the ground: its children hang from it, the massless links fixed to it
    are ground frames, and its shapes, which the ground cannot take, are left out with a warning."""
    path = write(tmp_path, f"""
        <robot name="r">
          <link name="world"><visual><geometry><box size="1 1 1"/></geometry></visual></link>
          <link name="camera"/>
          <link name="arm">{inertial()}</link>
          <joint name="camera_mount" type="fixed"><parent link="world"/><child link="camera"/>
            <origin xyz="1 2 3"/></joint>
          <joint name="pivot" type="continuous"><parent link="world"/><child link="arm"/></joint>
        </robot>""")
    m, messages = load_warned(path)
    assert set(m.bodies) == {"ground", "arm"} and m.joints["pivot"].parent == "ground"
    assert np.allclose(m.bodies["ground"].frames["camera"][0], [1, 2, 3])
    assert messages == [f"{path}: the ground takes no geometry: the shapes of 'world' and of the links fixed to "
                        "it are left out"]


def test_floating_and_planar_joints(tmp_path):
    path = write(tmp_path, f"""
        <robot name="r">
          <link name="base">{inertial()}</link>
          <link name="puck">{inertial()}</link>
          <link name="drone">{inertial()}</link>
          <joint name="slide" type="planar"><parent link="base"/><child link="puck"/><axis xyz="1 0 0"/></joint>
          <joint name="fly" type="floating"><parent link="base"/><child link="drone"/></joint>
        </robot>""")
    m = ms.load(path)
    assert m.joints["slide"].kind == "planar" and np.allclose(m.joints["slide"].normal, [1, 0, 0])
    assert m.joints["fly"].kind == "free" and m.joints["fly"].nq == 7
    assert m.coordinates()[1] == ["slide.v[0]", "slide.v[1]", "slide.v[2]"] + [f"fly.v[{i}]" for i in range(6)]


# ------------------------------------------------------------------------------ merge_fixed
@pytest.mark.parametrize("name", ["ur5", "panda", "solo12"])
def test_merge_fixed_keeps_the_dynamics(name):
    m, merged = load(name, mimic=False), load(name, mimic=False, merge_fixed=True)
    assert len(merged.bodies) < len(m.bodies) and m.coordinates() == merged.coordinates()
    assert all(j.kind != "weld" or j.parent == "ground" for j in merged.joints.values())
    rng = np.random.default_rng(3)
    for _ in range(3):
        q, v = random_state(m, rng)
        tau = rng.uniform(-3, 3, len(v))
        assert relative_error(ms.forward_dynamics(merged, q, v, tau), ms.forward_dynamics(m, q, v, tau)) < 1e-12
        assert relative_error(ms.mass_matrix(merged, q), ms.mass_matrix(m, q)) < 1e-12


TILTED = """
<robot name="tilted">
  <link name="base">{base}</link>
  <link name="bracket">{bracket}</link>
  <link name="arm">{arm}</link>
  <link name="hand">{hand}</link>
  <joint name="mount" type="fixed"><parent link="base"/><child link="bracket"/>
    <origin xyz="0.1 0.2 0.3" rpy="0.3 -0.4 0.5"/></joint>
  <joint name="shoulder" type="revolute"><parent link="bracket"/><child link="arm"/>
    <origin xyz="0.4 -0.1 0.2" rpy="-0.2 0.1 0.7"/><axis xyz="0 0.6 0.8"/></joint>
  <joint name="wrist" type="fixed"><parent link="arm"/><child link="hand"/>
    <origin xyz="0.5 0 0.1" rpy="1.0 0.2 -0.3"/></joint>
</robot>
"""


def test_merge_fixed_under_tilted_fixed_joints(tmp_path):
    """Fixed joints with offsets and rotations, on both sides of a moving joint: the same dynamics
    merged, the merged links at their poses, the masses combined."""
    path = write(tmp_path, TILTED.format(
        base=inertial(2.0), bracket=inertial(0.5, "0.1 0 0", "0.1 0.2 0.3", 0.01, 0.02, 0.025),
        arm=inertial(1.0, "0.2 0.1 0", "0 0.3 0", 0.02, 0.03, 0.04), hand=inertial(0.3, "0 0 0.05", ixx=0.002)))
    m, merged = ms.load(path), ms.load(path, merge_fixed=True)
    assert set(merged.bodies) == {"ground", "base", "arm"} and merged.bodies["arm"].mass == 1.3
    q, v = np.array([0.7]), np.array([-1.3])
    assert relative_error(ms.forward_dynamics(merged, q, v), ms.forward_dynamics(m, q, v)) < 1e-13
    assert relative_error(ms.inverse_dynamics(merged, q, v, [0.4]), ms.inverse_dynamics(m, q, v, [0.4])) < 1e-13
    position, rotation = merged.bodies["base"].frames["bracket"]
    assert np.allclose(position, [0.1, 0.2, 0.3])
    shoulder = merged.joints["shoulder"].parent_pose
    assert np.allclose(shoulder[0], position + rotation @ [0.4, -0.1, 0.2])
    assert np.allclose(shoulder[1] @ [0, 0.6, 0.8], rotation @ m.joints["shoulder"].parent_pose[1] @ [0, 0.6, 0.8])


@pytest.mark.reference
def test_merged_link_is_a_frame_with_pinocchios_inertia():
    """panda_hand (and the massless panda_link8) on fixed joints merge into panda_link7: the combined
    mass properties and the frame equal Pinocchio's (which always merges fixed joints)."""
    pin, pm, _ = build_pinocchio("panda", False)
    link7 = load("panda", merge_fixed=True).bodies["panda_link7"]
    inertia = pm.inertias[pm.getJointId("panda_joint7")]
    assert link7.mass == pytest.approx(inertia.mass, rel=1e-14)
    assert np.allclose(link7.com, inertia.lever, rtol=0, atol=1e-14)
    assert np.allclose(link7.inertia, inertia.inertia, rtol=0, atol=1e-14)
    placement = pm.frames[pm.getFrameId("panda_hand")].placement
    position, rotation = link7.frames["panda_hand"]
    assert np.allclose(position, placement.translation, atol=1e-14)
    assert np.allclose(rotation, placement.rotation, atol=1e-14)


# ------------------------------------------------------------------------------ errors
TWO_LINKS = """
<robot name="r">
  <link name="base">{inertial}</link>
  <link name="arm">{inertial}</link>
  <joint name="elbow" type="{kind}">
    <parent link="base"/>
    <child link="{child}"/>
  </joint>
</robot>
"""


def bad(tmp_path, text, pattern, **options):
    with pytest.raises(ModelError, match=rf"^{tmp_path / 'robot.urdf'} line {pattern}"):
        ms.load(write(tmp_path, text), **options)


def test_malformed_xml(tmp_path):
    text = TWO_LINKS.format(inertial=inertial(), kind="revolute", child="arm").replace("</joint>", "</joint")
    bad(tmp_path, text, r"8: malformed XML \(")


def test_unknown_joint_type(tmp_path):
    bad(tmp_path, TWO_LINKS.format(inertial=inertial(), kind="hinge", child="arm"),
        r"4: joint 'elbow': unknown type 'hinge'; URDF joints are revolute, continuous")


def test_missing_link(tmp_path):
    bad(tmp_path, TWO_LINKS.format(inertial=inertial(), kind="revolute", child="forearm"),
        "6: joint 'elbow': unknown child link 'forearm'")


def test_bad_inertia(tmp_path):
    text = TWO_LINKS.format(inertial='<inertial><mass value="1"/></inertial>', kind="revolute", child="arm")
    bad(tmp_path, text, "2: link 'base': <inertial> needs <mass> and <inertia>")
    text = TWO_LINKS.format(inertial=inertial(), kind="revolute", child="arm").replace(
        f'<link name="arm">{inertial()}</link>', '<link name="arm"/>')
    bad(tmp_path, text, "3: link 'arm' moves on joint 'elbow' but neither it nor the links it carries have mass")
    text = TWO_LINKS.format(inertial=inertial(ixx="1e-3 2"), kind="revolute", child="arm")
    bad(tmp_path, text, r"2: link 'base': <inertia ixx=\"1e-3 2\">: expected 1 finite number")


def inertia_warnings(messages):
    return [message for message in messages if "link inertia(s) that no rigid body has" in message]


def test_pr2_loads_verbatim_its_sensor_mount_joining_the_link_it_is_fixed_to():
    """PR2's sensor_mount_link (line 781) and double_stereo_link have principal moments 0.001, 0.001, 0.01, which
    no rigid body has: they are on fixed joints, so they join head_plate_frame, whose sum with them no rigid body
    has either, so that joins head_tilt_link, the moving link they are all fixed to (as Pinocchio merges every
    fixed link), with one warning. The dynamics against Pinocchio's: test_dynamics_match_pinocchio."""
    m, messages = load_warned(robot_file("pr2"))
    [message] = inertia_warnings(messages)
    assert message.startswith(f"{robot_file('pr2')}: 3 link inertia(s)")
    for link in ("sensor_mount_link", "double_stereo_link"):
        assert (f"'{link}' (principal moments [0.001, 0.001, 0.01] violate the triangle inequality I1 + I2 >= I3) "
                "joined 'head_tilt_link', the link it is fixed to") in message
    assert "'head_plate_frame' (with what joined it, principal moments" in message
    assert "corrected" not in message
    tilt = m.bodies["head_tilt_link"]
    assert {"sensor_mount_link", "double_stereo_link", "head_plate_frame"} <= set(tilt.frames)


UNPHYSICAL = """
<robot name="r">
  <link name="base">{base}</link>
  <link name="arm">{arm}</link>
  <link name="tool">{tool}</link>
  <joint name="elbow" type="revolute"><parent link="base"/><child link="arm"/><axis xyz="0 1 0"/>
    <origin xyz="0 0 0.5" rpy="0.3 0 0"/><limit lower="-3" upper="3" effort="10" velocity="10"/></joint>
  <joint name="mount" type="fixed"><parent link="arm"/><child link="tool"/><origin xyz="0.4 0 0" rpy="0 0.5 0"/></joint>
</robot>
"""


@pytest.mark.reference
def test_inertias_no_rigid_body_has_load_with_one_warning_and_pinocchios_merge(tmp_path):
    """The tool (not positive definite) on a fixed joint joins the arm; the arm's sum (against the triangle
    inequality) is corrected to the nearest inertia a rigid body has. Pinocchio merges the same way and takes the
    inertias as they are: its arm's mass and COM equal mechsim's, its inertia corrected is mechsim's, and with
    that inertia the dynamics agree."""
    pin = pytest.importorskip("pinocchio")
    from mechsim.modeling.body import inertia_problem, physical_inertia
    path = write(tmp_path, UNPHYSICAL.format(base=inertial(), arm=inertial(xyz="0.2 0 0", ixx=0.1, iyy=0.1, izz=0.5),
                                             tool=inertial(mass=0.3, xyz="0.05 0 0", ixx=-1e-3, iyy=0.02, izz=0.02)))
    m, messages = load_warned(path)
    [message] = inertia_warnings(messages)
    assert "2 link inertia(s)" in message and "'tool' (inertia is not positive definite" in message
    assert "joined 'arm', the link it is fixed to" in message
    assert "'arm' (principal moments" in message and "corrected to the nearest inertia a rigid body has" in message
    arm = m.bodies["arm"]
    assert "tool" not in m.bodies and "tool" in arm.frames and inertia_problem(arm.inertia) is None
    pm = pin.buildModelFromUrdf(str(path))
    merged = pm.inertias[1]
    assert arm.mass == pytest.approx(merged.mass, rel=1e-15)
    np.testing.assert_allclose(arm.com, merged.lever, atol=1e-15)
    assert inertia_problem(merged.inertia) is not None                       # Pinocchio took the sum as it is
    np.testing.assert_allclose(arm.inertia, physical_inertia(merged.inertia), atol=1e-15)
    pm.inertias[1] = pin.Inertia(arm.mass, arm.com, arm.inertia)
    pd = pm.createData()
    for q, v, tau in ((0.3, -1.0, 0.5), (-2.0, 0.4, 0.0)):
        expected = pin.aba(pm, pd, np.array([q]), np.array([v]), np.array([tau]))
        assert relative_error(ms.forward_dynamics(m, [q], [v], [tau]), expected) < 1e-13


def test_an_unphysical_moving_link_alone_is_corrected_and_said_so(tmp_path):
    """Moments (0.1, -1e-6, 0.1): the nearest a rigid body has is (0.1, 0, 0.1), on both links; -1e-10 is rounding
    (within 1e-9 of 1 kg m^2), taken as it is."""
    text = TWO_LINKS.format(inertial=inertial(ixx=0.1, iyy=-1e-6, izz=0.1), kind="revolute", child="arm")
    m, messages = load_warned(write(tmp_path, text))
    [message] = inertia_warnings(messages)
    assert "2 link inertia(s)" in message and "'base' (inertia is not positive definite" in message
    assert "'arm' (inertia is not positive definite (principal moments [-1e-06, 0.1, 0.1]))" in message
    np.testing.assert_allclose(m.bodies["arm"].inertia, np.diag([0.1, 0.0, 0.1]), atol=1e-15)
    text = TWO_LINKS.format(inertial=inertial(ixx=0.1, iyy=-1e-10, izz=0.1), kind="revolute", child="arm")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert ms.load(write(tmp_path, text)).bodies["arm"].inertia[1, 1] == -1e-10
    with warnings.catch_warnings():
        warnings.simplefilter("error")                    # a file with rigid bodies' inertias: no warning
        ms.load(write(tmp_path, TWO_LINKS.format(inertial=inertial(), kind="revolute", child="arm")))


def test_tree_errors(tmp_path):
    two_parents = TWO_LINKS.format(inertial=inertial(), kind="revolute", child="arm").replace(
        "</robot>", '<joint name="again" type="floating"><parent link="base"/><child link="arm"/></joint>\n</robot>')
    bad(tmp_path, two_parents, "8: joint 'again': link 'arm' already has the parent joint 'elbow' \\(line 4\\), and "
                               "a floating joint cannot close a loop")     # other second parents close loops
    two_roots = TWO_LINKS.format(inertial=inertial(), kind="revolute", child="arm").replace(
        "</robot>", f'<link name="loose">{inertial()}</link>\n</robot>')
    bad(tmp_path, two_roots, "8: links 'base', 'loose' have no parent joint")
    loop = TWO_LINKS.format(inertial=inertial(), kind="revolute", child="arm").replace(
        "</robot>", '<joint name="back" type="revolute"><parent link="arm"/><child link="base"/></joint>\n</robot>')
    bad(tmp_path, loop, "1: the joints form a loop")
    world = TWO_LINKS.format(inertial=inertial(), kind="revolute", child="arm").replace('"base"', '"world"')
    bad(tmp_path, world, "2: the root link 'world' is the ground", floating_base=True)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert ms.load(tmp_path / "robot.urdf").joints["elbow"].parent == "ground"


def test_options_are_checked(tmp_path):
    with pytest.raises(ModelError, match="unknown option 'floating' \\(did you mean 'floating_base'\\?\\)"):
        ms.load(ROBOTS / "ur5.urdf", floating=True)
    with pytest.raises(ModelError, match="package_dirs must map package names to folders"):
        ms.load(ROBOTS / "ur5.urdf", package_dirs=["somewhere"])
    (tmp_path / "m.yaml").write_text("name: m\n")
    with pytest.raises(ModelError, match="a model file takes no options, got floating_base"):
        ms.load(tmp_path / "m.yaml", floating_base=True)
    with pytest.raises(ModelError, match="cannot read the URDF file"):
        ms.load(tmp_path / "absent.urdf")


# ------------------------------------------------------------------------------ command line
def mechsim_cli(*args):
    return subprocess.run([sys.executable, "-m", "mechsim", *map(str, args)], capture_output=True, text=True,
                          timeout=300)


def test_cli_checks_a_urdf(tmp_path):
    run = mechsim_cli("check", ROBOTS / "ur5.urdf")
    assert run.returncode == 0, run.stderr
    assert "dof: 6" in run.stdout and "shoulder_pan_joint" in run.stdout
    path = write(tmp_path, TWO_LINKS.format(inertial=inertial(), kind="hinge", child="arm"))
    run = mechsim_cli("check", path)
    assert run.returncode == 1 and "Traceback" not in run.stderr
    assert run.stderr == f"error: {path} line 4: joint 'elbow': unknown type 'hinge'; URDF joints are revolute, " \
                         "continuous, prismatic, fixed, floating, planar\n"


def test_cli_takes_the_import_options():
    """--floating-base adds the free joint (6 more DOF), --merge-fixed folds fixed links, warnings
    come as single lines; the options on a YAML file or a malformed --package-dir are user errors."""
    run = mechsim_cli("check", robot_file("solo12"), "--floating-base", "--package-dir", f"example-robot-data={ROBOTS}")
    assert run.returncode == 0, run.stderr
    assert "dof: 18" in run.stdout and "root_joint" in run.stdout
    assert all(line.startswith(("warning: ", "note: compiling")) for line in run.stderr.splitlines())
    assert "mesh file(s) not found" in run.stderr
    merged = mechsim_cli("check", ROBOTS / "panda.urdf", "--merge-fixed")
    plain = mechsim_cli("check", ROBOTS / "panda.urdf")
    assert merged.returncode == plain.returncode == 0
    assert "panda_link8" in plain.stdout and "panda_link8" not in merged.stdout.split("bodies:")[1].splitlines()[0]
    run = mechsim_cli("check", EXAMPLES / "four_bar.yaml", "--floating-base")
    assert run.returncode == 1 and run.stderr.startswith("error: ") and "robot descriptions (.urdf, .sdf, .xml) only" in run.stderr
    run = mechsim_cli("signals", ROBOTS / "ur5.urdf", "--package-dir", "nameonly")
    assert run.returncode == 1 and run.stderr == "error: --package-dir 'nameonly': expected NAME=PATH\n"


# ------------------------------------------------------------------------------ <gazebo> loop joints
from test_urdf_export import FOUR_BAR_YAML, as_four_bar_yaml, joint, link  # noqa: E402  (its four-bar pieces)


def gazebo_four_bar(tmp_path, closure):
    """four_bar.yaml in URDF (as tests/io/test_urdf_export.py writes it: each joint's origin carries its
    q0, so that all joints at zero are the YAML model's assembled configuration), the loop closed by the
    SDF joint ``closure`` in a <gazebo> block. Returns (path, q0 of the YAML model)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        q0 = {j.name: float(j.q0[0]) for j in ms.load(FOUR_BAR_YAML).joints.values()}
    parts = [link("crank", 1.0), link("coupler", 4.0), link("rocker", 2.5), '<link name="world"/>',
             joint("j1", "world", "crank", "0 0 0", q0["j1"]), joint("j2", "crank", "coupler", "1 0 0", q0["j2"]),
             joint("j4", "world", "rocker", "3 0 0", q0["j4"]), '<gazebo reference="rocker"><material>x</material>'
             '</gazebo>', f"<gazebo>{closure}</gazebo>"]
    path = tmp_path / "four_bar_gazebo.urdf"
    path.write_text('<robot name="four_bar">\n' + "\n".join(parts) + "\n</robot>\n")
    return path, q0


# j3 at the rocker's tip (2.5 0 0 in the rocker frame): the joint frame turned about z with the axis
# in it, or rolled about x with the axis (the z of the world) in the model frame
GAZEBO_J3 = ['<joint name="j3" type="revolute"><parent>coupler</parent><child>rocker</child>'
             '<pose>2.5 0 0 0 0 0.7</pose><axis><xyz>0 0 1</xyz></axis></joint>',
             '<joint name="j3" type="revolute"><parent>coupler</parent><child>rocker</child>'
             '<pose>2.5 0 0 0.4 0 0</pose><axis><xyz>0 0 1</xyz><use_parent_model_frame>1'
             '</use_parent_model_frame></axis></joint>']


@pytest.mark.parametrize("closure", GAZEBO_J3)
def test_gazebo_joint_closes_the_loop_as_the_yaml_four_bar(tmp_path, closure):
    """The <gazebo> joint j3 is a cut joint; the accelerations at the assembled state and 0.5 s of
    motion match the YAML four-bar's."""
    path, q0 = gazebo_four_bar(tmp_path, closure)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        m, reference = as_four_bar_yaml(ms.load(path)), ms.load(FOUR_BAR_YAML)
    assert m.joints["j3"].cut and m.joints["j3"].kind == "revolute"
    report = m.check()
    assert (report.cut_joints, report.dof, len(report.loops)) == (["j3"], 1, 1)
    names = m.coordinates()[1]
    assert sorted(names) == ["j1.v", "j2.v", "j4.v"]
    offset = np.array([q0[n[:2]] for n in names])
    order = [reference.coordinates()[1].index(n) for n in names]
    q_yaml = reference.initial_state().q[order]
    a = ms.forward_dynamics(m, q_yaml - offset, np.zeros(3))
    a_yaml = ms.forward_dynamics(reference, reference.initial_state().q, np.zeros(3))[order]
    assert np.abs(a - a_yaml).max() < 1e-9 * np.abs(a_yaml).max()
    options = dict(t_end=0.5, solver="DOP853", rtol=1e-11, atol=1e-11, t_eval=np.linspace(0, 0.5, 6))
    res, res_yaml = m.simulate(**options), reference.simulate(**options)
    for name in ("j1", "j4"):
        assert np.abs(res[f"{name}.q"] + q0[name] - res_yaml[f"{name}.q"]).max() < 1e-9
    assert np.ptp(res["j1.q"]) > 0.1          # it moves


def test_gazebo_joint_kinds_and_frames(tmp_path):
    """ball -> spherical; F on the parent is where M (the <pose> on the child) lies at zero: the
    coupler's tip, turned as the rocker's tip frame is relative to the coupler."""
    path, q0 = gazebo_four_bar(tmp_path, '<joint name="j3" type="ball"><parent>coupler</parent>'
                                         '<child>rocker</child><pose>2.5 0 0 0 0 0</pose></joint>')
    j3 = ms.load(path).joints["j3"]
    assert j3.kind == "spherical" and j3.cut
    angle = q0["j4"] - q0["j1"] - q0["j2"]          # the rocker's angle to the coupler at zero
    c, s = np.cos(angle), np.sin(angle)
    assert np.allclose(j3.parent_frame[0], [4, 0, 0], atol=1e-9)
    assert np.allclose(j3.parent_frame[1], [[c, -s, 0], [s, c, 0], [0, 0, 1]], atol=1e-12)
    assert np.allclose(j3.child_frame[0], [2.5, 0, 0]) and np.allclose(j3.child_frame[1], np.eye(3))


@pytest.mark.parametrize("change, message", [
    (("<parent>coupler</parent>", "<parent>couplr</parent>"), "<gazebo> joint 'j3': unknown parent link 'couplr'"),
    (("<child>rocker</child>", "<child>rockr</child>"), "<gazebo> joint 'j3': unknown child link 'rockr'"),
    (('type="revolute"', 'type="hinge"'), "<gazebo> joint 'j3': unknown type 'hinge'; the <gazebo> joints read are"),
    (("<child>rocker</child>", ""), r"<gazebo> joint 'j3': needs <child>link name</child>"),
    (("0 0 0.7</pose>", "0 0</pose>"), r"<gazebo> joint 'j3': <pose>2.5 0 0 0 0</pose>: expected 6 finite"),
    (('name="j3"', 'name="j2"'), "<gazebo> joint 'j2': the robot has a joint of that name already"),
])
def test_gazebo_joint_errors(tmp_path, change, message):
    path, _ = gazebo_four_bar(tmp_path, GAZEBO_J3[0].replace(*change))
    with pytest.raises(ModelError, match=r"four_bar_gazebo.urdf line 10: " + message):
        ms.load(path)
