"""Shared model builders and energy/momentum bookkeeping for the physics checks."""
from types import SimpleNamespace

import numpy as np
import pytest
from scipy.spatial.transform import Rotation

import mechsim as ms

TIGHT = dict(solver="DOP853", rtol=1e-10, atol=1e-12)


def rot(axis, angle):
    a = np.asarray(axis, dtype=float)
    return Rotation.from_rotvec(a / np.linalg.norm(a) * angle).as_matrix()


def point_pendulum(theta0, length=0.8, g=9.81, mass=1.3, v0=0.0):
    """A point mass on a massless rod, hinged about world z; theta = 0 hangs along -y."""
    m = ms.Model("pendulum", gravity=(0, -g, 0))
    m.add_body("bob", mass=mass, com=(0, -length, 0))
    m.add_joint("j", "revolute", parent="ground", child="bob", axis=(0, 0, 1), q0=theta0, v0=v0)
    return m


def compound_pendulum(theta0, g=9.81):
    """A rod whose body frame is at its middle, COM offset along body x, inertia with products of
    inertia, hinged at a child frame 0.4 m from the body origin and turned so that it hangs down
    (along -y) at q = 0. Returns (model, mass, pivot-to-COM distance d, inertia about the hinge)."""
    mass, com = 1.7, np.array([0.1, 0.0, 0.0])
    # tensor entries (Ixx, Iyy, Izz, Ixy, Ixz, Iyz); the products do not enter the motion about z
    inertia = (0.006, 0.09, 0.092, 0.0005, 0.001, -0.001)
    pivot = np.array([-0.4, 0.0, 0.0])
    d = np.linalg.norm(com - pivot)
    I_hinge = inertia[2] + mass * d ** 2             # Izz about the COM + parallel axis (hinge along z)
    m = ms.Model("compound", gravity=(0, -g, 0))
    m.add_body("rod", mass=mass, com=com, inertia=inertia)
    # M is turned +90 deg about z in the body: the body is then turned -90 deg in F, its +x down
    m.add_joint("j", "revolute", parent="ground", child="rod", parent_frame=(0.2, 0.3, -0.1),
                child_frame=(pivot, rot((0, 0, 1), np.pi / 2)), axis=(0, 0, 1), q0=theta0)
    return m, mass, d, I_hinge


def kinetic_energy(m, res):
    return np.array([0.5 * v @ ms.mass_matrix(m, q) @ v for q, v in zip(res.q, res.v)])


def gravity_potential(m, res):
    g = np.asarray(m.gravity, dtype=float)
    V = np.zeros(len(res.t))
    for name, body in m.bodies.items():
        if name != "ground" and body.mass > 0:
            V -= body.mass * (res.point(name, body.com) @ g)
    return V


def spring_potential(res, springs):
    """springs: {joint name: (stiffness, rest)} for joint_spring_damper elements without damping."""
    V = np.zeros(len(res.t))
    for joint, (k, rest) in springs.items():
        q = np.asarray(res[f"{joint}.q"]).reshape(len(res.t), -1)
        V += 0.5 * np.sum(np.asarray(k) * (q - np.asarray(rest)) ** 2, axis=1)
    return V


def total_energy(m, res, springs=None):
    T = kinetic_energy(m, res)
    return T, T + gravity_potential(m, res) + spring_potential(res, springs or {})


def box_inertia(mass, a, b, c):
    return mass / 12.0 * np.array([b * b + c * c, a * a + c * c, a * a + b * b])


def chain_mixed_revolute(n=5):
    """A 3D chain of n links with revolute axes in different directions and offset, turned frames."""
    m = ms.Model("chain5", gravity=(0, 0, -9.81))
    axes = [(0, 0, 1), (1, 0, 0), (0, 1, 0), (1, 1, 0), (0.3, -0.5, 0.8)]
    parent = "ground"
    for i in range(n):
        name = f"l{i}"
        m.add_body(name, mass=1.0 + 0.2 * i, com=(0.15, 0.02 * i, -0.01),
                   inertia=(*box_inertia(1.0 + 0.2 * i, 0.3, 0.08, 0.06), 0.0002, 0.0, 0.0001))
        m.add_joint(f"j{i}", "revolute", parent=parent, child=name,
                    parent_frame=((0.3, 0.0, 0.0) if i else (0, 0, 0), rot((1, 2, 3), 0.2 * i)),
                    child_frame=((-0.02, 0.01, 0.0), rot((0, 0, 1), 0.1)),
                    axis=axes[i % len(axes)], q0=0.4 + 0.3 * i, v0=0.5 - 0.2 * i)
        parent = name
    return m


def chain_spherical_universal():
    m = ms.Model("su", gravity=(0, -9.81, 0))
    m.add_body("a", mass=1.2, com=(0, -0.3, 0.02), inertia=(*box_inertia(1.2, 0.15, 0.6, 0.12), 0.0, 0.0, 0.001))
    m.add_body("b", mass=0.8, com=(0.01, -0.25, 0), inertia=box_inertia(0.8, 0.12, 0.5, 0.1))
    m.add_body("c", mass=0.5, com=(0, -0.2, 0), inertia=box_inertia(0.5, 0.2, 0.4, 0.1))
    m.add_joint("ball", "spherical", parent="ground", child="a",
                q0={"euler": [0.6, -0.3, 0.4], "seq": "xyz"}, v0=(0.5, -1.0, 2.0))
    m.add_joint("u", "universal", parent="a", child="b", parent_frame=(0, -0.6, 0),
                axes=((1, 0, 0), (0, 0, 1)), q0=(0.7, -0.4), v0=(1.0, 0.3))
    m.add_joint("ball2", "spherical", parent="b", child="c", parent_frame=((0.0, -0.5, 0.0), rot((1, 0, 0), 0.3)),
                child_frame=(0.0, 0.05, 0.0), q0=(0.9, 0.1, 0.3, -0.2), v0=(0.0, 3.0, -1.0))
    return m


def gimbal_bushing_springs():
    """A body on a gimbal joint and a second body on a bushing, both with joint springs (no damping).
    Returns (model, springs) where springs maps joint -> (stiffness, rest)."""
    m = ms.Model("gb", gravity=(0.0, -9.81, 0.0))
    m.add_body("g", mass=1.0, com=(0.05, -0.2, 0.0), inertia=(*box_inertia(1.0, 0.2, 0.3, 0.1), 0.001, 0.0, 0.0))
    m.add_body("s", mass=0.7, com=(0.0, -0.1, 0.03), inertia=box_inertia(0.7, 0.15, 0.1, 0.2))
    kg, rg = np.array([3.0, 2.0, 4.0]), np.array([0.1, -0.2, 0.0])
    kb, rb = np.array([80.0, 60.0, 100.0, 5.0, 4.0, 6.0]), np.array([0.0, -0.1, 0.0, 0.0, 0.1, 0.0])
    m.add_joint("gim", "gimbal", parent="ground", child="g", parent_frame=(0, 0, 0.1), seq="zxy",
                q0=(0.3, 0.4, -0.2), v0=(1.0, -0.5, 0.8))
    m.add_joint("bush", "bushing", parent="g", child="s", parent_frame=((0.0, -0.4, 0.0), rot((0, 1, 0), 0.4)),
                child_frame=(0.02, 0.0, 0.0), q0=(0.05, -0.08, 0.02, 0.3, -0.2, 0.25),
                v0=(0.1, 0.3, -0.2, 1.0, 0.5, -0.7))
    m.add_force("kg", "joint_spring_damper", joint="gim", stiffness=kg, damping=0.0, rest=rg)
    m.add_force("kb", "joint_spring_damper", joint="bush", stiffness=kb, damping=0.0, rest=rb)
    return m, {"gim": (kg, rg), "bush": (kb, rb)}


@pytest.fixture
def phys():
    return SimpleNamespace(TIGHT=TIGHT, rot=rot, point_pendulum=point_pendulum, compound_pendulum=compound_pendulum,
                           kinetic_energy=kinetic_energy, gravity_potential=gravity_potential,
                           spring_potential=spring_potential, total_energy=total_energy, box_inertia=box_inertia,
                           chain_mixed_revolute=chain_mixed_revolute,
                           chain_spherical_universal=chain_spherical_universal,
                           gimbal_bushing_springs=gimbal_bushing_springs)
