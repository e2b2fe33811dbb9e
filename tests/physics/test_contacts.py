"""Rigid contacts (SPEC §3 add_contact; issue 10): every time, force and velocity against a closed form.

The block is planar (x, y, theta; gravity -y) on two point contacts at its bottom corners (+-a, -b from its
centre of mass): their tangent rows coincide, so the redundancy analysis keeps one of them while both
stick, and each sliding contact carries mu_k times its own normal force. The ball is a free body with a
sphere contact: it bounces, slides and rolls in 3D.
"""
import numpy as np
import pytest

import mechsim as ms

G = 9.81


def block(v0=0.0, mu=(0.3, 0.3), a=0.2, b=0.1, m=2.0, surface_velocity=None, incline=0.0):
    """A block of mass m on two point contacts on the ground plane y = 0 (tilted by ``incline``)."""
    model = ms.Model("block", gravity=(G * np.sin(incline), -G * np.cos(incline), 0.0))
    model.add_body("block", mass=m, inertia=(1.0, 1.0, m * (a * a + b * b) / 3))
    model.add_joint("slide", "planar", "ground", "block", q0=[0.0, b, 0.0], v0=[v0, 0.0, 0.0])
    for name, x in (("front", a), ("back", -a)):
        model.add_contact(name, body="block", point=(x, -b, 0.0), normal=(0, 1, 0), static=mu[0], kinetic=mu[1],
                          surface_velocity=surface_velocity)
    return model


def ball(z0=1.0, v0=(0, 0, 0), w0=(0, 0, 0), r=0.1, m=1.0, restitution=0.0, mu=(0.5, 0.5), incline=0.0):
    """A solid sphere (I = 2/5 m r^2) above the ground plane z = 0, gravity tilted by ``incline`` about y."""
    model = ms.Model("ball", gravity=(G * np.sin(incline), 0.0, -G * np.cos(incline)))
    model.add_body("ball", mass=m, inertia=(0.4 * m * r * r,) * 3)
    model.add_joint("free", "free", "ground", "ball", q0=[0, 0, z0, 1, 0, 0, 0], v0=[*v0, *w0])
    model.add_contact("c", body="ball", shape="sphere", radius=r, restitution=restitution, static=mu[0],
                      kinetic=mu[1])
    return model


def kinds(res, name):
    return [(e.kind, e.time) for e in res.events if e.name == name]


TIGHT = dict(solver="DOP853", rtol=1e-10, atol=1e-10)


def test_block_slides_to_rest_with_its_normal_forces_split_by_the_friction_moment():
    mu, v0, a, b, m = 0.3, 2.0, 0.2, 0.1, 2.0
    model = block(v0=v0, mu=(mu, mu), a=a, b=b, m=m)
    t_stop = v0 / (mu * G)
    res = model.simulate(t_end=1.0, t_eval=np.linspace(0, 1.0, 201), **TIGHT)
    assert res.success, res.message
    stick = [t for kind, t in kinds(res, "front") + kinds(res, "back") if kind == "stick"]
    assert stick and abs(stick[0] - t_stop) < 1e-8
    x = res["slide.q"][:, 0]
    during = res.t < t_stop - 1e-3
    np.testing.assert_allclose(x[during], v0 * res.t[during] - 0.5 * mu * G * res.t[during] ** 2, atol=1e-9)
    assert np.allclose(x[res.t > t_stop], v0 ** 2 / (2 * mu * G), atol=1e-9)
    np.testing.assert_allclose(res["slide.q"][:, 1:], np.column_stack([np.full(len(res.t), b), np.zeros(len(res.t))]),
                               atol=1e-9)
    front, back = res["front.normal_force"], res["back.normal_force"]
    np.testing.assert_allclose(front[during], m * G / 2 * (1 + mu * b / a), rtol=1e-8)
    np.testing.assert_allclose(back[during], m * G / 2 * (1 - mu * b / a), rtol=1e-8)
    friction = res["front.friction_force"] + res["back.friction_force"]
    np.testing.assert_allclose(friction[during, 0], -mu * m * G, rtol=1e-8)
    at_rest = res.t > t_stop + 1e-3
    np.testing.assert_allclose(friction[at_rest], 0.0, atol=1e-8)
    np.testing.assert_allclose((front + back)[at_rest], m * G, rtol=1e-9)
    assert set(res["front.mode"][during]) == {1} and set(res["front.mode"][at_rest]) == {2}
    np.testing.assert_allclose(res["front.slip_velocity"][during, 0], v0 - mu * G * res.t[during], atol=1e-8)


def slider(mu, incline):
    """A block that only translates (its rotation driven to zero) on one point contact below its centre."""
    model = ms.Model("slider", gravity=(G * np.sin(incline), -G * np.cos(incline), 0.0))
    model.add_body("block", mass=2.0, inertia=(1.0, 1.0, 1.0))
    model.add_joint("slide", "planar", "ground", "block", q0=[0.0, 0.1, 0.0])
    model.add_driver("slide", position=0.0, coordinate=2)
    model.add_contact("foot", body="block", point=(0, -0.1, 0), normal=(0, 1, 0), static=mu[0], kinetic=mu[1])
    return model


def test_block_on_a_slope_sticks_below_the_friction_angle_and_slides_above_it():
    theta = np.arctan(0.45)
    held = slider(mu=(0.5, 0.4), incline=theta).simulate(t_end=1.0, **TIGHT)
    assert held.success and np.max(np.abs(held["slide.q"][:, 0])) < 1e-12
    assert set(held["foot.mode"]) == {2}
    np.testing.assert_allclose(held["foot.friction_force"][:, 0], -2.0 * G * np.sin(theta), rtol=1e-10)
    theta, mu_k = np.arctan(0.55), 0.4
    res = slider(mu=(0.5, mu_k), incline=theta).simulate(t_end=1.0, t_eval=[0.0, 0.5, 1.0], **TIGHT)
    assert res.success, res.message
    assert [k for k, _ in kinds(res, "foot")][:2] == ["contact", "slide"]
    accel = G * (np.sin(theta) - mu_k * np.cos(theta))
    np.testing.assert_allclose(res["slide.q"][:, 0], 0.5 * accel * res.t ** 2, atol=1e-9)


def test_slope_loaded_past_the_friction_angle_while_sticking_starts_to_slide_when_the_cone_is_reached():
    """The slope's load grows with an applied force F = c t down the slope: it slides from F + m g sin = mu_s N."""
    theta, mu_s, c, m = np.arctan(0.3), 0.5, 2.0, 2.0
    model = slider(mu=(mu_s, 0.4), incline=theta)
    model.add_force("push", "body_force", body="block", force=[f"{c}*t", "0", "0"])
    res = model.simulate(t_end=3.0, **TIGHT)
    assert res.success, res.message
    t_slide = m * G * (mu_s * np.cos(theta) - np.sin(theta)) / c
    slide = [t for kind, t in kinds(res, "foot") if kind == "slide"]
    assert slide and abs(slide[0] - t_slide) < 1e-8


def test_block_on_a_conveyor_belt_catches_up_with_it_and_rides_along():
    u, mu = 1.5, 0.25
    res = block(mu=(mu, mu), surface_velocity=u).simulate(t_end=1.5, t_eval=np.linspace(0, 1.5, 151), **TIGHT)
    assert res.success, res.message
    t_catch = u / (mu * G)
    stick = [t for kind, t in kinds(res, "front") if kind == "stick"]
    assert stick and abs(stick[0] - t_catch) < 1e-8
    v = res["slide.v"][:, 0]
    np.testing.assert_allclose(v[res.t < t_catch], mu * G * res.t[res.t < t_catch], atol=1e-9)
    np.testing.assert_allclose(v[res.t > t_catch + 1e-3], u, atol=1e-9)
    np.testing.assert_allclose(res["front.slip_velocity"][res.t > t_catch + 1e-3], 0.0, atol=1e-9)


def test_ball_bounces_with_the_restitution_and_comes_to_rest():
    r, z0, e = 0.1, 1.0, 0.8
    res = ball(z0=z0, r=r, restitution=e).simulate(t_end=6.0, **TIGHT)
    assert res.success, res.message
    impacts = [ev for ev in res.events if ev.kind == "impact"]
    t1 = np.sqrt(2 * (z0 - r) / G)
    v1 = G * t1
    expected = t1 + np.concatenate([[0.0], np.cumsum(2 * v1 * e ** np.arange(1, len(impacts)) / G)])
    np.testing.assert_allclose([ev.time for ev in impacts], expected, atol=1e-8)
    t_inf = t1 + 2 * v1 * e / (G * (1 - e))
    assert len(impacts) > 20 and impacts[-1].time < t_inf
    end = res.t > t_inf + 0.1
    np.testing.assert_allclose(res["c.normal_force"][end], G, rtol=1e-9)
    np.testing.assert_allclose(res["ball.position"][end, 2], r, atol=1e-10)
    assert np.min(res["c.gap"]) > -1e-9


def test_ball_sliding_without_spin_starts_rolling_at_two_sevenths():
    """A billiard ball: friction mu g slows it and spins it up (5 mu g / 2 r) until v = w r, at
    t = 2 v0 / (7 mu g); it rolls on at 5/7 v0."""
    r, v0, mu = 0.1, 2.0, 0.2
    res = ball(z0=r, v0=(v0, 0, 0), r=r, mu=(mu, mu)).simulate(t_end=1.0, t_eval=np.linspace(0, 1, 101), **TIGHT)
    assert res.success, res.message
    t_roll = 2 * v0 / (7 * mu * G)
    stick = [t for kind, t in kinds(res, "c") if kind == "stick"]
    assert stick and abs(stick[0] - t_roll) < 1e-8
    v = res["ball.velocity"][:, 0]
    before, after = res.t < t_roll, res.t > t_roll
    np.testing.assert_allclose(v[before], v0 - mu * G * res.t[before], atol=1e-9)
    np.testing.assert_allclose(v[after], 5 * v0 / 7, atol=1e-9)
    np.testing.assert_allclose(res["ball.omega"][after, 1], 5 * v0 / (7 * r), atol=1e-8)
    np.testing.assert_allclose(res["c.friction_force"][after], 0.0, atol=1e-9)
    assert set(res["c.mode"][after]) == {2}


@pytest.mark.parametrize("mu, rolls", [(0.5, True), (0.1, False)])
def test_ball_on_an_incline_rolls_at_five_sevenths_or_slides(mu, rolls):
    theta, r = 0.4, 0.1
    res = ball(z0=r, r=r, mu=(mu, mu), incline=theta).simulate(t_end=1.0, t_eval=[0, 0.5, 1.0], **TIGHT)
    assert res.success, res.message
    accel = 5 / 7 * G * np.sin(theta) if rolls else G * (np.sin(theta) - mu * np.cos(theta))
    np.testing.assert_allclose(res["ball.position"][:, 0], 0.5 * accel * res.t ** 2, atol=1e-9)
    friction = 2 / 7 * G * np.sin(theta) if rolls else mu * G * np.cos(theta)
    np.testing.assert_allclose(res["c.friction_force"][1:, 0], -friction, rtol=1e-8)
    assert set(res["c.mode"][1:]) == {2 if rolls else 1}


@pytest.mark.parametrize("seed", range(6))
def test_oblique_impacts_never_gain_energy(seed):
    """A spinning ball thrown at the ground: Newton's law with Coulomb friction (sticking or sliding
    impulse) never increases the kinetic energy, and a sticking impulse leaves no slip."""
    rng = np.random.default_rng(seed)
    r = 0.1
    v0 = (*rng.uniform(-2, 2, 2), -rng.uniform(0.5, 3))
    w0 = rng.uniform(-30, 30, 3)
    mu = rng.uniform(0.05, 1.0)
    model = ball(z0=r + 1e-3, v0=v0, w0=w0, r=r, restitution=rng.uniform(0, 1), mu=(mu, mu))
    model.gravity = (0, 0, 0)
    res = model.simulate(t_end=0.01, **TIGHT)
    assert res.success, res.message
    assert [e.kind for e in res.events][:1] == ["impact"]
    k = int(np.searchsorted(res.t, res.events[0].time, side="right"))   # the sample after the impact
    kinetic = lambda i: 0.5 * res.v[i, :3] @ res.v[i, :3] + 0.5 * 0.4 * r * r * res.v[i, 3:] @ res.v[i, 3:]
    assert kinetic(k) <= kinetic(0) * (1 + 1e-12)
    if res["c.mode"][-1] == 2:
        assert np.linalg.norm(res["c.slip_velocity"][-1]) < 1e-9


def test_ball_resting_on_a_rising_platform_is_carried_and_pressed_by_its_acceleration():
    """A contact whose surface is a moving body: the platform rises at a = 2 m/s^2 (a driver); the ball on
    it is pressed with m (g + a) and rides along, sticking."""
    r, a, m = 0.1, 2.0, 1.0
    model = ms.Model("lift", gravity=(0, 0, -G))
    model.add_body("platform", mass=5.0, inertia=(1, 1, 1))
    model.add_joint("lift", "prismatic", "ground", "platform", axis=(0, 0, 1))
    model.add_driver("lift", position=f"{a / 2}*t**2")
    model.add_body("ball", mass=m, inertia=(0.4 * m * r * r,) * 3)
    model.add_joint("free", "free", "ground", "ball", q0=[0, 0, r, 1, 0, 0, 0])
    model.add_contact("c", body="ball", shape="sphere", radius=r, surface="platform", static=0.5)
    res = model.simulate(t_end=1.0, t_eval=[0.0, 0.5, 1.0], **TIGHT)
    assert res.success, res.message
    np.testing.assert_allclose(res["ball.position"][:, 2], r + a / 2 * res.t ** 2, atol=1e-9)
    np.testing.assert_allclose(res["c.normal_force"], m * (G + a), rtol=1e-9)
    np.testing.assert_allclose(res["c.gap"], 0.0, atol=1e-10)


def test_contact_file_round_trip_and_bad_input(tmp_path):
    model = block(v0=1.0, surface_velocity=0.5)
    path = tmp_path / "block.yaml"
    model.to_yaml(path)
    again = ms.load(path)
    assert set(again.contacts) == {"front", "back"}
    a = model.simulate(t_end=0.3, t_eval=[0.3], **TIGHT)
    b = again.simulate(t_end=0.3, t_eval=[0.3], **TIGHT)
    np.testing.assert_array_equal(a.q, b.q)
    bad = [(dict(shape="cone"), "shape .cone. is not available"), (dict(shape="sphere"), "radius > 0"),
           (dict(shape="box"), "needs size="), (dict(shape="disk", radius=1, size=(1, 1, 1)), "size= for a box"),
           (dict(static=0.2, kinetic=0.3), "kinetic <= static"), (dict(restitution=2), "restitution must be"),
           (dict(normal=(0, 0, 0)), "zero vector"), (dict(surface="nowhere"), "unknown body 'nowhere'"),
           (dict(model="soft"), "model must be 'rigid' or 'compliant'"), (dict(colour=1), "unknown option"),
           (dict(stiffness=1.0), "stiffness is not for a rigid contact")]
    for options, message in bad:
        with pytest.raises(ms.ModelError, match=message):
            _one_body().add_contact("c", body="b", **options)
    massless = ms.Model()
    massless.add_body("b")
    massless.add_joint("j", "prismatic", "ground", "b")
    massless.add_contact("pad", body="b")
    with pytest.raises(ms.ModelError, match=r"body 'b' has zero mass .* \(contact 'pad' is on it\)"):
        massless.check()
    with pytest.raises(ms.SimulationError, match="starts .* inside the surface"):
        ball(z0=0.05).simulate(t_end=0.1)


def _one_body():
    model = ms.Model()
    model.add_body("b", mass=1.0, inertia=(1, 1, 1))
    model.add_joint("j", "free", "ground", "b")
    return model


def test_rolling_disk_matches_the_sphere_with_a_disks_inertia_and_a_tilted_coin_rolls_on_its_rim():
    """An upright disk rolling down a ramp: a = g sin / (1 + J / (m r^2)) with J = m r^2 / 2 (2/3 g sin).
    A disk whose axis is tilted from the ground touches at its rim's lowest point c = x - r u: rolling
    there keeps c's slip zero, and its gap is held at 0 with the centre r cos(tilt) above the ground."""
    theta, r, m = 0.3, 0.5, 2.0
    model = ms.Model("disk", gravity=(G * np.sin(theta), 0.0, -G * np.cos(theta)))
    model.add_body("disk", mass=m, inertia=(m * r * r / 4, m * r * r / 2, m * r * r / 4))
    model.add_joint("free", "free", "ground", "disk", q0=[0, 0, r, 1, 0, 0, 0])
    model.add_contact("c", body="disk", shape="disk", radius=r, axis=(0, 1, 0), static=0.9)
    res = model.simulate(t_end=1.0, t_eval=[0, 0.5, 1.0], **TIGHT)
    assert res.success, res.message
    np.testing.assert_allclose(res["disk.position"][:, 0], 0.5 * (2 / 3) * G * np.sin(theta) * res.t ** 2, atol=1e-9)
    assert set(res["c.mode"]) == {2}
    tilt = 0.4                                     # a coin leaning over by tilt, rolling in a circle
    coin = ms.Model("coin", gravity=(0, 0, -G))
    coin.add_body("coin", mass=m, inertia=(m * r * r / 4, m * r * r / 2, m * r * r / 4))
    q = np.array([np.cos(tilt / 2), np.sin(tilt / 2), 0, 0])     # rotated about x: the axis leans
    # spinning at 2 rad/s about its axis (body y; a free joint's angular velocity is in body axes), the rim
    # point at the ground moves at 2 r = 1 m/s along x relative to the centre: v = -1 m/s rolls
    coin.add_joint("free", "free", "ground", "coin", q0=[0, 0, r * np.cos(tilt), *q], v0=[-1.0, 0, 0, 0, -2.0, 0])
    coin.add_contact("c", body="coin", shape="disk", radius=r, axis=(0, 1, 0), static=2.0)
    res = coin.simulate(t_end=0.2, t_eval=np.linspace(0, 0.2, 5), **TIGHT)
    assert res.success, res.message
    np.testing.assert_allclose(res["c.gap"], 0.0, atol=1e-9)
    np.testing.assert_allclose(res["c.slip_velocity"], 0.0, atol=1e-9)
    assert set(res["c.mode"]) == {2} and res["coin.position"][-1, 2] < r * np.cos(tilt)    # it rolls and falls over
    inertia = np.diag([m * r * r / 4, m * r * r / 2, m * r * r / 4])
    w_body = np.einsum("nji,nj->ni", res["coin.rotation"], res["coin.omega"])
    energy = 0.5 * m * np.sum(res["coin.velocity"] ** 2, axis=1) + 0.5 * np.einsum("ni,ij,nj->n", w_body, inertia,
                                                                                  w_body) + m * G * res["coin.position"][:, 2]
    np.testing.assert_allclose(energy, energy[0], rtol=1e-9)          # rolling without slip does no work


def test_box_resting_flat_carries_its_weight_on_redundant_corners_and_slides_when_pushed():
    """A box on its four bottom corners: 4 gap rows of rank 3 and 8 slip rows of rank 3 (more rows than
    freedoms); it rests (normal force m g, no motion) and a growing push F = c t along x makes it slide
    when F = mu_s m g, its resultant friction within the cone until then."""
    m, mu, c = 3.0, 0.4, 5.0
    model = ms.Model("box", gravity=(0, 0, -G))
    model.add_body("box", mass=m, inertia=(0.1, 0.1, 0.1))
    model.add_joint("free", "free", "ground", "box", q0=[0, 0, 0.1, 1, 0, 0, 0])
    model.add_contact("c", body="box", shape="box", size=(0.4, 0.3, 0.2), static=mu, kinetic=0.3)
    rest = model.simulate(t_end=1.0, **TIGHT)
    assert rest.success, rest.message
    np.testing.assert_allclose(rest["c.normal_force"], m * G, rtol=1e-10)
    assert np.abs(rest["box.position"] - [0, 0, 0.1]).max() < 1e-12
    model.add_force("push", "body_force", body="box", point=(0, 0, -0.1), force=[f"{c}*t", "0", "0"])
    res = model.simulate(t_end=3.0, **TIGHT)
    assert res.success, res.message
    slide = [e.time for e in res.events if e.kind == "slide"]
    assert slide and abs(slide[0] - mu * m * G / c) < 1e-8


def test_an_event_that_takes_the_friction_away_sets_a_sticking_contact_sliding():
    """sim.set on a contact mid-run (a model-file event's {set: ...}): the block held on a slope below the
    friction angle slides from the instant its friction is set to 0, at g sin from rest."""
    theta = np.arctan(0.3)
    model = slider(mu=(0.5, 0.4), incline=theta)
    model.add_event("block.position[1]", value=0.05, direction=1, name="never")     # a file-style action, unused
    model.add_event(lambda t, state: t - 0.5, name="oil", action={"set": {"foot": {"static": 0.0, "kinetic": 0.0}}})
    res = model.simulate(t_end=1.0, t_eval=[0.25, 0.5, 0.75, 1.0], **TIGHT)
    assert res.success, res.message
    assert [e.kind for e in res.events if e.name in ("oil", "foot")] == ["contact", "user", "slide"]
    np.testing.assert_allclose(res["slide.q"][:, 0], np.maximum(res.t - 0.5, 0) ** 2 * 0.5 * G * np.sin(theta),
                               atol=1e-9)
    with pytest.raises(ms.ModelError, match="set: nothing named 'nothing' among the bodies, joints"):
        model.add_event(lambda t, state: t - 0.5, name="bad", action={"set": {"nothing": {"static": 0.0}}})


@pytest.mark.parametrize("mu", [0.0, 0.5])
def test_box_landing_flat_takes_one_impact_on_all_four_corners(mu):
    """Four corners hit at one instant: one impulse for all of them (Newton's law at each), so the box
    bounces straight up at e v without turning, whatever the order the events come in; resolved one
    after another, the first corner's impulse would set it spinning."""
    e, h, m = 0.5, 0.3, 2.0
    model = ms.Model("box", gravity=(0, 0, -G))
    model.add_body("box", mass=m, inertia=(0.05, 0.08, 0.1))
    model.add_joint("free", "free", "ground", "box", q0=[0, 0, 0.1 + h, 1, 0, 0, 0])
    model.add_contact("c", body="box", shape="box", size=(0.4, 0.3, 0.2), restitution=e, static=mu, kinetic=mu)
    res = model.simulate(t_end=0.4, **TIGHT)
    assert res.success, res.message
    t_hit, v_hit = np.sqrt(2 * h / G), np.sqrt(2 * G * h)
    first = [ev for ev in res.events if ev.kind == "impact"][:4]
    np.testing.assert_allclose([ev.time for ev in first], t_hit, atol=1e-9)
    after = (res.t > t_hit + 1e-9) & (res.t < t_hit + 2 * e * v_hit / G - 1e-6)     # past the samples at the impact
    np.testing.assert_allclose(res["box.velocity"][after, 2], e * v_hit - G * (res.t[after] - t_hit), atol=1e-9)
    np.testing.assert_allclose(res["box.omega"][after], 0.0, atol=1e-9)


def painleve_rod(direction, mu=2.0, theta=np.pi / 3, l=0.5, m=1.0):
    """A uniform rod (half-length l, at theta above the ground) sliding on its lower end A along x."""
    model = ms.Model("rod", gravity=(0, -G, 0))
    model.add_body("rod", mass=m, inertia=(1.0, 1.0, m * l * l / 3))
    model.add_joint("plane", "planar", "ground", "rod", q0=[0, l * np.sin(theta), theta], v0=[direction, 0, 0])
    model.add_contact("end", body="rod", point=(-l, 0, 0), normal=(0, 1, 0), static=mu, kinetic=mu)
    return model


def test_painleve_rod_sliding_backwards_has_no_consistent_mode():
    """The rod's end A sliding at rest in theta: y_A'' = -g + (N / m) B, with B = 1 + 3 cos^2 + 3 mu sin cos
    sliding forwards (+x, friction -mu N) and B = 1 + 3 cos^2 - 3 mu sin cos backwards (from
    derivation: m x_G'' = F, m y_G'' = N - m g, (m l^2 / 3) theta'' = -l cos N + l sin F). For mu = 2 at
    60 deg, B = -0.848 backwards: closed, the contact would pull (N = m g / B < 0); open, the end falls
    through the ground. Forwards (B = 3.35) it slides with N = m g / B."""
    theta, mu = np.pi / 3, 2.0
    res = painleve_rod(1.0).simulate(t_end=0.01, t_eval=[0.0], **TIGHT)
    B = 1 + 3 * np.cos(theta) ** 2 + 3 * mu * np.sin(theta) * np.cos(theta)
    np.testing.assert_allclose(res["end.normal_force"], G / B, rtol=1e-9)
    with pytest.raises(ms.SimulationError, match="Painlevé") as info:
        painleve_rod(-1.0).simulate(t_end=0.01, **TIGHT)
    assert info.value.partial is not None


# ---------------------------------------------------------------------------------- compliant contacts
def test_compliant_ball_rests_at_hertz_depth_and_an_elastic_bounce_keeps_its_energy():
    """Hunt-Crossley f = k d^1.5 + c d^1.5 d': at rest k d^1.5 = m g; with c = 0 the contact is a
    conservative spring of potential k d^2.5 / 2.5, so the energy with it is constant through a bounce."""
    m, r, k = 1.0, 0.1, 1e6
    depth = (m * G / k) ** (1 / 1.5)
    resting = ms.Model("ball", gravity=(0, 0, -G))
    resting.add_body("ball", mass=m, inertia=(0.4 * m * r * r,) * 3)
    resting.add_joint("free", "free", "ground", "ball", q0=[0, 0, r - depth * 0.5, 1, 0, 0, 0])
    resting.add_contact("c", body="ball", shape="sphere", radius=r, model="compliant", stiffness=k, damping=3e7,
                        static=0.5)
    res = resting.simulate(t_end=2.0, t_eval=[2.0], **TIGHT)
    assert res.success, res.message
    np.testing.assert_allclose(res["c.gap"], -depth, rtol=1e-6)
    np.testing.assert_allclose(res["c.normal_force"], m * G, rtol=1e-6)
    assert res["c.mode"][-1] == 1
    elastic = ms.Model("ball", gravity=(0, 0, -G))
    elastic.add_body("ball", mass=m, inertia=(0.4 * m * r * r,) * 3)
    elastic.add_joint("free", "free", "ground", "ball", q0=[0, 0, r + 0.2, 1, 0, 0, 0])
    elastic.add_contact("c", body="ball", shape="sphere", radius=r, model="compliant", stiffness=k)
    res = elastic.simulate(t_end=0.5, t_eval=np.linspace(0, 0.5, 501), **TIGHT)
    assert res.success, res.message
    d = np.maximum(-res["c.gap"], 0.0)
    energy = 0.5 * m * res["ball.velocity"][:, 2] ** 2 + m * G * res["ball.position"][:, 2] + k * d ** 2.5 / 2.5
    assert d.max() > 1e-4                           # it did press into the floor
    np.testing.assert_allclose(energy, energy[0], rtol=1e-7)        # 3e-8: the steps across the touch (f ~ d^1.5)


def test_compliant_block_slides_with_regularized_coulomb_friction():
    """A block on a compliant point contact (resting at its static depth) launched at v0: kinetic friction
    mu m g decelerates it, v = v0 - mu g t, while the slip is far above slip_tolerance."""
    mu, v0, m, k = 0.3, 2.0, 2.0, 1e7
    depth = m * G / k
    model = ms.Model("slider", gravity=(0, -G, 0))
    model.add_body("block", mass=m, inertia=(1.0, 1.0, 1.0))
    model.add_joint("slide", "planar", "ground", "block", q0=[0.0, 0.1 - depth, 0.0], v0=[v0, 0.0, 0.0])
    model.add_driver("slide", position=0.0, coordinate=2)
    model.add_contact("foot", body="block", point=(0, -0.1, 0), normal=(0, 1, 0), kinetic=mu, static=mu,
                      model="compliant", stiffness=k, damping=2 * np.sqrt(k * m), exponent=1.0, slip_tolerance=1e-4)
    res = model.simulate(t_end=0.5, t_eval=np.linspace(0, 0.5, 11), solver="DOP853", rtol=1e-9, atol=1e-10)
    assert res.success, res.message
    np.testing.assert_allclose(res["slide.v"][:, 0], v0 - mu * G * res.t, atol=1e-6)
    np.testing.assert_allclose(res["foot.friction_force"][1:, 0], -mu * m * G, rtol=1e-5)
    with pytest.raises(ms.ModelError, match="restitution is not for a compliant contact"):
        model.add_contact("bad", body="block", model="compliant", stiffness=1.0, restitution=0.5)
    with pytest.raises(ms.ModelError, match="needs stiffness > 0"):
        model.add_contact("bad", body="block", model="compliant")
