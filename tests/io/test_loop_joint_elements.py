"""Limits, friction and dampers on the joint that closes a loop in a robot file (io/urdf.py
_trade_cuts): a URDF loop <joint>, a <gazebo> joint and an SDF cut joint. Such a joint goes into the
spanning tree and the child link's other joint is cut instead, so that its elements act on a
coordinate of its own. The oracles: the energy balance of the damped, rubbing four-bar, and the free
four-bar's motion up to the instant the stop is hit."""
import warnings

import numpy as np
import pytest
from scipy.integrate import simpson

import mechsim as ms
from test_sdf import four_bar_sdf
from test_urdf import gazebo_four_bar
from test_urdf_export import as_four_bar_yaml, four_bar_urdf

DAMPING, FRICTION, UPPER = 0.4, 0.2, 0.1         # N m s, N m, rad (j3 turns ~0.3 rad in the first second)
FORMATS = ["urdf", "gazebo", "sdf"]


def urdf_axis(dynamics, limit):
    return (('<joint name="j3" type="revolute">', '<axis xyz="0 0 1"/></joint>\n</robot>'),
            ('<joint name="j3" type="revolute">',
             f'<axis xyz="0 0 1"/>{dynamics and f"<dynamics {dynamics}/>"}{limit and f"<limit {limit}/>"}'
             "</joint>\n</robot>"))


def four_bar(tmp_path, fmt, damping=0.0, friction=0.0, upper=None):
    """The four-bar of examples/four_bar.yaml from a file of the format ``fmt``, all joints at zero in
    its assembled pose, its loop joint j3 with the given damping, friction and upper limit, and the
    YAML model's 6 N m crank motor (and its gravity for the URDF files)."""
    sdf_dynamics = f"<dynamics><damping>{damping}</damping><friction>{friction}</friction></dynamics>"
    sdf_limit = "" if upper is None else f"<limit><lower>-1</lower><upper>{upper}</upper></limit>"
    if fmt == "urdf":
        path, _ = four_bar_urdf(tmp_path, "joint")
        dynamics = f'damping="{damping}" friction="{friction}"' if damping or friction else ""
        limit = "" if upper is None else f'lower="-1" upper="{upper}"'
        (head, tail), (new_head, new_tail) = urdf_axis(dynamics, limit)
        text = path.read_text().replace('<joint name="j3" type="continuous">', head)
        path.write_text(text.replace(tail, new_tail))
    elif fmt == "gazebo":
        path, _ = gazebo_four_bar(tmp_path, '<joint name="j3" type="revolute"><parent>coupler</parent>'
                                            '<child>rocker</child><pose>2.5 0 0 0 0 0</pose><axis><xyz>0 0 1</xyz>'
                                            f'{sdf_dynamics}{sdf_limit}</axis></joint>')
    else:
        path = four_bar_sdf(tmp_path)
        text = path.read_text()
        j3 = text.index('<joint name="j3"')
        axis_end = text.index("</axis>", j3)
        path.write_text(text[:axis_end] + sdf_dynamics + sdf_limit + text[axis_end:])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        m = ms.load(path)
    if fmt == "sdf":
        m.add_force("motor", "joint_force", joint="j1", value=6.0)
        return m, [str(w.message) for w in caught]
    return as_four_bar_yaml(m), [str(w.message) for w in caught]


def energy(m, res):
    """Kinetic plus potential energy of the bodies along a Result."""
    g = np.asarray(m.gravity, dtype=float)
    total = np.zeros(len(res.t))
    for name, body in m.bodies.items():
        if name == "ground":
            continue
        R, omega = res[f"{name}.rotation"], res[f"{name}.omega"]
        com = res[f"{name}.position"] + R @ body.com
        v_com = res[f"{name}.velocity"] + np.cross(omega, R @ body.com)
        inertia = R @ np.asarray(body.inertia) @ np.transpose(R, (0, 2, 1))
        total += 0.5 * body.mass * np.sum(v_com ** 2, axis=1) + 0.5 * np.einsum("ni,nij,nj->n", omega, inertia, omega)
        total -= body.mass * com @ g
    return total


@pytest.mark.parametrize("fmt", FORMATS)
def test_loop_joint_damper_and_friction_act_and_balance_the_energy(tmp_path, fmt):
    """j3 closes the loop in the file; it carries a damper and Coulomb friction, the rocker's joint j4
    none, so j4 is cut and j3 is a tree joint. Over 1 s the mechanism's energy changes by the motor's
    work less what the damper (c w3^2) and the friction (F |w3|) dissipate:
    E(t) - E(0) = int 6 w1 - c w3^2 - F |w3| dt (w3 does not change sign in this second)."""
    m, messages = four_bar(tmp_path, fmt, damping=DAMPING, friction=FRICTION)
    assert not m.joints["j3"].cut and m.joints["j4"].cut
    assert m.check().cut_joints == ["j4"] and m.check().dof == 1
    assert not any("cut joint" in message for message in messages)
    assert m.forces["j3_damping"].damping[0] == DAMPING
    assert m.forces["j3_friction"].static == m.forces["j3_friction"].kinetic == FRICTION
    t = np.linspace(0.0, 1.0, 2001)
    res = m.simulate(t_end=1.0, solver="DOP853", rtol=1e-11, atol=1e-11, t_eval=t)
    assert res.success, res.message
    w1, w3 = res["j1.v"], res["j3.v"]
    assert np.all(w3[1:] > 0) and res["j3.q"][-1] > 0.2          # it slips the whole second
    power = 6.0 * w1 - DAMPING * w3 ** 2 - FRICTION * np.abs(w3)
    work = np.array([simpson(power[:k + 1], x=t[:k + 1]) for k in range(200, len(t), 200)])
    gained = energy(m, res)[200::200] - energy(m, res)[0]
    assert np.abs(gained - work).max() < 1e-8 * np.abs(work).max()
    dissipated = simpson(DAMPING * w3 ** 2 + FRICTION * np.abs(w3), x=t)
    assert dissipated > 0.01 * np.abs(work).max()       # the elements matter in the balance


@pytest.mark.parametrize("fmt", FORMATS)
def test_loop_joint_stop_is_hit_where_the_free_motion_reaches_it(tmp_path, fmt):
    """j3's upper limit 0.1 rad is a rigid stop (restitution 0). Up to the hit the motion is the free
    four-bar's, so the free model reaches j3 = 0.1 at the hit time; the plastic hit stops the one-DOF
    linkage, and the motor holds it against the stop."""
    m, _ = four_bar(tmp_path, fmt, upper=UPPER)
    free, _ = four_bar(tmp_path, fmt)
    assert not m.joints["j3"].cut and free.joints["j3"].cut          # nothing to trade without the limit
    options = dict(solver="DOP853", rtol=1e-11, atol=1e-11)
    res = m.simulate(t_end=1.0, t_eval=np.linspace(0, 1, 101), **options)
    assert res.success, res.message
    hits = [e for e in res.events if e.name.startswith("j3_limit")]
    assert hits, res.events
    t_hit = hits[0].time
    assert 0.3 < t_hit < 0.8
    reached = free.simulate(t_end=t_hit, t_eval=[t_hit], **options)
    j3 = reached["j4.q"] - reached["j1.q"] - reached["j2.q"]    # planar: the rocker's angle to the coupler
    assert abs(j3[-1] - UPPER) < 1e-8
    assert res["j3.q"].max() < UPPER + 1e-9
    after = res.t > t_hit + 1e-6
    assert np.abs(res["j3.q"][after] - UPPER).max() < 1e-9 and np.abs(res["j1.v"][after]).max() < 1e-8
    assert np.all(res["j3_limit.force"][after] != 0)


def test_a_loop_joint_keeps_its_cut_when_the_other_joint_has_elements_too(tmp_path):
    """j4 (the rocker's tree joint) has a damper too: the loop must be cut at one of the two, so j3 stays
    cut, and the warning names it as not simulated. A zero outside the limits also keeps j3 cut."""
    path, _ = four_bar_urdf(tmp_path, "joint")
    (head, tail), (new_head, new_tail) = urdf_axis('damping="0.4"', "")
    text = path.read_text().replace('<joint name="j3" type="continuous">', head).replace(tail, new_tail)
    path.write_text(text.replace('<axis xyz="0 0 1"/></joint>\n<joint name="j3"',
                                 '<axis xyz="0 0 1"/><dynamics damping="0.1"/></joint>\n<joint name="j3"'))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        m = ms.load(path)
    assert m.joints["j3"].cut and "j3_damping" not in m.forces and m.forces["j4_damping"].damping[0] == 0.1
    assert any("the limits, friction, damping and springs of 1 cut joint(s) (j3) are kept" in str(w.message)
               for w in caught)
    with pytest.warns(UserWarning, match="mesh|cut joint"):
        m = ms.load(path, limits=False)            # nothing traded: the file's loop joint is the cut
    assert m.joints["j3"].cut and "j4_damping" in m.forces
    m, messages = four_bar(tmp_path, "urdf", upper=-0.5)
    assert m.joints["j3"].cut and "j3_limit" not in m.forces
    assert any("of 1 cut joint(s) (j3)" in message for message in messages)
