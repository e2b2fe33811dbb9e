"""The bushing force element (modeling/forces/bushing.py) against independent references: a body on a
bushing joint with joint spring-dampers (the same six coordinates, generalized forces applied by the joint
instead of the wrench mapping of the element), closed-form oscillations, conservation of energy and momentum,
and its signals."""
import numpy as np
import pytest

import mechsim as ms
from mechsim.errors import ModelError
from mechsim.spatial import matrix_to_quat

STIFFNESS = np.array([400.0, 250.0, 600.0, 30.0, 45.0, 20.0])
DAMPING = np.array([2.0, 1.0, 3.0, 0.2, 0.1, 0.3])
INERTIA = (0.02, 0.03, 0.04, 0.002, -0.001, 0.003)
FRAME_A = ((0.1, -0.2, 0.3), {"euler": (0.3, -0.2, 0.5)})      # on the ground: offset and turned
FRAME_B = ((0.05, 0.1, -0.02), {"euler": (-0.1, 0.4, 0.2)})    # on the body
Q0 = (0.05, -0.03, 0.02, 0.4, -0.3, 0.6)                       # frame B relative to A: x, y, z, rx, ry, rz
V0 = (0.1, 0.2, -0.1, 0.5, -0.4, 0.3)


def on_bushing_joint(stiffness=STIFFNESS, damping=DAMPING, gravity=(0, 0, -9.81)):
    """The reference: the body hangs on a bushing joint from frame A to frame B, its coordinates held by
    joint spring-dampers (tau = -k q - c qdot per coordinate)."""
    m = ms.Model("reference", gravity=gravity)
    m.add_body("box", mass=1.5, com=(0.02, -0.01, 0.03), inertia=INERTIA)
    m.add_joint("mount", "bushing", parent="ground", child="box", parent_frame=FRAME_A, child_frame=FRAME_B,
                q0=Q0, v0=V0)
    m.add_force("springs", "joint_spring_damper", joint="mount", stiffness=stiffness, damping=damping)
    return m


def free_with_bushing(reference, stiffness=STIFFNESS, damping=DAMPING, gravity=(0, 0, -9.81)):
    """The same body on a free joint, its initial state the reference's, held by the bushing force element."""
    m = ms.Model("bushing", gravity=gravity)
    m.add_body("box", mass=1.5, com=(0.02, -0.01, 0.03), inertia=INERTIA)
    state = reference.simulate(t_end=1e-3, t_eval=[0.0], rtol=1e-12, atol=1e-12)
    R, p = state["box.rotation"][0], state["box.position"][0]
    omega_body = R.T @ state["box.omega"][0]
    m.add_joint("float", "free", parent="ground", child="box",
                q0=np.concatenate([p, matrix_to_quat(R)]),
                v0=np.concatenate([state["box.velocity"][0], omega_body]))
    m.add_force("mount", "bushing", body_a="ground", frame_a=FRAME_A, body_b="box", frame_b=FRAME_B,
                stiffness=stiffness, damping=damping)
    return m


def test_equals_joint_springs_on_a_bushing_joint():
    """Large angles (up to 0.6 rad), anisotropic gains, damping and gravity: the element's wrenches on the
    free body reproduce the reference's generalized forces, so the motions agree to the integration error."""
    ref = on_bushing_joint()
    m = free_with_bushing(ref)
    t = np.linspace(0.0, 2.0, 81)
    a = ref.simulate(t_end=2.0, t_eval=t, rtol=1e-10, atol=1e-12)
    b = m.simulate(t_end=2.0, t_eval=t, rtol=1e-10, atol=1e-12)
    assert np.abs(a["box.position"]).max() > 0.05          # it moves (a test that can fail)
    np.testing.assert_allclose(b["box.position"], a["box.position"], atol=1e-7)
    np.testing.assert_allclose(b["box.rotation"], a["box.rotation"], atol=1e-7)
    np.testing.assert_allclose(b["mount.translation"], a["mount.q"][:, :3], atol=1e-7)
    np.testing.assert_allclose(b["mount.angles"], a["mount.q"][:, 3:], atol=1e-7)


def test_force_and_torque_are_the_joint_reaction():
    """What the bushing exerts on the body equals what the reference's joint transmits to it (its reaction,
    at M = frame B's origin, world axes), a bushing joint's reaction carrying exactly the springs' forces."""
    ref = on_bushing_joint()
    m = free_with_bushing(ref)
    t = np.linspace(0.0, 1.0, 21)
    a = ref.simulate(t_end=1.0, t_eval=t, rtol=1e-10, atol=1e-12)
    b = m.simulate(t_end=1.0, t_eval=t, rtol=1e-10, atol=1e-12)
    reaction = a["mount.reaction"]                        # [torque; force] on the child at M, world axes
    np.testing.assert_allclose(b["mount.force"], reaction[:, 3:], atol=1e-6)
    np.testing.assert_allclose(b["mount.torque"], reaction[:, :3], atol=1e-6)


@pytest.mark.parametrize("axis", range(6))
def test_one_coordinate_oscillates_at_its_natural_frequency(axis):
    """Frames coinciding at rest, no gravity or damping, one coordinate displaced: x(t) = x0 cos(w t),
    w = sqrt(k / m) along a translation through the centre of mass, sqrt(k / I) about a principal axis."""
    mass, inertia = 2.0, np.array([0.1, 0.2, 0.3])
    k = STIFFNESS[axis]
    m = ms.Model("oscillator", gravity=(0, 0, 0))
    m.add_body("b", mass=mass, inertia=inertia)
    q0 = np.array([0, 0, 0, 1.0, 0, 0, 0])
    x0 = 0.01
    if axis < 3:
        q0[axis] = x0
    else:
        half = 0.5 * x0
        q0[3], q0[4 + axis - 3] = np.cos(half), np.sin(half)
    m.add_joint("float", "free", parent="ground", child="b", q0=q0)
    m.add_force("mount", "bushing", body_a="ground", body_b="b", stiffness=STIFFNESS, damping=np.zeros(6))
    w = np.sqrt(k / (mass if axis < 3 else inertia[axis - 3]))
    t = np.linspace(0, 2 * np.pi / w, 50)
    res = m.simulate(t_end=t[-1], t_eval=t, rtol=1e-11, atol=1e-13)
    x = res["mount.translation"][:, axis] if axis < 3 else res["mount.angles"][:, axis - 3]
    np.testing.assert_allclose(x, x0 * np.cos(w * t), atol=1e-8 * x0 / 1e-2)


def two_bodies_in_space(damping=np.zeros(6)):
    m = ms.Model("pair", gravity=(0, 0, 0))
    m.add_body("a", mass=3.0, com=(0.1, 0, 0), inertia=(0.3, 0.2, 0.25))
    m.add_body("b", mass=1.0, com=(0, 0.05, 0), inertia=INERTIA)
    m.add_joint("fa", "free", parent="ground", child="a", v0=(0.1, 0, 0, 0.2, -0.1, 0.3))
    m.add_joint("fb", "free", parent="ground", child="b", q0=(0.4, 0.1, 0, np.cos(0.3), 0.2, 0.1, np.sin(0.3)),
                v0=(0, 0.2, -0.1, -0.3, 0.4, 0.1))
    m.add_force("mount", "bushing", body_a="a", frame_a=((0.3, 0, 0), {"euler": (0.1, 0.2, 0.3)}), body_b="b",
                frame_b=FRAME_B, stiffness=STIFFNESS, damping=damping)
    return m


def momenta(res, m):
    """Linear momentum and angular momentum about the world origin of every body, summed (N, 3) each."""
    P, L = 0.0, 0.0
    for name in ("a", "b"):
        body = m.bodies[name]
        R, omega = res[f"{name}.rotation"], res[f"{name}.omega"]
        c = res.point(name, body.com)
        vc = res[f"{name}.velocity"] + np.cross(omega, c - res[f"{name}.position"])
        Iw = np.einsum("nij,jk,nlk->nil", R, body.inertia, R)
        P = P + body.mass * vc
        L = L + np.einsum("nij,nj->ni", Iw, omega) + body.mass * np.cross(c, vc)
    return P, L


def test_two_free_bodies_conserve_momentum_and_energy():
    """Between two free bodies with no gravity: the action on b and the reaction on a are equal and opposite
    and act at one point, so linear and angular momentum stay constant; undamped, kinetic plus elastic
    energy 1/2 (r K_t r + theta K_r theta) stays constant."""
    m = two_bodies_in_space()
    res = m.simulate(t_end=2.0, t_eval=np.linspace(0, 2, 41), rtol=1e-11, atol=1e-13)
    P, L = momenta(res, m)
    np.testing.assert_allclose(P, P[0] + 0 * P, atol=1e-9)
    np.testing.assert_allclose(L, L[0] + 0 * L, atol=1e-9)
    r, theta = res["mount.translation"], res["mount.angles"]
    assert np.ptp(theta, axis=0).max() > 0.05
    elastic = 0.5 * (np.einsum("ni,i,ni->n", r, STIFFNESS[:3], r) + np.einsum("ni,i,ni->n", theta, STIFFNESS[3:], theta))
    kinetic = 0.0
    for name in ("a", "b"):
        body = m.bodies[name]
        R, omega = res[f"{name}.rotation"], res[f"{name}.omega"]
        c = res.point(name, body.com)
        vc = res[f"{name}.velocity"] + np.cross(omega, c - res[f"{name}.position"])
        w_body = np.einsum("nji,nj->ni", R, omega)
        kinetic = kinetic + 0.5 * body.mass * (vc ** 2).sum(axis=1) + 0.5 * np.einsum("ni,ij,nj->n", w_body,
                                                                                       body.inertia, w_body)
    energy = kinetic + elastic
    assert np.ptp(elastic) > 1e-3 * energy[0]
    np.testing.assert_allclose(energy, energy[0], rtol=1e-8)


def test_damping_dissipates():
    m = two_bodies_in_space(damping=DAMPING)
    res = m.simulate(t_end=1.0, t_eval=[0.0, 1.0], rtol=1e-10, atol=1e-12)
    P, L = momenta(res, m)
    np.testing.assert_allclose(P[1], P[0], atol=1e-9)          # internal forces still: momentum kept
    np.testing.assert_allclose(L[1], L[0], atol=1e-9)


@pytest.mark.parametrize("options, message", [
    (dict(stiffness=(1, 2, 3)), "stiffness must be 6 numbers"),
    (dict(damping=(1, 2, 3, 4, 5, -6)), "damping must be 6 numbers >= 0"),
    (dict(stiffness="stiff"), "stiffness must be 6 numbers"),
    (dict(frame_b="nowhere"), "has no frame 'nowhere'"),
    (dict(body_b="ground"), "same body 'ground'"),
    (dict(spring=1.0), "unknown option"),
])
def test_bad_options_are_named(options, message):
    m = ms.Model("bad")
    m.add_body("b", mass=1.0, inertia=(1, 1, 1))
    m.add_joint("j", "free", parent="ground", child="b")
    args = dict(body_a="ground", body_b="b", stiffness=STIFFNESS) | options
    with pytest.raises(ModelError, match=message):
        m.add_force("mount", "bushing", **args)


def test_model_file_round_trip(tmp_path):
    ref = on_bushing_joint()
    m = free_with_bushing(ref)
    path = tmp_path / "bushing.yaml"
    m.to_yaml(str(path))
    again = ms.load(str(path))
    assert again.forces["mount"].kind == "bushing"
    np.testing.assert_allclose(again.forces["mount"].stiffness, STIFFNESS)
    a, b = (x.simulate(t_end=0.2, t_eval=[0.2], rtol=1e-10, atol=1e-12) for x in (m, again))
    np.testing.assert_allclose(b["box.position"], a["box.position"], rtol=1e-12, atol=1e-14)
