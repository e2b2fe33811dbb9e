"""SDF import (SPEC C10): Cassie (tests/data/robots, README.md there) with its four ball-joint loop
closures, its tree dynamics against Pinocchio, link poses against the file, a four-bar closed by a
revolute cut joint against examples/four_bar.yaml, and errors that name the file and the line."""
import textwrap
import warnings
from pathlib import Path
from xml.etree import ElementTree as ET

import numpy as np
import pytest

import mechsim as ms
from mechsim.dynamics.api import constraint_values
from mechsim.errors import ModelError
from mechsim.io.sdf import load_sdf

ROBOTS = Path(__file__).parents[1] / "data" / "robots"
EXAMPLES = Path(__file__).parents[2] / "examples"
CASSIE = ROBOTS / "cassie_v2.sdf"
BALL_JOINTS = ["left-pitch-rod-joint", "right-pitch-rod-joint", "right-plantar-foot-joint", "left-plantar-foot-joint"]


def cassie(limits=False, **options):
    """Cassie (its meshes are not shipped: that warning is expected), by default at the file's pose, which
    lies outside the limits of four joints (limits=False)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return load_sdf(CASSIE, limits=limits, **options)


def write(tmp_path, text, name="model.sdf"):
    path = tmp_path / name
    path.write_text(textwrap.dedent(text).lstrip())
    return path


def relative_error(actual, expected):
    return np.abs(actual - expected).max() / np.abs(expected).max()


# ------------------------------------------------------------------------------ Cassie's loops
def test_cassie_loops_rank_and_dof():
    """4 ball joints close 4 loops: 12 equations of rank 10, so 18 DOF with the floating base. At the
    file's pose, which closes the loops, one equation of each plantar loop is redundant, one of them
    with a singular value of only 2.3e-12 relative to the largest: it must count as redundant."""
    m = cassie(floating_base=True)
    report = m.check()
    assert sorted(report.cut_joints) == sorted(BALL_JOINTS)
    assert all(m.joints[name].kind == "spherical" for name in BALL_JOINTS)
    assert len(report.loops) == 4 and report.n_constraints == 12
    assert report.dof == 18 and len(report.redundant) == 2
    state = m.assemble()
    assert state.analysis.rank == 10 and state.analysis.dof == 18
    assert np.abs(state.q - m.initial_state().q).max() < 1e-12      # the file's pose closes the loops
    G = constraint_values(m.compile(), state.q, state.v)[2]
    singular = np.linalg.svd(G, compute_uv=False)
    singular /= singular[0]
    assert singular[9] > 1e-4 and 1e-12 < singular[10] < 1e-11      # 7.2e-4, then 2.3e-12: redundant


def test_cassie_link_poses_are_the_file_poses():
    """At q = 0 every link frame is at its <pose> in the model frame (1e-12): the joint frames F and M
    composed from the link poses and the joints' poses in the child frames."""
    m = cassie()
    res = m.simulate(t_end=1e-9, t_eval=[0.0, 1e-9])
    model = ET.parse(CASSIE).getroot().find("model")
    for link in model.findall("link"):
        x, y, z, roll, pitch, yaw = map(float, link.find("pose").text.split())
        name = link.get("name")
        assert np.abs(res[f"{name}.position"][0] - [x, y, z]).max() < 1e-12, name
        expected = ms.io.urdf.rpy_matrix(np.array([roll, pitch, yaw]))
        assert np.abs(res[f"{name}.rotation"][0] - expected).max() < 1e-12, name


def test_cassie_mass_and_limits_read():
    m = cassie()
    assert m.bodies["pelvis"].mass == 10.33
    assert np.allclose(m.bodies["pelvis"].com, [0.05066, 0.000346, 0.02841])
    assert m.urdf_limits["left-roll-op"] == {"lower": -0.2618, "upper": 0.3491}
    assert not [f for f in m.forces.values() if f.kind == "joint_limit"]


def test_cassie_limits_become_stops():
    """With limits (the default) every tree joint's <limit> is a rigid stop; the four joints whose zero
    lies outside their limits start at the nearest limit, which a warning says."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        m = load_sdf(CASSIE)
    stop = m.forces["left-roll-op_limit"]
    assert stop.kind == "joint_limit" and stop.rigid and (stop.lower, stop.upper) == (-0.2618, 0.3491)
    moved = [str(w.message) for w in caught if "start at the limit nearest" in str(w.message)]
    assert len(moved) == 1 and "left-foot-op = -0.6109" in moved[0]
    assert m.joints["left-foot-op"].q0[0] == -0.6109 and m.joints["left-roll-op"].q0[0] == 0.0
    assert m.forces["left-roll-op_damping"].damping == 1.0


# ------------------------------------------------------------------------------ against Pinocchio
def pinocchio_tree(path):
    """Pinocchio's model of the SDF's spanning tree (free flyer on the first link), built here from the
    raw file with Pinocchio's own SE3 and rpy algebra (this Pinocchio has no SDFormat parser); each cut
    joint (one whose child already hangs from the tree) is left out, its frames kept as the Pinocchio
    frames '<joint>.parent' (on its parent link) and '<joint>.child' (on its child link)."""
    pin = pytest.importorskip("pinocchio")
    model = ET.parse(path).getroot().find("model")

    def pose(element):
        e = element.find("pose")
        values = np.zeros(6) if e is None else np.array(e.text.split(), dtype=float)
        return pin.SE3(pin.rpy.rpyToMatrix(*values[3:]), values[:3])

    def inertia(link):
        inertial = link.find("inertial")
        t = {e.tag: float(e.text) for e in inertial.find("inertia")}
        tensor = np.array([[t["ixx"], t["ixy"], t["ixz"]], [t["ixy"], t["iyy"], t["iyz"]],
                           [t["ixz"], t["iyz"], t["izz"]]])
        X = pose(inertial)
        return pin.Inertia(float(inertial.find("mass").text), X.translation, X.rotation @ tensor @ X.rotation.T)

    links = {link.get("name"): link for link in model.findall("link")}
    world = {name: pose(link) for name, link in links.items()}
    pm = pin.Model()
    root = next(iter(links))
    joint_of = {root: pm.addJoint(0, pin.JointModelFreeFlyer(), world[root], "root_joint")}
    pm.appendBodyToJoint(joint_of[root], inertia(links[root]), pin.SE3.Identity())
    link_in_joint = {root: pin.SE3.Identity()}
    claimed, tree, cuts = {root}, [], []
    for joint in model.findall("joint"):
        child = joint.find("child").text
        (cuts if child in claimed else tree).append(joint)
        claimed.add(child)

    def add_subtree(parent):
        """Depth first: Pinocchio's crba takes the velocities of every subtree to be contiguous."""
        for joint in (j for j in tree if j.find("parent").text == parent):
            child, X_cj = joint.find("child").text, pose(joint)
            axis = np.array(joint.find("axis").find("xyz").text.split(), dtype=float)
            jid = pm.addJoint(joint_of[parent], pin.JointModelRevoluteUnaligned(axis / np.linalg.norm(axis)),
                              world[parent].inverse() * world[child] * X_cj, joint.get("name"))
            pm.appendBodyToJoint(jid, inertia(links[child]), X_cj.inverse())
            damping = joint.find("axis/dynamics/damping")
            pm.damping[pm.joints[jid].idx_v] = 0.0 if damping is None else float(damping.text)
            joint_of[child], link_in_joint[child] = jid, X_cj.inverse()
            add_subtree(child)

    add_subtree(root)
    for joint in cuts:
        parent, child = joint.find("parent").text, joint.find("child").text
        X_cj = pose(joint)
        for side, link, X_link_frame in (("parent", parent, world[parent].inverse() * world[child] * X_cj),
                                          ("child", child, X_cj)):
            pm.addFrame(pin.Frame(f"{joint.get('name')}.{side}", joint_of[link], link_in_joint[link] * X_link_frame,
                                  pin.FrameType.OP_FRAME))
    return pin, pm, pm.createData()


def pinocchio_mass_matrix(pin, pm, pd, qp):
    """M from pin.crba, symmetrized from its upper triangle: the part crba computes (the Python binding
    of some Pinocchio versions returns it as is)."""
    M = pin.crba(pm, pd, qp)
    return np.triu(M) + np.triu(M, 1).T


def pinocchio_closed_accelerations(pin, pm, pd, qp, vp, tau):
    """Pinocchio's accelerations of the tree of pinocchio_tree with its cut ball joints closed: each
    joins the point of its frame on its parent link A to the same point on its child link B, so
    J a = -Jdot v with J = J_A - J_B (the points' linear velocity Jacobians, LOCAL_WORLD_ALIGNED) and
    Jdot v = acc_A - acc_B (their classical accelerations at a = 0), and M a + h = tau - D v + J^T lambda
    (h = rnea(q, v, 0)). Cassie's 12 rows have rank 10, so the KKT system [[M, J^T], [J, 0]] is
    singular: it is solved by the null-space method (e.g. Featherstone, Rigid Body Dynamics
    Algorithms, 2008, sec. 8.5): a = a_p + N z, a_p the least-squares solution of J a_p = -Jdot v and
    N an orthonormal basis of J's null space, z from N^T (M (a_p + N z) + h - tau + D v) = 0."""
    pin.computeJointJacobians(pm, pd, qp)
    pin.forwardKinematics(pm, pd, qp, vp, np.zeros(pm.nv))
    pin.updateFramePlacements(pm, pd)
    world = pin.ReferenceFrame.LOCAL_WORLD_ALIGNED
    sides = [(pm.getFrameId(f"{name}.parent"), pm.getFrameId(f"{name}.child"))
             for name in (frame.name[:-len(".parent")] for frame in pm.frames if frame.name.endswith(".parent"))]
    J = np.vstack([pin.getFrameJacobian(pm, pd, a, world)[:3] - pin.getFrameJacobian(pm, pd, b, world)[:3]
                   for a, b in sides])
    Jdot_v = np.concatenate([pin.getFrameClassicalAcceleration(pm, pd, a, world).linear
                             - pin.getFrameClassicalAcceleration(pm, pd, b, world).linear for a, b in sides])
    U, s, Vt = np.linalg.svd(J)
    rank = int(np.sum(s > 1e-9 * s[0]))
    a_p = Vt[:rank].T @ (U[:, :rank].T @ -Jdot_v / s[:rank])
    N = Vt[rank:].T
    M = pinocchio_mass_matrix(pin, pm, pd, qp)
    h = pin.rnea(pm, pd, qp, vp, np.zeros(pm.nv))
    z = np.linalg.solve(N.T @ M @ N, N.T @ (tau - pm.damping * vp - h - M @ a_p))
    return a_p + N @ z, rank


def spring_torques(m, q):
    """The joint springs' generalized forces -k (q - rest) (<spring_stiffness>), mechsim's coordinates:
    the Pinocchio side takes them as applied torques."""
    q_names, v_names = m.coordinates()
    tau = np.zeros(len(v_names))
    for force in m.forces.values():
        spring = force.opts
        if force.kind == "joint_spring_damper" and spring.get("stiffness", 0.0):
            angle = q[q_names.index(f"{spring['joint']}.q")]
            tau[v_names.index(f"{spring['joint']}.v")] -= spring["stiffness"] * (angle - spring.get("rest", 0.0))
    return tau


@pytest.mark.reference
def test_cassie_tree_dynamics_match_pinocchio():
    """Forward dynamics (dampers and springs included) and the mass matrix of Cassie's open tree (loops=False)
    at random states, to 1e-10 relative; the mass matrix also of the closed model (tree-only)."""
    from robot_files import random_state
    from test_urdf import free_flyer_bias, pinocchio_state
    pin, pm, pd = pinocchio_tree(CASSIE)
    m = cassie(floating_base=True, loops=False)
    assert not m.check().cut_joints and len(m.coordinates()[1]) == pm.nv == 6 + 22
    rng = np.random.default_rng(3)
    for _ in range(4):
        q, v = random_state(m, rng)
        qp, vp, P = pinocchio_state(m, pm, q, v)
        tau = rng.uniform(-5, 5, len(v))
        applied = P.T @ (tau + spring_torques(m, q)) - pm.damping * vp
        expected = P @ pin.aba(pm, pd, qp, vp, applied) + free_flyer_bias(m, P, vp)
        assert relative_error(ms.forward_dynamics(m, q, v, tau), expected) < 1e-10
        M = pinocchio_mass_matrix(pin, pm, pd, qp)
        assert relative_error(ms.mass_matrix(m, q), P @ M @ P.T) < 1e-10
        assert relative_error(ms.mass_matrix(cassie(floating_base=True), q), P @ M @ P.T) < 1e-10


@pytest.mark.reference
def test_cassie_closed_loop_accelerations_match_pinocchio_kkt():
    """Forward dynamics of Cassie with its 4 loops closed (floating base, dampers and springs included) at
    assembled states and random forces, against the KKT solve of pinocchio_closed_accelerations to
    1e-8 relative. The states: random angles (every revolute joint, the foot loops' too: the assembly
    must step over their nearly redundant row) and random velocities."""
    from test_urdf import free_flyer_bias, pinocchio_state
    pin, pm, pd = pinocchio_tree(CASSIE)
    m = cassie(floating_base=True)
    rng = np.random.default_rng(7)
    for _ in range(3):
        for name, joint in m.joints.items():
            if joint.kind == "revolute":
                joint.q0 = rng.uniform(-0.2, 0.2)
                joint.v0 = rng.uniform(-2, 2)
        m.joints["root_joint"].v0 = rng.uniform(-1, 1, 6)
        state = m.assemble()
        q, v = state.q, state.v
        g, Gv, _ = constraint_values(m.compile(), q, v)
        # the nearly redundant plantar rows close to the assembly's 1e-9 (only nearly dependent away from the
        # reference pose, they would need a large motion along a singular value 2e-12 to close exactly)
        active = state.analysis.active
        assert np.abs(g[active]).max() < 1e-12 and np.abs(Gv[active]).max() < 1e-12 and np.abs(v).max() > 0.5
        assert np.abs(g).max() < 1e-9 and np.abs(Gv).max() < 1e-8
        tau = rng.uniform(-5, 5, len(v))
        qp, vp, P = pinocchio_state(m, pm, q, v)
        a, rank = pinocchio_closed_accelerations(pin, pm, pd, qp, vp, P.T @ (tau + spring_torques(m, q)))
        assert rank == 10
        assert relative_error(ms.forward_dynamics(m, q, v, tau), P @ a + free_flyer_bias(m, P, vp)) < 1e-8


# ------------------------------------------------------------------------------ a four-bar
THETA, ALPHA, PHI = 1.5708, 0.35328124609, 1.26485956353     # examples/four_bar.yaml's assembled angles


def four_bar_sdf(tmp_path):
    """examples/four_bar.yaml in SDF, turned by +90 deg about x so that its gravity -y is SDF's -z: its
    z axes are -y here, its angles pitches of -angle; the links at the assembled pose, j3 the cut."""
    def link(name, pose, length):
        inertia = length ** 2 / 12
        return f"""
          <link name="{name}"><pose>{pose}</pose>
            <inertial><pose>{length / 2} 0 0 0 0 0</pose><mass>1</mass>
              <inertia><ixx>0</ixx><iyy>{inertia!r}</iyy><izz>{inertia!r}</izz>
                <ixy>0</ixy><ixz>0</ixz><iyz>0</iyz></inertia>
            </inertial>
          </link>"""

    def joint(name, parent, child, pose="0 0 0 0 0 0"):
        return f"""
          <joint name="{name}" type="revolute"><parent>{parent}</parent><child>{child}</child><pose>{pose}</pose>
            <axis><xyz>0 -1 0</xyz></axis>
          </joint>"""

    body = (link("crank", f"0 0 0 0 {-THETA!r} 0", 1.0)
            + link("coupler", f"{float(np.cos(THETA))!r} 0 {float(np.sin(THETA))!r} 0 {-ALPHA!r} 0", 4.0)
            + link("rocker", f"3 0 0 0 {-PHI!r} 0", 2.5)
            + joint("j1", "world", "crank") + joint("j2", "crank", "coupler") + joint("j4", "world", "rocker")
            + joint("j3", "coupler", "rocker", "2.5 0 0 0 0 0"))
    return write(tmp_path, f'<sdf version="1.6"><model name="four_bar">{body}</model></sdf>')


def test_four_bar_moves_as_the_yaml_model(tmp_path):
    """Same motion as examples/four_bar.yaml under gravity and its 6 N m crank torque over 1 s (the SDF
    angles being the YAML ones less their assembled values)."""
    m = load_sdf(four_bar_sdf(tmp_path))
    report = m.check()
    assert report.cut_joints == ["j3"] and report.dof == 1
    m.add_force("motor", "joint_force", joint="j1", value=6.0)
    reference = ms.load(EXAMPLES / "four_bar.yaml")
    options = dict(t_end=1.0, t_eval=np.linspace(0, 1, 11), solver="DOP853", rtol=1e-11, atol=1e-11)
    res, ref = m.simulate(**options), reference.simulate(**options)
    for name, offset in (("j1", THETA), ("j2", ALPHA - THETA), ("j4", PHI)):
        assert np.abs(res[f"{name}.q"] + offset - ref[f"{name}.q"]).max() < 1e-7, name
    assert np.abs(ref["j1.q"][-1] - THETA) > 0.5          # it moved


def test_joints_named_as_links_with_dots_and_spaces_give_the_same_model(tmp_path):
    """SDF keeps links and joints in separate name spaces (SPEC C15): the four-bar with each joint named after its
    child link, the cut joint with a dot and a space, moves as the one with its own joint names."""
    path = four_bar_sdf(tmp_path)
    renamed = {"j1": "crank", "j2": "coupler", "j4": "rocker", "j3": "rocker pin.3"}
    text = path.read_text()
    for old, new in renamed.items():
        text = text.replace(f'name="{old}"', f'name="{new}"')
    same = load_sdf(write(tmp_path, text, "renamed.sdf"))
    assert same.check().cut_joints == ["rocker pin.3"] and {"crank", "coupler", "rocker"} <= set(same.bodies)
    options = dict(t_end=0.5, t_eval=np.linspace(0, 0.5, 6), solver="DOP853", rtol=1e-10, atol=1e-10)
    res, ref = same.simulate(**options), load_sdf(path).simulate(**options)
    for old, new in renamed.items():
        assert np.abs(res[f"{new}.q"] - ref[f"{old}.q"]).max() < 1e-12, new
    assert np.abs(res["crank.position"] - ref["crank.position"]).max() < 1e-12


# ------------------------------------------------------------------------------ errors
LINK = "<link name='{}'><inertial><mass>1</mass></inertial></link>"


@pytest.mark.parametrize("text, line, words", [
    ("<sdf version='1.6'>\n<model name='m'>\n<link name='a'>\n</model></sdf>", 4, "malformed XML"),
    ("<sdf version='1.6'><model name='m'>\n" + LINK.format("a") + LINK.format("b")
     + "\n<joint name='j' type='hinge'><parent>a</parent><child>b</child></joint>\n</model></sdf>",
     3, "joint 'j': unknown type 'hinge'"),
    ("<sdf version='1.6'><model name='m'>\n" + LINK.format("a")
     + "\n<joint name='j' type='revolute'><parent>a</parent>\n<child>b</child></joint>\n</model></sdf>",
     4, "unknown child link 'b'"),
    ("<sdf version='1.6'><model name='m'>\n<link name='a'>\n<pose>0 0 1</pose></link>\n</model></sdf>",
     3, "expected 6 finite number(s)"),
    ("<robot name='r'/>", 1, "expected an <sdf> element"),
])
def test_bad_files_name_the_line(tmp_path, text, line, words):
    path = write(tmp_path, text)
    with pytest.raises(ModelError) as info:
        load_sdf(path)
    assert f"{path} line {line}:" in str(info.value) and words in str(info.value)


def test_sdf_1_7_frames_give_the_1_6_model(tmp_path):
    """A link pose relative_to another link, a joint pose relative_to __model__ and an axis
    expressed_in __model__ (SDF 1.7) give the joint of the same model written in SDF 1.6."""
    inertial = "<inertial><mass>1</mass></inertial>"
    old = write(tmp_path, f"""<sdf version='1.6'><model name='m'><link name='a'>{inertial}</link>
        <link name='b'><pose>1 0 0 0 0 1.5707963267948966</pose>{inertial}</link>
        <joint name='j' type='revolute'><parent>a</parent><child>b</child><pose>0.5 0 0 0 0 0</pose>
        <axis><xyz>1 0 0</xyz></axis></joint></model></sdf>""", "old.sdf")
    new = write(tmp_path, f"""<sdf version='1.7'><model name='m'><link name='a'>{inertial}</link>
        <link name='b'><pose relative_to='a'>1 0 0 0 0 1.5707963267948966</pose>{inertial}</link>
        <joint name='j' type='revolute'><parent>a</parent><child>b</child>
        <pose relative_to='__model__'>1 0.5 0 0 0 1.5707963267948966</pose>
        <axis><xyz expressed_in='__model__'>0 1 0</xyz></axis></joint></model></sdf>""", "new.sdf")
    a, b = load_sdf(old).joints["j"], load_sdf(new).joints["j"]
    for pose in ("parent_pose", "child_pose"):
        assert all(np.allclose(x, y, atol=1e-15) for x, y in zip(getattr(a, pose), getattr(b, pose)))
    assert np.allclose(a.options["axis"], [1, 0, 0]) and np.allclose(b.options["axis"], [1, 0, 0], atol=1e-15)


def test_load_and_the_command_line_reach_the_sdf_importer():
    """ms.load and `mechsim check` read .sdf with the importer's options; an option it does not take
    is refused by name."""
    import subprocess
    import sys
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        m = ms.load(CASSIE, floating_base=True)
    assert "root_joint" in m.joints and len([j for j in m.joints.values() if j.cut]) == 4
    with pytest.raises(ModelError, match="merge_fixed"):
        ms.load(CASSIE, merge_fixed=True)
    run = subprocess.run([sys.executable, "-m", "mechsim", "check", str(CASSIE), "--floating-base"],
                         capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    assert "dof: 18" in run.stdout and all(line.startswith("warning: ") for line in run.stderr.splitlines())


def test_cassie_springs_are_read():
    """<spring_stiffness> about <spring_reference> with the <damping> of the same axis: the shin and
    heel springs (1500 and 1250 N m/rad in the file)."""
    m = cassie()
    springs = {name: f.opts for name, f in m.forces.items() if name.endswith("_spring")}
    stiffness = sorted(float(np.ravel(o["stiffness"])[0]) for o in springs.values())
    assert stiffness == [1250.0, 1250.0, 1500.0, 1500.0]
    assert all(float(np.ravel(o["rest"])[0]) == 0.0 for o in springs.values())


def test_an_inertia_no_rigid_body_has_is_corrected_and_said_so(tmp_path):
    """Moments (0.1, 0.1, 0.3) break I1 + I2 >= I3 by 0.1: the nearest a rigid body has is (2/15, 2/15, 4/15)
    (the violation over the normal (1, 1, -1), shared out), with one warning naming the link."""
    path = write(tmp_path, """<sdf version='1.6'><model name='m'><link name='a'><inertial><mass>1</mass>
        <inertia><ixx>0.1</ixx><iyy>0.1</iyy><izz>0.3</izz><ixy>0</ixy><ixz>0</ixz><iyz>0</iyz></inertia>
        </inertial></link></model></sdf>""")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        m = load_sdf(path)
    [said] = [str(w.message) for w in caught]
    assert said.startswith(f"{path}: 1 link inertia(s) that no rigid body has: 'a' (principal moments")
    np.testing.assert_allclose(m.bodies["a"].inertia, np.diag([2 / 15, 2 / 15, 4 / 15]), atol=1e-15)
    given, used = m.corrected_inertias["a"]
    np.testing.assert_array_equal(given, np.diag([0.1, 0.1, 0.3]))
    np.testing.assert_array_equal(used, m.bodies["a"].inertia)
