"""URDF loops (io/urdf.py: loop-closing <joint>s and Drake's <drake:ball_constraint>, checked against
mechsim's own four-bar, examples/four_bar.yaml) and URDF export (io/urdf_export.py: ``m.to_urdf``),
checked by round trips URDF -> mechsim -> URDF -> mechsim that keep the dynamics, and by its refusals."""
import warnings
from pathlib import Path

import numpy as np
import pytest

import mechsim as ms
from mechsim.errors import ModelError
from mechsim.io.urdf import rpy_matrix
from mechsim.io.urdf_export import matrix_rpy

from robot_files import ROBOTS, robot_file
EXAMPLES = Path(__file__).parents[2] / "examples"
TOL = 1e-12           # relative agreement of a round trip


def load(path, **options):
    """A model from a file, the warnings about meshes not shipped and limits not simulated silenced."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return ms.load(path, **options)


def relative_error(actual, expected):
    return np.abs(actual - expected).max() / np.abs(expected).max()


# ------------------------------------------------------------------------------ the four-bar in URDF
FOUR_BAR_YAML = EXAMPLES / "four_bar.yaml"


def link(name, length):
    """A 1 kg slender link along x, frame at its proximal end (as in four_bar.yaml)."""
    i = length ** 2 / 12
    return (f'<link name="{name}"><inertial><origin xyz="{length / 2} 0 0"/><mass value="1"/>'
            f'<inertia ixx="0" ixy="0" ixz="0" iyy="{i!r}" iyz="0" izz="{i!r}"/></inertial></link>')


def joint(name, parent, child, xyz, yaw):
    return (f'<joint name="{name}" type="continuous"><parent link="{parent}"/><child link="{child}"/>'
            f'<origin xyz="{xyz}" rpy="0 0 {yaw!r}"/><axis xyz="0 0 1"/></joint>')


def four_bar_urdf(tmp_path, closure):
    """four_bar.yaml in URDF with the loop closed by ``closure`` ("joint": a second parent joint j3 of
    the rocker, "ball": a drake:ball_constraint between the coupler's and the rocker's tips). Each
    joint's origin carries its q0 from the YAML file, so that all joints at zero are the YAML model's
    assembled initial configuration."""
    q0 = {j.name: float(j.q0[0]) for j in load(FOUR_BAR_YAML).joints.values()}
    parts = [link("crank", 1.0), link("coupler", 4.0), link("rocker", 2.5), '<link name="world"/>',
             joint("j1", "world", "crank", "0 0 0", q0["j1"]), joint("j2", "crank", "coupler", "1 0 0", q0["j2"]),
             joint("j4", "world", "rocker", "3 0 0", q0["j4"])]
    if closure == "joint":
        parts.append(joint("j3", "coupler", "rocker", "4 0 0", q0["j3"]))
    else:
        parts.append('<drake:ball_constraint><drake:ball_constraint_body_A name="coupler"/>'
                     '<drake:ball_constraint_p_AP value="4 0 0"/><drake:ball_constraint_body_B name="rocker"/>'
                     '<drake:ball_constraint_p_BQ value="2.5 0 0"/></drake:ball_constraint>')
    path = tmp_path / f"four_bar_{closure}.urdf"
    path.write_text('<robot name="four_bar">\n' + "\n".join(parts) + "\n</robot>\n")
    return path, q0


def as_four_bar_yaml(m):
    """The URDF four-bar with four_bar.yaml's gravity (along -y) and crank motor."""
    m.gravity = (0, -9.81, 0)
    m.add_force("motor", "joint_force", joint="j1", value=6.0)
    return m


def test_loop_joint_becomes_a_cut_joint_moving_as_the_yaml_four_bar(tmp_path):
    """The second parent joint j3 of the rocker is a cut joint; the check lists the loop as for the
    YAML model, and the accelerations at the start and 0.5 s of motion match the YAML model's."""
    path, q0 = four_bar_urdf(tmp_path, "joint")
    m, reference = as_four_bar_yaml(load(path)), load(FOUR_BAR_YAML)
    assert m.joints["j3"].cut and not m.joints["j4"].cut
    report, expected = m.check(), reference.check()
    assert (report.cut_joints, report.dof, len(report.loops)) == (["j3"], expected.dof, 1) == (
        expected.cut_joints, 1, len(expected.loops))
    names = m.coordinates()[1]
    assert sorted(names) == ["j1.v", "j2.v", "j4.v"]      # a cut joint's coordinates are no states
    offset = np.array([q0[n[:2]] for n in names])
    order = [reference.coordinates()[1].index(n) for n in names]
    q_yaml = reference.initial_state().q[order]
    a = ms.forward_dynamics(m, q_yaml - offset, np.zeros(3))
    a_yaml = ms.forward_dynamics(reference, reference.initial_state().q, np.zeros(3))[order]
    assert relative_error(a, a_yaml) < 1e-12
    options = dict(t_end=0.5, solver="DOP853", rtol=1e-11, atol=1e-11, t_eval=np.linspace(0, 0.5, 6))
    res, res_yaml = m.simulate(**options), reference.simulate(**options)
    for name in ("j1", "j4"):
        assert np.abs(res[f"{name}.q"] + q0[name] - res_yaml[f"{name}.q"]).max() < 1e-9
    assert np.ptp(res["j1.q"]) > 0.1          # it moves


def test_ball_constraint_becomes_point_coincident(tmp_path):
    path, _ = four_bar_urdf(tmp_path, "ball")
    m = load(path)
    c = m.constraints["ball_constraint_1"]
    assert (c.kind, c.body_a, c.body_b) == ("point_coincident", "coupler", "rocker")
    assert np.array_equal(c.point_a, [4, 0, 0]) and np.array_equal(c.point_b, [2.5, 0, 0])
    report = m.check()          # as for a YAML model closed by a point_coincident constraint
    assert (report.dof, report.n_constraints, report.redundant) == (1, 3, ["ball_constraint_1[2]"])


def test_ball_constraint_on_merged_link_moves_to_its_body(tmp_path):
    """A point on a massless link fixed (at 1 0 0, turned 90 degrees about z) to the rocker is a point
    on the rocker: (0.5, 0, 0) on the tip link is (1, 0.5, 0) on the rocker."""
    path, _ = four_bar_urdf(tmp_path, "ball")
    text = path.read_text().replace('name="rocker"/>\n<drake', 'name="tip"/>\n<drake').replace(
        'name="rocker"/><drake:ball_constraint_p_BQ value="2.5 0 0"',
        'name="tip"/><drake:ball_constraint_p_BQ value="0.5 0 0"')
    text = text.replace("</robot>", '<link name="tip"/><joint name="tip_joint" type="fixed"><parent link="rocker"/>'
                                    '<child link="tip"/><origin xyz="1 0 0" rpy="0 0 1.5707963267948966"/></joint>'
                                    "</robot>")
    path.write_text(text)
    c = load(path).constraints["ball_constraint_1"]
    assert c.body_b == "rocker" and np.allclose(c.point_b, [1, 0.5, 0], atol=1e-15)


def test_loop_errors(tmp_path):
    path, _ = four_bar_urdf(tmp_path, "ball")
    text = path.read_text()
    path.write_text(text.replace('body_B name="rocker"', 'body_B name="rockr"'))
    with pytest.raises(ModelError, match=r"four_bar_ball.urdf line \d+: <drake:ball_constraint> 'ball_constraint_1': "
                                         "unknown link 'rockr'"):
        load(path)
    path.write_text(text.replace('<drake:ball_constraint_p_AP value="4 0 0"/>', ""))
    with pytest.raises(ModelError, match="needs <drake:ball_constraint_body_A .* <drake:ball_constraint_p_AP"):
        load(path)
    path.write_text(text.replace("</robot>", '<joint name="j5" type="floating"><parent link="crank"/>'
                                             '<child link="rocker"/></joint></robot>'))
    with pytest.raises(ModelError, match="joint 'j5': link 'rocker' already has the parent joint 'j4' .* a floating "
                                         "joint cannot close a loop"):
        load(path)


# ------------------------------------------------------------------------------ rpy
def test_rpy_inverts_rpy_matrix_at_random_rotations_and_gimbal_lock():
    rng = np.random.default_rng(3)
    rotations = [rpy_matrix(rng.uniform(-np.pi, np.pi, 3) * [1, 0.5, 1]) for _ in range(200)]
    rotations += [rpy_matrix([r, s * np.pi / 2 + e, y]) for r, y in rng.uniform(-np.pi, np.pi, (20, 2))
                  for s in (1, -1) for e in (0.0, 1e-9, -1e-9)]
    for R in rotations:
        rpy = matrix_rpy(R)
        assert np.abs(rpy_matrix(rpy) - R).max() < 1e-14
        assert abs(rpy[1]) <= np.pi / 2 + 1e-15
    assert np.allclose(matrix_rpy(rpy_matrix([0.3, -0.4, 2.5])), [0.3, -0.4, 2.5], atol=1e-15, rtol=0)
    assert np.allclose(matrix_rpy(rpy_matrix([0.0, np.pi / 2, 0.7])), [0, np.pi / 2, 0.7], atol=1e-15, rtol=0)


# ------------------------------------------------------------------------------ round trips
def random_state(m, rng):
    q_names, v_names = m.coordinates()
    q, v = rng.uniform(-1, 1, len(q_names)), rng.uniform(-1, 1, len(v_names))
    for k, name in enumerate(q_names):
        if name.endswith(".q[3]") and q_names[k + 3].endswith(".q[6]"):      # a free joint's quaternion
            q[k:k + 4] /= np.linalg.norm(q[k:k + 4])
    return q, v


def assert_same_dynamics(m, again, closed=False):
    """Forward dynamics, and for trees inverse dynamics and the mass matrix, agree at random states."""
    assert again.coordinates() == m.coordinates()
    rng = np.random.default_rng(7)
    for _ in range(4):
        q, v = random_state(m, rng)
        tau = rng.uniform(-5, 5, len(v))
        assert relative_error(ms.forward_dynamics(again, q, v, tau), ms.forward_dynamics(m, q, v, tau)) < TOL
        assert relative_error(ms.mass_matrix(again, q), ms.mass_matrix(m, q)) < TOL
        if not closed:
            a = rng.uniform(-1, 1, len(v))
            assert relative_error(ms.inverse_dynamics(again, q, v, a), ms.inverse_dynamics(m, q, v, a)) < TOL


@pytest.mark.parametrize("name, floating_base", [("ur5", False), ("panda", False), ("solo12", True)])
def test_robot_round_trips_through_urdf(tmp_path, name, floating_base):
    m = load(robot_file(name), floating_base=floating_base)
    m.to_urdf(tmp_path / "again.urdf")
    again = load(tmp_path / "again.urdf")
    assert_same_dynamics(m, again, closed=bool(m.constraints))
    assert sorted(again.forces) == sorted(m.forces) and sorted(again.constraints) == sorted(m.constraints)
    assert again.urdf_limits == m.urdf_limits
    for body in m.bodies:
        assert again.bodies[body].frames.keys() == m.bodies[body].frames.keys()


def test_panda_mimic_round_trips(tmp_path):
    """The finger gear is written as <mimic> and read back, and the constrained dynamics agree."""
    m = load(ROBOTS / "panda.urdf")
    gear = m.constraints["panda_finger_joint2_mimic"]
    m.to_urdf(tmp_path / "again.urdf")
    assert '<mimic joint="panda_finger_joint1" multiplier="1.0" offset="0.0"' in (tmp_path / "again.urdf").read_text()
    again = load(tmp_path / "again.urdf")
    assert again.constraints["panda_finger_joint2_mimic"].joints == gear.joints
    assert_same_dynamics(m, again, closed=True)


def test_shifted_joint_frames_are_re_expressed(tmp_path):
    """A joint whose frame M on the child is not the child's body frame: the link is written in M,
    its inertial, geometry, frames and the joints on it moved there, keeping the dynamics."""
    m = ms.Model("shifted", gravity=(0, 0, -9.81))
    m.add_body("a", mass=2.0, com=(0.1, 0.2, 0.3), inertia=(0.3, 0.2, 0.25, 0.01, -0.02, 0.03),
               frames={"mark": ((0.5, 0, 0), {"euler": [0.1, 0.2, 0.3]})},
               geometry=[{"role": "visual", "kind": "box", "size": [1, 2, 3],
                          "pose": {"position": [0, 0, 1], "rotation": np.eye(3).tolist()}}])
    m.add_body("b", mass=1.0, com=(0, 0.1, 0), inertia=(0.1, 0.2, 0.3))
    m.add_joint("ja", "revolute", "ground", "a", parent_frame=((0, 0, 1), {"euler": [0.4, 0, 0]}),
                child_frame=((0.3, -0.2, 0.1), {"euler": [0, 0.5, 1.0]}), axis=(0, 1, 1))
    m.add_joint("jb", "prismatic", "a", "b", parent_frame="mark", child_frame=((0.2, 0, 0), {"euler": [1, 0, 0]}),
                axis=(1, 0, 0))
    m.add_force("jb_damping", "joint_spring_damper", joint="jb", damping=0.7)
    m.to_urdf(tmp_path / "shifted.urdf")
    again = load(tmp_path / "shifted.urdf")
    assert_same_dynamics(m, again)
    shift = m.joints["ja"].child_pose
    box = again.bodies["a"].geometry[0]["pose"]
    assert np.allclose(np.array(box["position"]), shift[1].T @ (np.array([0, 0, 1]) - shift[0]), atol=1e-14)
    m.add_body("c", mass=1.5, com=(0.1, 0, 0), inertia=(0.1, 0.2, 0.15))
    m.add_joint("jc", "free", "ground", "c", child_frame=((0.1, 0.2, 0.3), {"euler": [0.3, 0.2, 0.1]}))
    m.add_constraint("pin", "point_coincident", body_a="a", point_a=(0.3, 0.2, 0.1), body_b="c", point_b=(0, 0.4, 0))
    m.to_urdf(tmp_path / "pinned.urdf")          # the points follow the link frames too
    assert_same_dynamics(m, load(tmp_path / "pinned.urdf"), closed=True)


def test_four_bar_with_ball_constraint_round_trips(tmp_path):
    path, _ = four_bar_urdf(tmp_path, "ball")
    m = load(path)
    m.to_urdf(tmp_path / "again.urdf")
    again = load(tmp_path / "again.urdf")
    assert again.constraints["ball_constraint_1"].kind == "point_coincident"
    assert_same_dynamics(m, again, closed=True)


def test_four_bar_with_cut_joint_round_trips(tmp_path):
    path, _ = four_bar_urdf(tmp_path, "joint")
    m = load(path)
    m.to_urdf(tmp_path / "again.urdf")
    again = load(tmp_path / "again.urdf")
    assert again.check().cut_joints == ["j3"]
    assert_same_dynamics(m, again, closed=True)


def test_imported_robot_round_trips_through_yaml(tmp_path):
    m = load(robot_file("solo12"), floating_base=True)
    m.to_yaml(tmp_path / "solo12.yaml")
    assert_same_dynamics(m, ms.load(tmp_path / "solo12.yaml"))
    path, _ = four_bar_urdf(tmp_path, "ball")
    m = load(path)
    m.to_yaml(tmp_path / "four_bar.yaml")
    assert_same_dynamics(m, ms.load(tmp_path / "four_bar.yaml"), closed=True)


# ------------------------------------------------------------------------------ refusals
def small_model():
    m = ms.Model("small", gravity=(0, 0, -9.81))
    m.add_body("a", mass=1.0, inertia=(0.1, 0.1, 0.1))
    m.add_body("b", mass=1.0, inertia=(0.1, 0.1, 0.1))
    m.add_joint("ja", "revolute", "ground", "a", axis=(0, 0, 1))
    return m


@pytest.mark.parametrize("change, message", [
    (lambda m: m.add_joint("ball", "spherical", "a", "b"), "joint 'ball' is spherical, which URDF cannot hold; URDF "
                                                           "holds revolute"),
    (lambda m: (m.add_joint("jb", "revolute", "a", "b"), m.add_constraint(
        "rod", "distance", body_a="ground", body_b="b", point_b=(1, 0, 0), length=2.0)),
     "constraint 'rod' is distance, which URDF cannot hold"),
    (lambda m: (m.add_joint("jb", "revolute", "a", "b"), m.add_driver("jb", position="sin(t)")),
     "driver 'jb': URDF cannot hold drivers"),
    (lambda m: (m.add_joint("jb", "revolute", "a", "b"), m.add_force("spring", "joint_spring_damper", joint="jb",
                                                                      stiffness=3.0)),
     r"force 'spring' \(joint_spring_damper\) is not a joint damper"),
    (lambda m: (m.add_joint("jb", "revolute", "a", "b"),
                setattr(m.bodies["b"], "geometry", {"kind": "capsule", "radius": 1, "length": 2})),
     "body 'b': a capsule is not a box, cylinder, sphere or mesh file"),
    (lambda m: (m.add_joint("jb", "revolute", "a", "b"), setattr(m, "gravity", (0, -9.81, 0))),
     r"gravity \(0.0, -9.81, 0.0\) is not URDF's"),
    (lambda m: (m.add_joint("jb", "revolute", "a", "b"), m.add_joint("jc", "revolute", "ground", "b", cut=True,
                                                                      parent_frame=(0, 0, 1))),
     "cut joint 'jc': URDF has no loops, .* its frames are apart there"),
])
def test_refusals_name_the_item(tmp_path, change, message):
    m = small_model()
    change(m)
    with pytest.raises(ModelError, match=f"to_urdf: .*{message}"):
        m.to_urdf(tmp_path / "x.urdf")
    assert not (tmp_path / "x.urdf").exists()
    small = small_model()
    small.add_joint("jb", "revolute", "a", "b")
    small.to_urdf(tmp_path / "x.urdf")          # the same model without the item is written
