"""Contacts with curved surfaces (add_contact surface_shape "sphere" / "cylinder", outside or inside;
issue 10): every motion against an independent tree model or a closed form.

A ball in a bowl or a disk rolling in a cylinder moves as a pendulum: its centre stays at rho = R - r from
the surface's centre. Sliding without friction, a point mass at rho (a revolute joint: no contact rows at
all). Rolling, the contact point is the instantaneous centre: the centre's speed rho phi' = -r w, so
T = (m + J / r^2) rho^2 phi'^2 / 2, V = -m g rho cos(phi): a pendulum of length L = rho (1 + J / (m r^2)).
"""
import numpy as np
import pytest

import mechsim as ms

G = 9.81
TIGHT = dict(solver="DOP853", rtol=1e-11, atol=1e-12)


def pendulum(length, phi0, t_end, t_eval):
    """phi(t) and phi'(t) of a point mass on a massless rod (the reference, a tree model)."""
    m = ms.Model("pendulum", gravity=(0, -G, 0))
    m.add_body("bob", mass=1.0, com=(0, -length, 0), inertia=(0, 0, 0))
    m.add_joint("phi", "revolute", "ground", "bob", axis=(0, 0, 1), q0=phi0)
    res = m.simulate(t_end=t_end, t_eval=t_eval, **TIGHT)
    return res["phi.q"], res["phi.v"]


def test_ball_in_a_frictionless_bowl_swings_as_a_pendulum_of_length_R_minus_r_pressed_by_m_g_cos_plus_m_rho_w2():
    R, r, m, phi0 = 1.0, 0.2, 2.0, 0.6
    rho = R - r
    model = ms.Model("bowl", gravity=(0, -G, 0))
    model.add_body("ball", mass=m, inertia=(0.4 * m * r * r,) * 3)
    model.add_joint("free", "free", "ground", "ball", q0=[rho * np.sin(phi0), R - rho * np.cos(phi0), 0, 1, 0, 0, 0])
    model.add_contact("bowl", body="ball", shape="sphere", radius=r, surface_shape="sphere", surface_radius=R,
                      inside=True, origin=(0, R, 0))
    t = np.linspace(0, 3.0, 301)
    res = model.simulate(t_end=3.0, t_eval=t, **TIGHT)
    assert res.success, res.message
    phi, w = pendulum(rho, phi0, 3.0, t)
    x = res["ball.position"]
    np.testing.assert_allclose(x[:, 0], rho * np.sin(phi), atol=1e-8)
    np.testing.assert_allclose(x[:, 1], R - rho * np.cos(phi), atol=1e-8)
    np.testing.assert_allclose(x[:, 2], 0.0, atol=1e-12)
    np.testing.assert_allclose(res["bowl.normal_force"], m * (G * np.cos(phi) + rho * w ** 2), rtol=1e-7)
    np.testing.assert_allclose(res["bowl.gap"], 0.0, atol=1e-9)
    np.testing.assert_allclose(res["free.v"][:, 3:], 0.0, atol=1e-12)           # no friction: no spin
    assert [e.kind for e in res.events] == ["contact"]


def rolling_in_a_cylinder(R=1.5, r=0.25, m=1.0, J=0.03, phi0=0.9, mu=(1.0, 1.0), t_end=3.0, t_eval=None):
    """A disk (planar body: x, y, theta) rolling inside a cylinder of axis z through (0, R)."""
    rho = R - r
    model = ms.Model("cylinder", gravity=(0, -G, 0))
    model.add_body("disk", mass=m, inertia=(J / 2, J / 2, J))
    model.add_joint("plane", "planar", "ground", "disk", q0=[rho * np.sin(phi0), R - rho * np.cos(phi0), 0.0])
    model.add_contact("rim", body="disk", shape="sphere", radius=r, surface_shape="cylinder", surface_radius=R,
                      surface_axis=(0, 0, 1), inside=True, origin=(0, R, 0), static=mu[0], kinetic=mu[1])
    return model.simulate(t_end=t_end, t_eval=t_eval, **TIGHT)


def test_disk_rolling_inside_a_cylinder_is_a_pendulum_of_length_rho_1_plus_J_over_m_r2_with_its_friction_force():
    R, r, m, J, phi0 = 1.5, 0.25, 1.0, 0.03, 0.9
    rho, t = R - r, np.linspace(0, 3.0, 301)
    res = rolling_in_a_cylinder(R, r, m, J, phi0, t_eval=t)
    assert res.success, res.message
    phi, w = pendulum(rho * (1 + J / (m * r * r)), phi0, 3.0, t)
    q = res["plane.q"]
    np.testing.assert_allclose(q[:, 0], rho * np.sin(phi), atol=1e-8)
    np.testing.assert_allclose(q[:, 1], R - rho * np.cos(phi), atol=1e-8)
    np.testing.assert_allclose(q[:, 2], -rho * (phi - phi0) / r, atol=1e-8)       # rolling: rho phi' = -r theta'
    assert np.all(res["rim.mode"] == 2)
    # along the tangent (cos, sin): m rho phi'' = -m g sin + F_t; the normal force N = m (g cos + rho phi'^2)
    a = -G * np.sin(phi) / (1 + J / (m * r * r))
    tangent = np.column_stack([np.cos(phi), np.sin(phi), np.zeros_like(phi)])
    np.testing.assert_allclose(res["rim.friction_force"], (m * a + m * G * np.sin(phi))[:, None] * tangent, atol=1e-7)
    np.testing.assert_allclose(res["rim.normal_force"], m * (G * np.cos(phi) + rho * w ** 2), rtol=1e-7)
    np.testing.assert_allclose(res["rim.slip_velocity"], 0.0, atol=1e-9)


def test_disk_in_a_cylinder_slides_without_friction_and_keeps_its_spin():
    R, r, phi0, t = 1.5, 0.25, 0.9, np.linspace(0, 2.0, 101)
    res = rolling_in_a_cylinder(R, r, phi0=phi0, mu=(0.0, 0.0), t_end=2.0, t_eval=t)
    phi, w = pendulum(R - r, phi0, 2.0, t)
    np.testing.assert_allclose(res["plane.q"][:, 0], (R - r) * np.sin(phi), atol=1e-8)
    np.testing.assert_allclose(res["plane.q"][:, 2], 0.0, atol=1e-12)
    slip = res["rim.slip_velocity"]
    np.testing.assert_allclose(slip[:, 0], (R - r) * w * np.cos(phi), atol=1e-7)   # the centre's speed: no spin


def two_balls(b, v=1.0, e=1.0, r=0.1, gap=0.3, m=(1.0, 1.0)):
    """Ball 1 at (-gap - 2r, b) moving at (v, 0, 0) towards ball 2 resting at the origin, no gravity."""
    model = ms.Model("billiards", gravity=(0, 0, 0))
    for name, mass, x, y, vx in (("one", m[0], -gap - 2 * r, b, v), ("two", m[1], 0.0, 0.0, 0.0)):
        model.add_body(name, mass=mass, inertia=(0.4 * mass * r * r,) * 3)
        model.add_joint(f"{name}_free", "free", "ground", name, q0=[x, y, 0, 1, 0, 0, 0], v0=[vx, 0, 0, 0, 0, 0])
    model.add_contact("hit", body="one", shape="sphere", radius=r, surface="two", surface_shape="sphere",
                      surface_radius=r, restitution=e)
    return model


@pytest.mark.parametrize("b", [0.0, 0.07, 0.15])
def test_equal_balls_colliding_elastically_exchange_their_velocity_along_the_line_of_centres(b):
    r, v, gap = 0.1, 1.0, 0.3
    res = two_balls(b, v=v, r=r, gap=gap).simulate(t_end=1.0, **TIGHT)
    assert res.success, res.message
    # the centres are 2r apart when ball 1 has moved gap + 2r - sqrt(4 r^2 - b^2)
    t_hit = (gap + 2 * r - np.sqrt(4 * r * r - b * b)) / v
    hit = [e for e in res.events if e.kind == "impact"]
    assert len(hit) == 1 and abs(hit[0].time - t_hit) < 1e-10
    n = np.array([np.sqrt(4 * r * r - b * b), -b, 0.0]) / (2 * r)        # from ball 1 to ball 2 at the impact
    v1, v2 = res["one_free.v"][-1, :3], res["two_free.v"][-1, :3]
    np.testing.assert_allclose(v2, v * n[0] * n, atol=1e-12)
    np.testing.assert_allclose(v1, v * np.array([1.0, 0, 0]) - v * n[0] * n, atol=1e-12)
    assert abs(v1 @ v1 + v2 @ v2 - v * v) < 1e-12


def test_head_on_impact_with_restitution_keeps_the_momentum_and_gives_e_times_the_approach():
    e, v, m = 0.6, 2.0, (1.0, 3.0)
    res = two_balls(0.0, v=v, e=e, m=m).simulate(t_end=1.0, **TIGHT)
    v1, v2 = res["one_free.v"][-1, 0], res["two_free.v"][-1, 0]
    assert abs(m[0] * v1 + m[1] * v2 - m[0] * v) < 1e-12
    assert abs((v2 - v1) - e * v) < 1e-12


def test_compliant_ball_stays_in_a_bowl_at_the_hertz_depth():
    R, r, m, k = 1.0, 0.1, 1.0, 1e6
    depth = (m * G / k) ** (2 / 3)                           # k d^1.5 = m g
    model = ms.Model("bowl", gravity=(0, -G, 0))
    model.add_body("ball", mass=m, inertia=(0.4 * m * r * r,) * 3)
    model.add_joint("free", "free", "ground", "ball", q0=[0, r - depth, 0, 1, 0, 0, 0])
    model.add_contact("bowl", body="ball", shape="sphere", radius=r, surface_shape="sphere", surface_radius=R,
                      inside=True, origin=(0, R, 0), model="compliant", stiffness=k, damping=1e3)
    res = model.simulate(t_end=2.0, solver="Radau", rtol=1e-8, atol=1e-10)
    assert res.success, res.message
    assert abs(res["ball.position"][-1, 1] - (r - depth)) < 1e-9
    assert abs(res["bowl.normal_force"][-1] - m * G) < 1e-6
    assert abs(res["bowl.gap"][-1] + depth) < 1e-9


@pytest.mark.parametrize("options, message", [
    (dict(surface_shape="torus"), "surface_shape 'torus' is not available"),
    (dict(surface_shape="sphere"), "needs surface_radius > 0"),
    (dict(surface_shape="sphere", surface_radius=1.0, normal=(0, 1, 0)), "normal= is not for a sphere surface"),
    (dict(surface_radius=1.0), "surface_radius= is not for a plane surface"),
    (dict(surface_shape="cylinder", surface_radius=1.0, shape="disk"), "a disk's rim touches planes only"),
    (dict(surface_shape="sphere", surface_radius=0.1, inside=True), "does not fit inside the sphere"),
    (dict(surface_shape="sphere", surface_radius=1.0, inside="yes"), "inside must be true or false"),
    (dict(surface_shape="sphere", surface_radius=1.0, surface_velocity=1.0), "surface_velocity= is not for a sphere"),
])
def test_bad_curved_surfaces_are_refused_naming_the_contact(options, message):
    model = ms.Model("m")
    model.add_body("ball", mass=1.0, inertia=(0.1, 0.1, 0.1))
    model.add_joint("free", "free", "ground", "ball")
    opts = dict(body="ball", shape="sphere", radius=0.2)
    opts.update(options)
    if opts["shape"] == "disk":
        opts["radius"] = 0.2
    with pytest.raises(ms.ModelError, match=f"contact 'c'.*{message}"):
        model.add_contact("c", **opts)


def cradle(n=5, e=1.0, theta0=0.4, l=0.3, r=0.02, m=0.1):
    """Newton's cradle: n balls on pendulums (revolute about z, pivots 2r apart: the balls touch at rest),
    the first pulled aside to theta0 and let go; sphere-sphere contacts between neighbours."""
    model = ms.Model("cradle", gravity=(0, -G, 0))
    for k in range(n):
        model.add_body(f"ball{k}", mass=m, com=(0, -l, 0), inertia=(0.4 * m * r * r,) * 3)
        model.add_joint(f"swing{k}", "revolute", "ground", f"ball{k}", parent_frame=(2 * r * k, 0, 0),
                        axis=(0, 0, 1), q0=-theta0 if k == 0 else 0.0)
    for k in range(n - 1):
        model.add_contact(f"c{k}", body=f"ball{k + 1}", point=(0, -l, 0), shape="sphere", radius=r,
                          surface=f"ball{k}", origin=(0, -l, 0), surface_shape="sphere", surface_radius=r,
                          restitution=e)
    return model


def quarter_period(l, theta0, r=0.02):
    """The time a ball (radius r) on a pendulum of length l takes from rest at theta0 to the bottom: a
    physical pendulum of length L = (m l^2 + 2/5 m r^2) / (m l), sqrt(L / g) K(sin^2(theta0 / 2))."""
    from scipy.special import ellipk
    return np.sqrt((l + 0.4 * r * r / l) / G) * ellipk(np.sin(theta0 / 2) ** 2)


def bottom_rate(l, theta0, r=0.02):
    """Its rate at the bottom: (m l^2 + 2/5 m r^2) w^2 / 2 = m g l (1 - cos theta0)."""
    return np.sqrt(2 * G * l * (1 - np.cos(theta0)) / (l * l + 0.4 * r * r))


def test_newtons_cradle_passes_the_whole_speed_to_the_last_ball_and_back():
    l, theta0, n, m = 0.3, 0.4, 5, 0.1
    t1 = quarter_period(l, theta0)
    t = np.sort(np.concatenate([np.linspace(0, 5 * t1, 201), [t1 + 1e-9, 3 * t1 + 1e-9]]))
    res = cradle(n=n, l=l, theta0=theta0, m=m).simulate(t_end=5 * t1, t_eval=t, **TIGHT)
    assert res.success, res.message
    impacts = [e for e in res.events if e.kind == "impact"]
    # the first ball strikes at t1 and the impact runs down the row at that instant; the last ball swings out
    # and back (2 t1), strikes at 3 t1 and the first ball swings out
    assert [e.name for e in impacts] == ["c0", "c1", "c2", "c3", "c3", "c2", "c1", "c0"]
    assert all(abs(e.time - t1) < 1e-9 for e in impacts[:4])
    assert all(abs(e.time - 3 * t1) < 1e-9 for e in impacts[4:])
    speed = bottom_rate(l, theta0)                                     # the first ball's rate at the bottom
    w = np.array([res[f"swing{k}.v"] for k in range(n)])
    after_first, after_second = np.searchsorted(t, t1 + 1e-9), np.searchsorted(t, 3 * t1 + 1e-9)
    np.testing.assert_allclose(w[:, after_first], [0, 0, 0, 0, speed], atol=1e-9)
    np.testing.assert_allclose(w[:, after_second], [-speed, 0, 0, 0, 0], atol=1e-9)
    q = np.array([res[f"swing{k}.q"] for k in range(n)])
    assert abs(q[-1].max() - theta0) < 1e-8                           # the last ball rises to theta0
    between = (t > t1 + 1e-6) & (t < 3 * t1 - 1e-6)
    assert np.all(np.abs(q[:-1, between]) < 1e-9)                    # while the others rest
    energy = (0.5 * m * (l * l + 0.4 * 0.02 ** 2) * w ** 2 + m * G * l * (1 - np.cos(q))).sum(axis=0)
    np.testing.assert_allclose(energy, energy[0], rtol=1e-9)


def test_plastic_cradle_sets_the_whole_row_moving_together_at_one_nth_of_the_speed():
    l, theta0, n, m = 0.3, 0.4, 4, 0.1
    t1 = quarter_period(l, theta0)
    t = np.array([0.0, t1 + 1e-9])
    res = cradle(n=n, l=l, theta0=theta0, m=m, e=0.0).simulate(t_end=t1 + 1e-9, t_eval=t, **TIGHT)
    assert res.success, res.message
    speed = bottom_rate(l, theta0)
    # each plastic impact in turn: the struck ball joins the moving group, momentum kept: all at speed / n
    np.testing.assert_allclose([res[f"swing{k}.v"][-1] for k in range(n)], speed / n, rtol=1e-9)


def test_ball_struck_while_resting_on_the_ground_slides_off_then_rolls_at_five_sevenths():
    r, m, v, mu = 0.1, 1.0, 1.0, 0.2
    model = ms.Model("pool", gravity=(0, 0, -G))
    for name, x, vx, friction in (("cue", -0.5, v, 0.0), ("ball", 0.0, 0.0, mu)):
        model.add_body(name, mass=m, inertia=(0.4 * m * r * r,) * 3)
        model.add_joint(f"{name}_free", "free", "ground", name, q0=[x, 0, r, 1, 0, 0, 0], v0=[vx, 0, 0, 0, 0, 0])
        model.add_contact(f"{name}_table", body=name, shape="sphere", radius=r, static=friction, kinetic=friction)
    model.add_contact("hit", body="cue", shape="sphere", radius=r, surface="ball", surface_shape="sphere",
                      surface_radius=r, restitution=1.0)
    t_hit = (0.5 - 2 * r) / v
    t_roll = t_hit + 2 * v / (7 * mu * G)                      # v - mu g t = 5/2 mu g t (r w' = 5/2 mu g)
    res = model.simulate(t_end=t_roll + 0.5, t_eval=[t_hit + 1e-9, t_roll + 0.5], **TIGHT)
    assert res.success, res.message
    np.testing.assert_allclose(res["cue_free.v"][0, :3], 0.0, atol=1e-12)         # the resting ball is free in the impact
    np.testing.assert_allclose(res["ball_free.v"][0, :3], [v, 0, 0], atol=1e-9)
    rolls = [e.time for e in res.events if e.name == "ball_table" and e.kind == "stick"]
    assert len(rolls) == 1 and abs(rolls[0] - t_roll) < 1e-8
    np.testing.assert_allclose(res["ball_free.v"][-1, :3], [5 * v / 7, 0, 0], atol=1e-9)


def test_removing_a_contact_the_run_does_not_have_names_the_ones_it_has():
    model = two_balls(0.0)
    model.add_event(lambda t, state: t - 0.1, direction=1, name="drop",
                    action=lambda sim, t, state: sim.remove_contact("nope"))
    with pytest.raises(ms.ModelError, match=r"remove_contact\(\): no contact 'nope' \(contacts: hit\)"):
        model.simulate(t_end=0.2, **TIGHT)
