"""Accuracy anywhere in space (issue 15): the kernels refer their spatial quantities to a point on the
machine (dynamics/kernels.py reference_point), so a machine placed 1 km or 100 km from the world origin
has the accelerations, forces and step sizes it has at the origin. Referred to the world origin, a rod
hinged 100 km out had forward-dynamics errors of 2e-6 and a 6-link chain 1e-4 (measured at the commit
before reference_point)."""
import warnings

import numpy as np
import pytest

import mechsim as ms
from mechsim.bench.robots import ROBOT_FILES

# exactly representable, so that the far models' inputs are the near ones' plus the offset, exactly
OFFSETS = {"1 km": np.array([1e3, -500.0, 250.0]), "100 km": np.array([1e5, 5e4, -2.5e4])}
TOL = 1e-12


def relative_error(actual, expected):
    return np.max(np.abs(np.asarray(actual) - expected)) / np.max(np.abs(expected))


def hinged_rod(offset):
    m = ms.Model("rod", gravity=(0, -9.81, 0))
    m.add_body("rod", mass=1.0, com=(0.5, 0.02, 0), inertia=(0.001, 1 / 12, 1 / 12))
    m.add_joint("j1", "revolute", "ground", "rod", parent_frame=tuple(offset), axis=(0.2, 0.1, 1.0), q0=1.0, v0=0.7)
    return m


def chain(offset, n=6):
    """A 3D chain of revolute joints about x, y and z in turn, one of them prismatic, one spherical."""
    m = ms.Model("chain", gravity=(0, 0, -9.81))
    parent = "ground"
    for k in range(n):
        m.add_body(f"b{k}", mass=1.0 + 0.1 * k, com=(0.5, 0.01, 0.02), inertia=(0.03, 0.1, 0.12))
        frame = tuple(offset) if k == 0 else (1.0, 0.0, 0.0)
        options = dict(axis=[(0, 0, 1), (0, 1, 0), (1, 0, 0)][k % 3], q0=0.3 + 0.1 * k, v0=0.2 * k)
        kind = {2: "prismatic", 4: "spherical"}.get(k, "revolute")
        if kind == "spherical":
            options = {}
        m.add_joint(f"j{k}", kind, parent, f"b{k}", parent_frame=frame, **options)
        parent = f"b{k}"
    return m


def legged(offset):
    """A free-flying box with two 2-link legs, its base at the offset."""
    m = ms.Model("legged", gravity=(0, 0, -9.81))
    m.add_body("base", mass=5.0, com=(0.0, 0.01, 0.02), inertia=(0.2, 0.3, 0.4))
    q0 = list(offset) + [0.9, 0.1, -0.3, 0.2]
    m.add_joint("float", "free", "ground", "base", q0=q0, v0=[0.3, -0.2, 0.1, 0.5, 0.4, -0.6])
    for side, y in (("left", 0.2), ("right", -0.2)):
        m.add_body(f"{side}_thigh", mass=1.0, com=(0, 0, -0.2), inertia=(0.02, 0.02, 0.002))
        m.add_body(f"{side}_shank", mass=0.5, com=(0, 0, -0.2), inertia=(0.01, 0.01, 0.001))
        m.add_joint(f"{side}_hip", "revolute", "base", f"{side}_thigh", parent_frame=(0, y, -0.1), axis=(0, 1, 0),
                    q0=0.4, v0=-1.0)
        m.add_joint(f"{side}_knee", "revolute", f"{side}_thigh", f"{side}_shank", parent_frame=(0, 0, -0.4),
                    axis=(0, 1, 0), q0=-0.8, v0=2.0)
    return m


def planar_cart(offset):
    """A cart on a planar joint (x, y, turn) driven out to the offset, with a pendulum on it."""
    m = ms.Model("planar", gravity=(0, -9.81, 0))
    m.add_body("cart", mass=2.0, com=(0.1, 0, 0), inertia=(0.1, 0.1, 0.2))
    m.add_body("arm", mass=0.5, com=(0, -0.5, 0), inertia=(0.02, 0.001, 0.02))
    m.add_joint("plane", "planar", "ground", "cart", q0=[offset[0], offset[1], 0.3], v0=[1.0, -0.5, 0.2])
    m.add_joint("hinge", "revolute", "cart", "arm", parent_frame=(0.2, 0, 0), axis=(0, 0, 1), q0=0.5, v0=1.5)
    return m


def solo12(offset):
    """Solo12 (a real URDF, ms.load) on a free flyer whose base is at the offset, at a random state."""
    with warnings.catch_warnings():          # its meshes are not shipped
        warnings.simplefilter("ignore")
        m = ms.load(ROBOT_FILES / "solo12.urdf", floating_base=True)
    rng = np.random.default_rng(3)
    q, v = m.initial_state().q, rng.uniform(-1, 1, len(m.coordinates()[1]))
    q[0:3] += offset
    q[3:7] = np.array([0.8, 0.2, -0.4, 0.4]) / np.linalg.norm([0.8, 0.2, -0.4, 0.4])
    q[7:] = rng.uniform(-1, 1, len(q) - 7)
    return m, q, v


def four_bar(offset):
    """Khan, Tang & Krovi's four-bar (2006, Table 1; examples/four_bar.yaml) with its ground joints moved."""
    m = ms.Model("four-bar", gravity=(0, -9.81, 0))
    for name, length in {"crank": 1.0, "coupler": 4.0, "rocker": 2.5}.items():
        m.add_body(name, mass=1.0, com=(length / 2, 0, 0), inertia=(0, length ** 2 / 12, length ** 2 / 12),
                   frames={"tip": (length, 0, 0)})
    m.add_joint("j1", "revolute", "ground", "crank", parent_frame=tuple(offset), q0=1.5708, v0=1.0)
    m.add_joint("j2", "revolute", "crank", "coupler", parent_frame="tip", q0=-1.2175187539062247)
    m.add_joint("j4", "revolute", "ground", "rocker", parent_frame=tuple(offset + (3, 0, 0)), q0=1.2648595635335869)
    m.add_joint("j3", "revolute", "coupler", "rocker", parent_frame="tip", child_frame="tip", cut=True)
    m.add_force("motor", "joint_force", joint="j1", value=6.0)
    return m


def initial(build):
    def make(offset):
        m = build(offset)
        state = m.initial_state()
        return m, state.q, state.v
    return make


OPEN_TREES = {"rod": initial(hinged_rod), "chain": initial(chain), "legged": initial(legged),
              "planar cart": initial(planar_cart), "solo12": solo12}


@pytest.mark.parametrize("where", OFFSETS)
@pytest.mark.parametrize("name", OPEN_TREES)
def test_open_tree_dynamics_do_not_depend_on_the_distance_from_the_origin(name, where):
    """forward_dynamics, inverse_dynamics and mass_matrix far out equal those at the origin to 1e-12."""
    near, q0, v0 = OPEN_TREES[name](np.zeros(3))
    far, q, v = OPEN_TREES[name](OFFSETS[where])
    tau = np.linspace(-1.0, 1.0, len(v0))
    a0 = ms.forward_dynamics(near, q0, v0, tau)
    assert relative_error(ms.forward_dynamics(far, q, v, tau), a0) < TOL
    assert relative_error(ms.inverse_dynamics(far, q, v, a0), ms.inverse_dynamics(near, q0, v0, a0)) < TOL
    assert relative_error(ms.mass_matrix(far, q), ms.mass_matrix(near, q0)) < TOL


@pytest.mark.parametrize("where", OFFSETS)
def test_closed_loop_far_from_the_origin(where):
    """The four-bar's constrained accelerations, and over a run its joint reactions and positions."""
    offset = OFFSETS[where]
    near, far = four_bar(np.zeros(3)), four_bar(offset)
    s0, s = near.assemble(), far.assemble()
    np.testing.assert_allclose(s.q, s0.q, rtol=0, atol=1e-13)
    a0 = ms.forward_dynamics(near, s0.q, s0.v)
    assert relative_error(ms.forward_dynamics(far, s.q, s.v), a0) < TOL
    options = dict(t_end=1.0, solver="DOP853", rtol=1e-10, atol=1e-10, t_eval=np.linspace(0, 1, 11))
    r0, r = near.simulate(**options), far.simulate(**options)
    np.testing.assert_allclose(r.q, r0.q, rtol=0, atol=1e-9)
    for joint in ("j1", "j3", "j4"):
        assert relative_error(r[f"{joint}.reaction"], r0[f"{joint}.reaction"]) < 1e-9
    np.testing.assert_allclose(r["coupler.position"] - offset, r0["coupler.position"], rtol=0, atol=1e-9)
    np.testing.assert_allclose(r.point("rocker", (2.5, 0, 0)) - offset, r0.point("rocker", (2.5, 0, 0)), atol=1e-9)
    np.testing.assert_allclose(r["rocker.velocity"], r0["rocker.velocity"], rtol=0, atol=1e-9)


def test_step_size_control_far_from_the_origin():
    """A 6-link 3D chain 1 km out takes the steps it takes at the origin (DOP853, rtol = atol = 1e-11).
    Referred to the world origin, the noise in its accelerations made it take ~1000 times as many."""
    options = dict(t_end=1.0, solver="DOP853", rtol=1e-11, atol=1e-11, backend="compiled")
    r0, r = chain(np.zeros(3)).simulate(**options), chain(OFFSETS["1 km"]).simulate(**options)
    steps0, steps = r0.stats["steps"], r.stats["steps"]
    assert abs(steps - steps0) <= 0.05 * steps0
    np.testing.assert_allclose(r.q[-1], r0.q[-1], rtol=0, atol=1e-9)


@pytest.mark.parametrize("where", OFFSETS)
def test_contact_and_events_far_from_the_origin(where):
    """A ball dropped on a floor far out: the impacts (rigid contact, restitution 0.8), the gap and a
    user event on the ball's absolute height happen as at the origin."""
    def dropped(offset):
        m = ms.Model("drop", gravity=(0, 0, -9.81))
        m.add_body("ball", mass=0.1, inertia=(1e-4, 1e-4, 1e-4))
        m.add_joint("free", "free", "ground", "ball", q0=list(offset + (0, 0, 1.0)) + [1, 0, 0, 0],
                    v0=[0.3, 0.1, 0, 0, 0, 0])
        m.add_contact("floor", "ball", shape="sphere", radius=0.05, surface="ground", origin=tuple(offset),
                      normal=(0, 0, 1), restitution=0.8, static=0.0, kinetic=0.0)
        m.add_event("ball.position[2]", value=offset[2] + 0.5, direction=-1, name="half")
        return m
    options = dict(t_end=1.2, solver="DOP853", rtol=1e-10, atol=1e-12, t_eval=np.linspace(0, 1.2, 13))
    r0, r = dropped(np.zeros(3)).simulate(**options), dropped(OFFSETS[where]).simulate(**options)
    events0 = [(e.kind, e.name) for e in r0.events]
    assert [(e.kind, e.name) for e in r.events] == events0 and ("impact", "floor") in events0
    np.testing.assert_allclose([e.time for e in r.events], [e.time for e in r0.events], rtol=0, atol=1e-9)
    np.testing.assert_allclose(r["floor.gap"], r0["floor.gap"], rtol=0, atol=1e-9)
