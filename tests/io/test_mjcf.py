"""MJCF import through MuJoCo (SPEC C10): small models written inline, mechsim's mass matrix and
forward dynamics against MuJoCo's own (contacts disabled), closed loops against a KKT solve built
from MuJoCo's mass matrix, bias forces and Jacobians, and the errors."""
import builtins
import sys
import warnings

import numpy as np
import pytest

import mechsim as ms
from mechsim.dynamics.api import constraint_values
from mechsim.errors import ModelError
from mechsim.io.mjcf import load_mjcf
from mechsim.modeling.names import split_index

mujoco = pytest.importorskip("mujoco")

TOL = 1e-9      # relative agreement with MuJoCo
HEAD = '<mujoco><compiler angle="radian"/><option><flag contact="disable"/></option>'


def write(tmp_path, body, equality="", head=HEAD):
    path = tmp_path / "model.xml"
    path.write_text(f"{head}<worldbody>{body}</worldbody><equality>{equality}</equality></mujoco>")
    return path


def both(path, **options):
    """(mechsim model, MuJoCo model, MjData) of one file."""
    mj = mujoco.MjModel.from_xml_path(str(path))
    return load_mjcf(path, **options), mj, mujoco.MjData(mj)


def index_maps(m, mj):
    """Indices into MuJoCo's qpos and qvel of mechsim's q and v entries (matched by joint name)."""
    def index(name, addresses):
        base, i = split_index(name)
        joint = base.rpartition(".")[0]
        return addresses[mujoco.mj_name2id(mj, mujoco.mjtObj.mjOBJ_JOINT, joint)] + (i or 0)
    q_names, v_names = m.coordinates()
    return (np.array([index(n, mj.jnt_qposadr) for n in q_names]),
            np.array([index(n, mj.jnt_dofadr) for n in v_names]))


def random_state(mj, rng):
    """A random qpos (unit quaternions for ball and free joints) and qvel."""
    qpos = mj.qpos0 + rng.uniform(-1, 1, mj.nq)
    for j in range(mj.njnt):
        a = mj.jnt_qposadr[j] + (3 if mj.jnt_type[j] == mujoco.mjtJoint.mjJNT_FREE else 0)
        if mj.jnt_type[j] in (mujoco.mjtJoint.mjJNT_FREE, mujoco.mjtJoint.mjJNT_BALL):
            qpos[a:a + 4] /= np.linalg.norm(qpos[a:a + 4])
    return qpos, rng.uniform(-2, 2, mj.nv)


def assert_close(actual, expected, tol=TOL):
    scale = max(1.0, np.abs(expected).max())
    assert np.abs(actual - expected).max() <= tol * scale, (actual, expected)


def assert_open_chain_matches(path, states=3, tol=TOL, **options):
    """Mass matrix and accelerations equal MuJoCo's at random states; q0 equals qpos0."""
    m, mj, d = both(path, **options)
    iq, iv = index_maps(m, mj)
    assert sorted(iv) == list(range(mj.nv)) and sorted(iq) == list(range(mj.nq))
    assert_close(m.initial_state().q, mj.qpos0[iq], 1e-12)
    rng = np.random.default_rng(7)
    for _ in range(states):
        d.qpos[:], d.qvel[:] = random_state(mj, rng)
        mujoco.mj_forward(mj, d)
        M = np.zeros((mj.nv, mj.nv))
        mujoco.mj_fullM(mj, d, M)
        assert_close(ms.mass_matrix(m, d.qpos[iq]), M[np.ix_(iv, iv)], tol)
        assert_close(ms.forward_dynamics(m, d.qpos[iq], d.qvel[iv]), d.qacc[iv], tol)
    return m, mj, d


# ------------------------------------------------------------------------------------ open chains
PENDULUM = """
<body name="upper" pos="0.1 0.2 1.0" quat="0.9 0.1 -0.3 0.2">
  <joint name="shoulder" type="hinge" pos="0.05 -0.02 0.1" axis="0.3 1 0.2" ref="0.4"/>
  <inertial pos="0.2 0.01 -0.03" quat="0.8 0.2 0.3 -0.1" mass="1.3" diaginertia="0.02 0.05 0.06"/>
  <geom type="box" size="0.1 0.2 0.3" pos="0.1 0 0"/>
  <body name="lower" pos="0.4 0.05 -0.1" quat="0.7 -0.2 0.1 0.4">
    <joint name="elbow" type="hinge" pos="-0.03 0.02 0.05" axis="1 0.2 -0.5" ref="-0.7"/>
    <joint name="extend" type="slide" pos="0.1 0 0" axis="0.2 0.1 1" ref="0.05"/>
    <inertial pos="0.15 -0.02 0.04" quat="0.6 -0.3 0.5 0.2" mass="0.8" diaginertia="0.01 0.03 0.035"/>
    <geom type="capsule" size="0.05 0.2" pos="0 0 0.1" quat="0 1 0 0"/>
  </body>
</body>"""


def test_double_pendulum_with_offsets_axes_refs_and_two_joints_in_a_body_matches_mujoco(tmp_path):
    m, mj, d = assert_open_chain_matches(write(tmp_path, PENDULUM))
    assert set(m.joints) == {"shoulder", "elbow", "extend"}
    frame = m.bodies["lower__elbow"]                      # the frame between elbow and extend: massless
    assert frame.mass == 0.0 and not np.any(frame.inertia)
    # at q0 = qpos0 every body sits at its MuJoCo pose
    d.qpos[:] = mj.qpos0
    mujoco.mj_forward(mj, d)
    res = m.simulate(t_end=1e-6, t_eval=[0.0])
    for name in ("upper", "lower"):
        i = mujoco.mj_name2id(mj, mujoco.mjtObj.mjOBJ_BODY, name)
        assert_close(res[f"{name}.position"][0], d.xpos[i], 1e-12)
        assert_close(res[f"{name}.rotation"][0], d.xmat[i].reshape(3, 3), 1e-12)


def test_geometry_and_inertia_are_read_in_the_body_frame(tmp_path):
    m = load_mjcf(write(tmp_path, PENDULUM))
    box, = m.bodies["upper"].geometry
    assert box["kind"] == "box" and box["role"] == "visual"
    assert_close(np.array(box["size"]), np.array([0.2, 0.4, 0.6]), 1e-15)
    assert_close(np.array(box["pose"]["position"]), np.array([0.1, 0, 0]), 1e-15)
    capsule, = m.bodies["lower"].geometry
    assert (capsule["kind"], capsule["radius"], capsule["length"]) == ("capsule", 0.05, 0.4)
    assert_close(np.array(capsule["pose"]["rotation"]), np.diag([1.0, -1.0, -1.0]), 1e-15)
    upper = m.bodies["upper"]
    assert upper.mass == 1.3 and np.allclose(upper.com, [0.2, 0.01, -0.03])
    assert np.allclose(np.linalg.eigvalsh(upper.inertia), [0.02, 0.05, 0.06])
    assert not np.allclose(upper.inertia, np.diag(np.diag(upper.inertia)))   # iquat rotated it


def test_free_body_carrying_a_ball_jointed_body_matches_mujoco(tmp_path):
    body = """
    <body name="base" pos="0.3 -0.2 1.5" quat="0.8 0.3 0.1 -0.2">
      <freejoint name="float"/>
      <inertial pos="0.02 0.03 -0.01" quat="0.9 0.1 0.2 0.3" mass="2.0" diaginertia="0.1 0.2 0.25"/>
      <body name="arm" pos="0.2 0.1 0" quat="0.6 0.2 0.5 0.1">
        <joint name="ball" type="ball" pos="0.01 0.02 -0.05"/>
        <inertial pos="0.1 0 0.05" quat="0.7 0.5 -0.3 0.2" mass="0.5" diaginertia="0.01 0.02 0.025"/>
      </body>
    </body>"""
    m, mj, _ = assert_open_chain_matches(write(tmp_path, body))
    assert (m.joints["float"].kind, m.joints["ball"].kind) == ("free", "spherical")
    welded = load_mjcf(write(tmp_path, body), floating_base=False)
    assert welded.joints["float"].kind == "weld" and welded.check().dof == 3


def test_floating_base_frees_a_top_level_body_without_joints(tmp_path):
    body = """<body name="box" pos="0 0 1" quat="0.9 0 0.3 0">
      <inertial pos="0.1 0 0" mass="1.0" diaginertia="0.1 0.2 0.3"/></body>"""
    assert load_mjcf(write(tmp_path, body)).check().dof == 0
    m = load_mjcf(write(tmp_path, body), floating_base=True)
    assert m.joints["box_root"].kind == "free" and m.check().dof == 6
    a = ms.forward_dynamics(m, m.initial_state().q, np.zeros(6))
    assert_close(a, np.array([0, 0, -9.81, 0, 0, 0]), 1e-12)     # falls, gravity from opt.gravity


def test_joints_named_as_their_bodies_and_names_with_slashes_dots_and_spaces_load_as_written(tmp_path):
    """MuJoCo's name spaces are per kind (SPEC C15): many published models name a joint after its body."""
    body = """
    <body name="torso/base" pos="0.1 0 1.2" quat="0.9 0.1 0.2 0">
      <freejoint name="torso/base"/>
      <inertial pos="0.02 0.01 0" quat="0.9 0.1 0.2 0.3" mass="3.0" diaginertia="0.1 0.2 0.25"/>
      <body name="arm.1" pos="0.2 0.1 0" quat="0.6 0.2 0.5 0.1">
        <joint name="arm.1" type="ball" pos="0.01 0.02 -0.05"/>
        <inertial pos="0.1 0 0.05" quat="0.7 0.5 -0.3 0.2" mass="0.5" diaginertia="0.01 0.02 0.025"/>
        <body name="hand 2" pos="0.3 0 0">
          <joint name="hand 2" type="hinge" axis="0.2 1 0.1" damping="0.3"/>
          <inertial pos="0.05 0 0" mass="0.2" diaginertia="0.001 0.002 0.002"/>
        </body>
      </body>
    </body>"""
    m, _, _ = assert_open_chain_matches(write(tmp_path, body))
    assert set(m.joints) == {"torso/base", "arm.1", "hand 2"} and {"torso/base", "arm.1", "hand 2"} <= set(m.bodies)
    assert {"torso/base.q", "arm.1.q", "arm.1.position", "hand 2.q", "hand 2.omega"} <= set(m.signals())


def test_gravity_option_and_damping_are_imported(tmp_path):
    head = HEAD.replace('<option>', '<option gravity="1 2 -3">')
    body = """<body name="b"><joint name="j" axis="0 1 0" damping="0.7" stiffness="3" springref="0.2"/>
      <inertial pos="0.3 0 0" mass="1" diaginertia="0.1 0.1 0.1"/></body>"""
    m, mj, _ = assert_open_chain_matches(write(tmp_path, body, head=head))
    assert tuple(m.gravity) == (1, 2, -3)
    spring = m.forces["j_spring_damper"]
    assert (spring.stiffness, spring.damping, spring.rest) == (3.0, 0.7, 0.2)


def test_armature_and_limits_are_kept_with_a_warning(tmp_path):
    body = """<body name="b"><joint name="j" axis="0 1 0" armature="0.1" range="-1 1" limited="true"/>
      <inertial pos="0.3 0 0" mass="1" diaginertia="0.1 0.1 0.1"/></body>"""
    with pytest.warns(UserWarning, match="mjcf_unsimulated"):
        m = load_mjcf(write(tmp_path, body))
    assert m.mjcf_unsimulated == {"j": {"armature": [0.1], "range": [-1.0, 1.0]}}


# ------------------------------------------------------------------------------------ closed loops
def kkt_accelerations(mj, d, jacobians):
    """Accelerations of M a + bias = J^T lam, J a = -Jdot v from MuJoCo's M, qfrc_bias and the
    constraint rows ``jacobians(d, dot)`` (dot=True: the time derivative)."""
    mujoco.mj_forward(mj, d)
    M = np.zeros((mj.nv, mj.nv))
    mujoco.mj_fullM(mj, d, M)
    J, Jdot = jacobians(d, False), jacobians(d, True)
    n = J.shape[0]
    K = np.block([[M, -J.T], [J, np.zeros((n, n))]])
    return np.linalg.solve(K, np.concatenate([-d.qfrc_bias, -Jdot @ d.qvel]))[:mj.nv]


def point_jacobian(mj, d, body, point, dot):
    """(3, nv) Jacobian (or its derivative) of a body point given in the body frame."""
    i = mujoco.mj_name2id(mj, mujoco.mjtObj.mjOBJ_BODY, body)
    world = d.xpos[i] + d.xmat[i].reshape(3, 3) @ point
    jacp, jacr = np.zeros((3, mj.nv)), np.zeros((3, mj.nv))
    (mujoco.mj_jacDot if dot else mujoco.mj_jac)(mj, d, jacp, jacr, world, i)
    return jacp, jacr


FOUR_BAR = """
<body name="crank" quat="0.7071068 0 0 0.7071068"><joint name="j1" axis="0 0 1"/>
  <inertial pos="0.5 0 0" quat="0.9 0.1 0.2 0" mass="1" diaginertia="0.01 0.08 0.09"/>
  <body name="coupler" pos="1 0 0" quat="0.7071068 0 0 -0.7071068"><joint name="j2" axis="0 0 1"/>
    <inertial pos="1 0.02 0" mass="2" diaginertia="0.02 0.2 0.21"/></body></body>
<body name="rocker" pos="2 0 0" quat="0.7071068 0 0 0.7071068"><joint name="j4" axis="0 0 1"/>
  <inertial pos="0.5 0 0.01" mass="1.5" diaginertia="0.03 0.1 0.12"/></body>"""
CONNECT = '<connect name="close" body1="coupler" body2="rocker" anchor="2 0 0"/>'


def loop_velocity(J, rng):
    """A random velocity that satisfies J v = 0."""
    null = np.linalg.svd(J)[2][np.linalg.matrix_rank(J):]
    return rng.standard_normal(null.shape[0]) @ null


@pytest.mark.parametrize("gravity", ["0 -9.81 0", "0 -9.81 -3"])
def test_four_bar_closed_by_connect_matches_a_kkt_solve_on_mujoco(tmp_path, gravity):
    head = HEAD.replace('<option>', f'<option gravity="{gravity}">')
    m, mj, d = both(write(tmp_path, FOUR_BAR, CONNECT, head=head))
    assert m.constraints["close"].kind == "point_coincident" and m.check().dof == 1
    assert np.allclose(m.constraints["close"].point_b, [1, 0, 0])      # rocker tip, computed by MuJoCo

    def rows(d, dot):
        pa, _ = point_jacobian(mj, d, "coupler", np.array([2.0, 0, 0]), dot)
        pb, _ = point_jacobian(mj, d, "rocker", np.array([1.0, 0, 0]), dot)
        return (pa - pb)[:2]                        # the planar loop: z is satisfied identically
    iq, iv = index_maps(m, mj)
    assert_close(m.assemble().q, mj.qpos0[iq], 1e-9)     # q0 = qpos0 closes the loop
    d.qpos[:] = mj.qpos0
    mujoco.mj_forward(mj, d)
    d.qvel[:] = loop_velocity(rows(d, False), np.random.default_rng(3))
    expected = kkt_accelerations(mj, d, rows)
    assert_close(ms.forward_dynamics(m, d.qpos[iq], d.qvel[iv]), expected[iv])


def test_weld_and_joint_equalities_match_a_kkt_solve_on_mujoco(tmp_path):
    body = FOUR_BAR.replace('<joint name="j4" axis="0 0 1"/>', '<joint name="j4" axis="0 0 1" ref="0.1"/>') + """
    <body name="free" pos="0.5 1 0.2" quat="0.9 0.2 0.1 0.3"><freejoint name="f"/>
      <inertial pos="0.1 0 0" mass="0.7" diaginertia="0.05 0.06 0.07"/></body>"""
    equality = ('<weld name="glue" body1="crank" body2="free"/>'
                '<joint name="couple" joint1="j4" joint2="j1" polycoef="0.3 -0.5 0 0 0"/>')
    m, mj, d = both(write(tmp_path, body, equality))
    assert m.joints["glue"].cut and m.constraints["couple"].coefficients == (0.3, -0.5, 0, 0, 0)
    ifree = mujoco.mj_name2id(mj, mujoco.mjtObj.mjOBJ_BODY, "free")
    d.qpos[:] = mj.qpos0
    d.qpos[mj.jnt_qposadr[2]] += 0.3        # j4 moved by a0 (mechsim's q0 does the same)
    iq, iv = index_maps(m, mj)
    assert_close(m.initial_state().q, d.qpos[iq], 1e-12)
    assert_close(m.assemble().q, d.qpos[iq], 1e-9)      # q0 closes the weld and the coupling

    def rows(d, dot):
        # the crank's point at the free body's origin stays there, and the two rotate together
        point = d.xmat[1].reshape(3, 3).T @ (d.xpos[ifree] - d.xpos[1])
        pa, ra = point_jacobian(mj, d, "crank", point, dot)
        pb, rb = point_jacobian(mj, d, "free", np.zeros(3), dot)
        couple = np.zeros((1, mj.nv))       # v4 + 0.5 v1 = 0
        if not dot:
            couple[0, [mj.jnt_dofadr[2], mj.jnt_dofadr[0]]] = (1, 0.5)
        return np.vstack([ra - rb, pa - pb, couple])
    mujoco.mj_forward(mj, d)
    d.qvel[:] = loop_velocity(rows(d, False), np.random.default_rng(5))
    expected = kkt_accelerations(mj, d, rows)
    assert_close(ms.forward_dynamics(m, d.qpos[iq], d.qvel[iv]), expected[iv], 1e-8)


# ------------------------------------------------------------------------------------ fluid, tendons, polynomials
SWIMMER = """
<body name="head" pos="0.1 -0.2 0.3" quat="0.9 0.1 0.3 -0.2"><freejoint name="root"/>
  <geom type="capsule" size="0.05" fromto="0 0 0 0.4 0 0" density="900"/>
  <body name="middle" pos="0.45 0 0"><joint name="waist" axis="0 0 1" pos="-0.02 0 0" ref="0.2"/>
    <geom type="capsule" size="0.04" fromto="0 0 0 0.35 0 0" density="1100"/>
    <body name="tail" pos="0.4 0 0" quat="0.95 0 0.3 0"><joint name="hip" axis="0.2 1 0" pos="-0.02 0 0"/>
      <inertial pos="0.15 0.01 -0.02" quat="0.8 0.2 -0.3 0.4" mass="0.6" diaginertia="0.004 0.009 0.011"/>
    </body></body></body>"""


def swimmer_head(density="4000", viscosity="0.2", wind="0.3 -0.2 0.1"):
    return HEAD.replace("<option>", f'<option density="{density}" viscosity="{viscosity}" wind="{wind}">')


def test_swimmer_in_a_blowing_fluid_matches_mujoco(tmp_path):
    """MuJoCo's inertia-box fluid model (fluid_drag) on a free 3-link swimmer: capsules, whose equal moments
    leave the principal axes to MuJoCo's body_iquat, and a link whose inertia is turned. Accelerations at random
    states agree with mj_forward's to TOL; the fluid changes them by far more (density and viscosity apart too)."""
    m, mj, d = assert_open_chain_matches(write(tmp_path, SWIMMER, head=swimmer_head()), states=5, tol=1e-10)
    fluid = m.forces["fluid"]
    assert fluid.kind == "fluid_drag" and fluid.bodies == ("head", "middle", "tail")
    iq, iv = index_maps(m, mj)
    for density, viscosity in (("4000", "0"), ("0", "0.2"), ("0", "0")):
        d.qpos[:], d.qvel[:] = random_state(mj, np.random.default_rng(11))
        mujoco.mj_forward(mj, d)
        other = mujoco.MjModel.from_xml_path(str(write(tmp_path, SWIMMER, head=swimmer_head(density, viscosity))))
        od = mujoco.MjData(other)
        od.qpos[:], od.qvel[:] = d.qpos, d.qvel
        mujoco.mj_forward(other, od)
        assert np.abs(od.qacc - d.qacc).max() > 1e-3 * max(1.0, np.abs(d.qacc).max())


TENDONS = """
<body name="a"><joint name="j1" axis="0 1 0" ref="0.3"/><geom type="capsule" size="0.04" fromto="0 0 0 0.5 0 0"/>
  <body name="b" pos="0.5 0 0"><joint name="j2" axis="0.3 1 0.1" ref="-0.2"/>
    <geom type="capsule" size="0.03" fromto="0 0 0 0.4 0 0.1"/>
    <body name="c" pos="0.4 0 0.1"><joint name="j3" type="slide" axis="1 0 0.2" ref="0.05"/>
      <geom type="box" size="0.05 0.04 0.03"/></body></body></body>"""
FIXED_TENDONS = """<tendon>
  <fixed name="spring" stiffness="30" damping="0.8" springlength="{spring}"><joint joint="j1" coef="1"/>
    <joint joint="j2" coef="-0.6"/></fixed>
  <fixed name="drive"><joint joint="j3" coef="2"/><joint joint="j1" coef="0.3"/></fixed></tendon>"""


def write_with(tmp_path, body, extra, equality="", head=HEAD):
    path = tmp_path / "model.xml"
    path.write_text(f"{head}<worldbody>{body}</worldbody>{extra}<equality>{equality}</equality></mujoco>")
    return path


@pytest.mark.parametrize("spring", ["0.2", "-0.3 0.1"])
def test_fixed_tendon_spring_damper_matches_mujoco(tmp_path, spring):
    """A fixed tendon's stiffness and damping, with a rest length or a dead band (springlength), against
    mj_forward's accelerations; without the tendon they differ by far more."""
    m, mj, d = assert_open_chain_matches(write_with(tmp_path, TENDONS, FIXED_TENDONS.format(spring=spring)), states=5,
                                          tol=1e-10)
    tendon = m.forces["spring"]
    assert tendon.kind == "fixed_tendon" and dict(tendon.joints) == {"j1": 1.0, "j2": -0.6}
    assert "drive" not in m.forces                             # no stiffness, no damping: no force
    iq, iv = index_maps(m, mj)
    assert np.abs(d.qfrc_passive).max() > 1e-3 * max(1.0, np.abs(d.qfrc_bias).max())
    res = m.simulate(t_end=1e-6, t_eval=[0.0])
    assert_close(res["spring.length"], mj.tendon_length0[:1], 1e-12)


def test_disabled_springs_dampers_and_equalities_are_left_out(tmp_path):
    """<flag spring="disable" damper="disable" equality="disable"/>: MuJoCo applies none of them, nor does mechsim."""
    body = TENDONS.replace('<joint name="j1" axis="0 1 0"', '<joint name="j1" axis="0 1 0" stiffness="3" damping="1"')
    extra, equality = FIXED_TENDONS.format(spring="0.2"), '<joint joint1="j3" joint2="j2" polycoef="0 0.3 0.2 0 0"/>'
    assert set(load_mjcf(write_with(tmp_path, body, extra, equality)).forces) == {"j1_spring_damper", "spring"}
    head = HEAD.replace('contact="disable"', 'contact="disable" spring="disable" damper="disable" equality="disable"')
    m, mj, _ = assert_open_chain_matches(write_with(tmp_path, body, extra, equality, head=head), tol=1e-10)
    assert not m.forces and not m.constraints


def equality_rows(mj, d):
    """MuJoCo's equality rows at d: (residuals efc_pos, Jacobian efc_J) (contacts off: every row is one)."""
    assert np.all(d.efc_type == mujoco.mjtConstraint.mjCNSTR_EQUALITY)
    return d.efc_pos.copy(), d.efc_J.reshape(d.nefc, mj.nv).copy()


def velocity_terms(couplings):
    """-Jdot v of rows y - P(x - x0) (y, x linear in qpos): P''(x - x0) xdot^2, derived here by hand from polycoef
    and MuJoCo's x and xdot (``couplings``: per row, (polycoef, x - x0, xdot))."""
    return np.array([(2 * a[2] + 6 * a[3] * dx + 12 * a[4] * dx ** 2) * xdot ** 2 for a, dx, xdot in couplings])


def polynomial_kkt(mj, d, rhs):
    """The accelerations of M a + bias = passive + J^T lam with the equality rows held rigidly, J a = rhs
    (velocity_terms), from MuJoCo's M, qfrc_bias, qfrc_passive and Jacobians efc_J. MuJoCo's own qacc cannot be
    the reference: its equalities are soft (impedance at most 0.9999) and leave out Jdot v, so they miss the
    rigid accelerations by far more than 1e-10."""
    M = np.zeros((mj.nv, mj.nv))
    mujoco.mj_fullM(mj, d, M)
    _, J = equality_rows(mj, d)
    n = J.shape[0]
    K = np.block([[M, -J.T], [J, np.zeros((n, n))]])
    return np.linalg.solve(K, np.concatenate([d.qfrc_passive - d.qfrc_bias, rhs]))[:mj.nv]


def assert_couplings_match(m, mj, d, couplings_of, states=5):
    """mechsim's residuals (against MuJoCo's efc_pos) and accelerations (against polynomial_kkt) at random
    states, where leaving out the velocity terms would be off by 1000 times the tolerance or more; returns the
    largest relative error."""
    iq, iv = index_maps(m, mj)
    cm, rng = m.compile(), np.random.default_rng(13)
    worst = 0.0
    for _ in range(states):
        d.qpos[:], d.qvel[:] = random_state(mj, rng)
        mujoco.mj_forward(mj, d)
        rhs = velocity_terms(couplings_of(d))
        expected = polynomial_kkt(mj, d, rhs)
        scale = max(1.0, np.abs(expected).max())
        a = ms.forward_dynamics(m, d.qpos[iq], d.qvel[iv])
        assert_close(a, expected[iv], 1e-10)
        assert np.abs(polynomial_kkt(mj, d, 0 * rhs) - expected).max() > 1e3 * 1e-10 * scale
        worst = max(worst, np.abs(a - expected[iv]).max() / scale)
        assert_close(constraint_values(cm, d.qpos[iq], d.qvel[iv])[0], equality_rows(mj, d)[0], 1e-12)
    return worst


def test_fixed_tendons_coupled_by_a_polynomial_tendon_equality_match_a_kkt_solve_on_mujoco(tmp_path):
    """<equality tendon> y - y0 = a0 + a1 (x - x0) + ... with nonzero a2, a3, a4 between two fixed tendons, one of them
    a spring-damper: rigid accelerations (polynomial_kkt) and residuals as MuJoCo's; q0 satisfies it."""
    equality = '<tendon name="couple" tendon1="drive" tendon2="spring" polycoef="0.1 0.7 0.4 -0.3 0.2"/>'
    path = write_with(tmp_path, TENDONS, FIXED_TENDONS.format(spring="0.2"), equality)
    m, mj, d = both(path)
    couple = m.constraints["couple"]
    assert couple.kind == "polynomial_coupling" and dict(couple.y) == {"j3": 2.0, "j1": 0.3}
    assert_close(m.assemble().q, m.initial_state().q, 1e-9)          # q0 holds it (j3 moved by a0 / 2)
    a = np.array(couple.coefficients)

    def couplings(d):
        return [(a, d.ten_length[0] - mj.tendon_length0[0], d.ten_velocity[0])]      # x: the spring
    assert assert_couplings_match(m, mj, d, couplings) <= 1e-10


def test_polynomial_joint_equalities_match_a_kkt_solve_on_mujoco(tmp_path):
    """<equality joint> with all of a0..a4, and one with joint2 omitted (y = y0 + a0), between a hinge and a slide:
    rigid accelerations (polynomial_kkt) and residuals as MuJoCo's."""
    equality = ('<joint name="cam" joint1="j3" joint2="j2" polycoef="0.02 0.3 -0.5 0.4 0.3"/>'
                '<joint name="hold" joint1="j1" polycoef="0.1 0 0 0 0"/>')
    m, mj, d = both(write(tmp_path, TENDONS, equality))
    assert m.check().dof == 1 and m.constraints["cam"].kind == "polynomial_coupling"
    iq, _ = index_maps(m, mj)
    expected_q0 = mj.qpos0.copy()
    expected_q0[[mj.jnt_qposadr[2], mj.jnt_qposadr[0]]] += (0.02, 0.1)
    assert_close(m.initial_state().q, expected_q0[iq], 1e-12)
    a = np.array([0.02, 0.3, -0.5, 0.4, 0.3])
    j2 = (mj.jnt_qposadr[1], mj.jnt_dofadr[1])

    def couplings(d):
        return [(a, d.qpos[j2[0]] - mj.qpos0[j2[0]], d.qvel[j2[1]]), (np.zeros(5), 0.0, 0.0)]
    assert assert_couplings_match(m, mj, d, couplings) <= 1e-10


# ------------------------------------------------------------------------------------ errors
def test_malformed_file_names_the_file_and_gives_mujocos_message(tmp_path):
    path = tmp_path / "broken.xml"
    path.write_text("<mujoco><worldbody><body><joint type='hinge' axis='0 0 0'/></body></worldbody></mujoco>")
    with pytest.raises(ModelError, match=r"broken\.xml: MuJoCo cannot load.*axis"):
        load_mjcf(path)
    path.write_text("<mujoco><worldbody>")
    with pytest.raises(ModelError, match=r"broken\.xml: MuJoCo cannot load"):
        load_mjcf(path)


def test_unsupported_equality_is_refused(tmp_path):
    body = FOUR_BAR.replace('<joint name="j4" axis="0 0 1"/>', '<joint name="j4" axis="0 0 1"/><site name="s"/>')
    body = body.replace('<joint name="j2" axis="0 0 1"/>',
                        '<joint name="j2" axis="0 0 1"/><site name="t" pos="0.3 0 0"/>')
    spatial = '<tendon><spatial name="rope"><site site="s"/><site site="t"/></spatial></tendon>'
    with pytest.raises(ModelError, match=r"model\.xml: equality 'equality0': tendon 'rope' is a spatial tendon"):
        load_mjcf(write_with(tmp_path, body, spatial, '<tendon tendon1="rope"/>'))
    with pytest.raises(ModelError, match=r"equality 'equality0': only body-based connect"):
        load_mjcf(write(tmp_path, body, '<connect site1="s" site2="t"/>'))


def test_missing_mujoco_says_pip_install(tmp_path, monkeypatch):
    real_import = builtins.__import__

    def no_mujoco(name, *args, **kwargs):
        if name == "mujoco":
            raise ImportError("No module named 'mujoco'")
        return real_import(name, *args, **kwargs)
    monkeypatch.delitem(sys.modules, "mujoco")
    monkeypatch.setattr(builtins, "__import__", no_mujoco)
    with pytest.raises(ModelError, match="pip install mujoco"):
        load_mjcf(write(tmp_path, FOUR_BAR))


def test_load_and_the_command_line_reach_the_mjcf_importer(tmp_path):
    """ms.load reads an MJCF .xml through MuJoCo, as `mechsim check` does; a URDF-only option is
    refused by name."""
    import subprocess
    import sys
    path = write(tmp_path, PENDULUM)
    m = ms.load(path)
    assert m.check().dof == load_mjcf(path).check().dof and set(m.joints) == set(load_mjcf(path).joints)
    with pytest.raises(ModelError, match="merge_fixed"):
        ms.load(path, merge_fixed=True)
    run = subprocess.run([sys.executable, "-m", "mechsim", "check", str(path)], capture_output=True, text=True,
                         timeout=300)
    assert run.returncode == 0 and f"dof: {m.check().dof}" in run.stdout, run.stderr


def test_what_is_not_simulated_is_said_in_one_warning(tmp_path):
    """The ellipsoid fluid model, spatial tendons, fixed tendons' limits, actuators, sensors and colliding geoms are
    named, never dropped without a word; a file with only what mechsim simulates (the inertia-box fluid model, fixed
    tendons' springs, contacts off) loads without a warning."""
    head = '<mujoco><compiler angle="radian"/><option density="1000" viscosity="0.001"/>'
    body = """<body name="b"><joint name="j" axis="0 1 0"/><geom type="capsule" size="0.05" fromto="0 0 0 0.3 0 0"/>
      <site name="s"/></body><body name="c" pos="0 0 1"><joint name="k" axis="0 1 0"/>
      <geom type="sphere" size="0.1" fluidshape="{shape}"/><site name="t"/></body>"""
    tendon = '<fixed name="t" stiffness="2" {limits}><joint joint="j" coef="1"/><joint joint="k" coef="-1"/></fixed>'
    extra = f"""<tendon>{tendon.format(limits='range="-1 1" limited="true"')}<spatial><site site="s"/><site site="t"/>
      </spatial></tendon><actuator><motor joint="j"/></actuator><sensor><jointpos joint="k"/></sensor>"""
    path = tmp_path / "extras.xml"
    path.write_text(f"{head}<worldbody>{body.format(shape='ellipsoid')}</worldbody>{extra}</mujoco>")
    with pytest.warns(UserWarning) as caught:
        m = load_mjcf(path)
    [said] = [str(w.message) for w in caught]
    assert said == (f'{path}: not simulated: the fluid forces of 1 body(ies) with fluidshape="ellipsoid" geoms (the '
                    "ellipsoid model); 1 spatial tendon(s); 1 actuator(s); 1 sensor(s); the contacts of 2 geom(s); "
                    "limits, frictionloss, armature or polynomial stiffness of 1 fixed tendon(s) "
                    "(kept in model.mjcf_unsimulated_tendons)")
    assert m.mjcf_unsimulated_tendons == {"t": {"range": [-1.0, 1.0]}} and m.forces["fluid"].bodies == ("b",)
    simulated = f"<tendon>{tendon.format(limits='')}</tendon>"
    head = head.replace('"0.001"/>', '"0.001"><flag contact="disable"/></option>')
    path.write_text(f"{head}<worldbody>{body.format(shape='none')}</worldbody>{simulated}</mujoco>")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        m = load_mjcf(path)
    assert set(m.forces) == {"t", "fluid"}
