"""Spherical pendulum with flywheel (Del Citto, Pennestrì & Vita 2005, "Coordinates reduction and
numerical integration of constrained multibody systems", §4.2).

A straight rod hangs from the ground on a ball joint at one end; at its other end a flywheel
turns on a revolute joint about the rod's axis. Masses and inertias are the paper's (tables 2
and 3, principal axes at the centres of mass; the rod and the wheel axis are their local z):

    rod    2.71944 kg, diag(0.05708, 0.05708, 0.0008498) kg m^2
    wheel  4.89499 kg, diag(0.02779, 0.02779, 0.05507)   kg m^2

The paper's figure 7 (geometry, initial pose) is not in the text we have. These inertias are
exactly those of a solid cylinder 0.5 m long and 0.025 m in radius (rod) and of a disk 0.15 m
in radius and 0.025 m thick (wheel), so we take: rod length 0.5 m, ball joint at one end, wheel
centre at the other end (0.5 m from the pivot), rod initially hanging 30 degrees from the
downward vertical, at rest. Gravity along -Z.

Timeline (paper): for the first 1.5 s gravity is the only force — the tilted, non-spinning pendulum swings;
then a constant torque along the wheel's own z axis for 3 s (we take 5 N m: the paper does not
give the value; it spins the wheel up to 272 rad/s); then no torque: the spinning pendulum
precesses about the vertical under gravity, nutating.

Two modelling notes (see examples/README.md):

* The paper's torque acts on the wheel from outside ("directed along the z axis of its local
  system"). A motor between rod and wheel (a joint_force on the wheel's revolute joint) alone
  is NOT the same: its reaction spins the rod backwards about its own axis, which a ball joint
  does not resist (and the rod's axial inertia is tiny), and the total angular momentum along
  the axis stays zero — no gyroscopic effect at all (``react_to_ground=False`` shows it).
  mechsim's body_force torque is given in world axes as a function of time, so it cannot follow
  the wheel's axis. We therefore add a joint_force on the ball joint itself: a spherical joint's
  generalized forces are the torque in its child frame's axes, so the value [0, 0, torque]
  is a torque about the rod's own axis from the ground, which takes the motor's reaction. The
  net effect is exactly the paper's torque on the wheel about its axis.
* The paper keeps gravity on throughout (``spherical_pendulum_flywheel.yaml``). The variant
  ``zero_g=True`` (``spherical_pendulum_flywheel_zero_g.yaml``) switches gravity off for
  t >= 1.5 s with a body_force m g at each body's centre of mass: after the torque ends the
  motion is torque-free, the angular momentum about the pivot is conserved, and the rod axis
  cones about it at the rate |L| / I_perp.

Run: ``python examples/spherical_pendulum_flywheel.py [--zero-g] [--internal-torque]``
(``--internal-torque`` uses 0.05 N m: the rod counter-spins 65 times faster than the wheel)
(``MECHSIM_EXAMPLE_T_END`` shortens the run, ``MECHSIM_EXAMPLE_OUT`` moves the plot).
"""
import sys
from pathlib import Path

import numpy as np

try:
    import mechsim as ms
except ImportError:                      # running from a source checkout without installing
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))
    import mechsim as ms
from _figures import animate, dense, draw, new_figure, save  # noqa: E402  (examples/_figures.py)
import _common as common  # noqa: E402  (examples/_common.py)

G = 9.81
M_ROD, I_ROD = 2.71944, (0.05708, 0.05708, 0.0008498)        # Del Citto, Pennestrì & Vita 2005, table 2
M_WHEEL, I_WHEEL = 4.89499, (0.02779, 0.02779, 0.05507)      # Del Citto, Pennestrì & Vita 2005, table 3
ROD_LENGTH = 0.5                                             # ours, from the inertias (see above)
TILT0 = np.pi / 6                                            # ours: 30 degrees from the downward vertical
TORQUE, T_ON, T_OFF = 5.0, 1.5, 4.5                          # N m (ours), s, s (paper)
DOWN = [[1, 0, 0], [0, -1, 0], [0, 0, -1]]                   # pivot frame: z pointing down (-Z)

T_END = common.t_end("10")


def build_model(zero_g=False, torque=TORQUE, react_to_ground=True):
    """The pendulum. ``zero_g``: gravity cancelled for t >= 1.5 s; ``react_to_ground=False``:
    the wheel torque is a plain motor between rod and wheel (no gyroscopic effect, see above)."""
    name = "spherical-pendulum-flywheel" + ("-zero-g" if zero_g else "") + ("" if react_to_ground else "-internal-torque")
    m = ms.Model(name, gravity=(0, 0, -G))
    # body frames at the centres of mass, z along the rod / the wheel axis
    m.add_body("rod", mass=M_ROD, inertia=I_ROD,
               frames={"pivot": (0, 0, -ROD_LENGTH / 2), "end": (0, 0, ROD_LENGTH / 2)})
    m.add_body("wheel", mass=M_WHEEL, inertia=I_WHEEL)
    # the ball joint; at q = identity the rod hangs straight down, q0 tilts it about X
    m.add_joint("ball", "spherical", parent="ground", child="rod", parent_frame=((0, 0, 0), DOWN),
                child_frame="pivot", q0={"euler": [TILT0, 0.0, 0.0], "seq": "xyz"})
    m.add_joint("spin", "revolute", parent="rod", child="wheel", parent_frame="end", axis=(0, 0, 1))

    # expressions of t (not Python functions) keep the run compiled and let the integrator restart where
    # they switch (t = T_ON, T_OFF)
    wheel_torque = f"{torque}*(t >= {T_ON})*(t < {T_OFF})"
    m.add_force("motor", "joint_force", joint="spin", value=wheel_torque)
    if react_to_ground:
        # the motor's reaction on the rod is taken by the ground: a spherical joint's generalized
        # forces are the torque in its child frame (the rod's axes), z being the rod axis
        m.add_force("motor_reaction", "joint_force", joint="ball", value=[0.0, 0.0, wheel_torque])
    if zero_g:
        for body, mass in (("rod", M_ROD), ("wheel", M_WHEEL)):
            m.add_force(f"{body}_antigravity", "body_force", body=body, point=(0, 0, 0),
                        force=(0.0, 0.0, f"{mass}*{G}*(t >= {T_ON})"))
    return m


def simulate(m, t_end=T_END, samples_per_second=200):
    return m.simulate(t_end=t_end, t_eval=np.linspace(0, t_end, int(samples_per_second * t_end) + 1),
                      rtol=1e-9, atol=1e-11)


# ------------------------------------------------------------------ analysis helpers (used by the tests)
def rod_axis(res):
    """(N, 3) unit vector along the rod, from the pivot towards the wheel."""
    return res["rod.rotation"][:, :, 2]


def tilt_and_azimuth(axis):
    """Angle of the rod from the downward vertical and its azimuth about +Z (unwrapped), rad."""
    return np.arccos(np.clip(-axis[:, 2], -1, 1)), np.unwrap(np.arctan2(axis[:, 1], axis[:, 0]))


def angular_momentum(m, res):
    """(N, 3) total angular momentum about the pivot (the world origin), world axes."""
    L = np.zeros((len(res.t), 3))
    for name in ("rod", "wheel"):
        body = m.bodies[name]
        R, w = res[f"{name}.rotation"], res[f"{name}.omega"]
        c, v = res[f"{name}.position"], res[f"{name}.velocity"]          # body frames at the COMs
        L += np.einsum("nij,jk,nlk,nl->ni", R, body.inertia, R, w) + body.mass * np.cross(c, v)
    return L


def energy(m, res, gravity=True):
    """Kinetic energy, plus the gravity potential when ``gravity``, J."""
    E = np.zeros(len(res.t))
    for name in ("rod", "wheel"):
        body = m.bodies[name]
        R, w, v = res[f"{name}.rotation"], res[f"{name}.omega"], res[f"{name}.velocity"]
        Iw = np.einsum("nij,jk,nlk,nl->ni", R, body.inertia, R, w)
        E += 0.5 * body.mass * np.einsum("ni,ni->n", v, v) + 0.5 * np.einsum("ni,ni->n", w, Iw)
        if gravity:
            E += body.mass * G * res[f"{name}.position"][:, 2]
    return E


def transverse_inertia():
    """Moment of inertia of rod + wheel about a line through the pivot, across the rod."""
    return (I_ROD[0] + M_ROD * (ROD_LENGTH / 2) ** 2) + (I_WHEEL[0] + M_WHEEL * ROD_LENGTH ** 2)


def gravity_moment():
    """m g l of rod + wheel about the pivot, N m."""
    return G * (M_ROD * ROD_LENGTH / 2 + M_WHEEL * ROD_LENGTH)


def axial_momentum(res):
    """(N,) angular momentum of the wheel and rod along the rod axis (h)."""
    e3 = rod_axis(res)
    return (I_WHEEL[2] * np.einsum("ni,ni->n", res["wheel.omega"], e3)
            + I_ROD[2] * np.einsum("ni,ni->n", res["rod.omega"], e3))


def steady_precession_rate(h, tilt):
    """Steady precession rate of the hanging gyro pendulum (heavy symmetric top with the axis
    below the pivot): I cos(tilt) W^2 + h W - m g l = 0, the slow root."""
    a = transverse_inertia() * np.cos(tilt)
    return (-h + np.sqrt(h * h + 4 * a * gravity_moment())) / (2 * a)


def guiding_center_azimuth(res, period):
    """(times, azimuth) of the rod axis averaged over one nutation period: the precession."""
    e3 = rod_axis(res)
    n = max(1, int(round(period / (res.t[1] - res.t[0]))))
    kernel = np.ones(n) / n
    x, y = np.convolve(e3[:, 0], kernel, "valid"), np.convolve(e3[:, 1], kernel, "valid")
    return res.t[n // 2:n // 2 + len(x)], np.unwrap(np.arctan2(y, x)), np.arcsin(np.hypot(x, y))


def main(argv=()):
    zero_g = "--zero-g" in argv
    react = "--internal-torque" not in argv
    m = build_model(zero_g=zero_g, react_to_ground=react,
                    torque=TORQUE if react else 0.05)    # the counter-spinning rod needs a small torque
    res = simulate(m)
    e3 = rod_axis(res)
    tilt, az = tilt_and_azimuth(e3)
    L, h = angular_momentum(m, res), axial_momentum(res)
    E = energy(m, res, gravity=not zero_g)
    print(common.run_line(m, res))
    for t in (0.0, T_ON, T_OFF, res.t[-1]):
        if t <= res.t[-1]:
            i = np.searchsorted(res.t, t - 1e-12)
            print(f"t = {res.t[i]:5.2f} s: tilt {np.degrees(tilt[i]):6.2f} deg, azimuth {np.degrees(az[i]):8.2f} deg, "
                  f"wheel spin {res['spin.v'][i]:8.3f} rad/s, h = {h[i]:7.4f} N m s, "
                  f"L = ({L[i, 0]:+.4f}, {L[i, 1]:+.4f}, {L[i, 2]:+.4f}) N m s")
    after = res.t >= T_OFF
    if after.sum() > 2:
        spin = res["spin.v"][after]
        print(f"after the torque: wheel spin {spin.mean():.6f} rad/s (spread {np.ptp(spin):.1e}), "
              f"energy spread {np.ptp(E[after]):.1e} J, tilt {np.degrees(tilt[after].min()):.1f}"
              f"..{np.degrees(tilt[after].max()):.1f} deg")
        if zero_g:
            Lm = L[after]
            print(f"|L| = {np.linalg.norm(Lm[0]):.6f} N m s, max |L - L(4.5)| = {np.abs(Lm - Lm[0]).max():.1e}; "
                  f"free precession about L at |L|/I = {np.linalg.norm(Lm[0]) / transverse_inertia():.4f} rad/s")
        elif react and res.t[-1] > T_OFF + 1.0:
            period = 2 * np.pi * transverse_inertia() / h[after][0]
            tc, azc, tiltc = guiding_center_azimuth(res, period)
            sel = tc >= T_OFF + 0.5
            rate = (azc[sel][-1] - azc[sel][0]) / (tc[sel][-1] - tc[sel][0])
            print(f"precession about the vertical: {rate:.3f} rad/s "
                  f"(steady-precession theory {steady_precession_rate(h[after][0], tiltc[sel].mean()):.3f} rad/s), "
                  f"{np.degrees(azc[sel][-1] - azc[sel][0]):.0f} deg in {tc[sel][-1] - tc[sel][0]:.2f} s")
    variant = ("_zero_g" if zero_g else "") + ("" if react else "_internal_torque")
    animate(res, "spherical_pendulum_flywheel" + variant)
    plot(res, variant)
    return res


def plot(res, variant):
    fig = new_figure(figsize=(11, 6))
    if fig is None:
        return
    axes = fig.subplot_mosaic([["xy", "tilt"], ["xy", "azimuth"], ["xy", "spin"]])
    d = dense(res)
    wheel = d["wheel.position"]
    for lo, hi, label in ((0, T_ON, "free swing"), (T_ON, T_OFF, "spin-up"), (T_OFF, np.inf, "after the torque")):
        k = (d.t >= lo) & (d.t <= hi)
        if k.any():
            draw(axes["xy"], wheel[k, 0], wheel[k, 1], "m", x_unit="m", lw=0.8, label=label)
    axes["xy"].set_aspect("equal", adjustable="datalim")       # a planar swing keeps a readable width
    axes["xy"].ticklabel_format(useOffset=False)
    axes["xy"].set_xlabel("X (m)")
    axes["xy"].set_ylabel("Y (m)")
    axes["xy"].set_title("wheel centre seen from above\n(cf. Del Citto, Pennestrì & Vita 2005, fig. 8)")
    axes["xy"].legend(fontsize=8)
    tilt, azimuth = tilt_and_azimuth(rod_axis(d))
    for key, values, unit, label in (("tilt", np.degrees(tilt), "deg", "rod tilt from the vertical (deg)"),
                                     ("azimuth", np.degrees(azimuth), "deg", "rod azimuth (deg)"),
                                     ("spin", d["spin.v"], "rad/s", "wheel spin (rad/s)")):
        draw(axes[key], d.t, values, unit)
        axes[key].set_ylabel(label)
        axes[key].axvspan(T_ON, T_OFF, color="0.9")
        axes[key].grid(True, alpha=0.3)
    axes["tilt"].sharex(axes["spin"])
    axes["azimuth"].sharex(axes["spin"])
    axes["tilt"].set_title("shaded: the torque on the wheel", fontsize=9)
    axes["spin"].set_xlabel("t (s)")
    fig.suptitle("Spherical pendulum with flywheel" + {"_zero_g": " (gravity off after 1.5 s)",
                                                       "_internal_torque": " (motor torque only: no gyroscopic effect)"
                                                       }.get(variant, ""))
    save(fig, f"spherical_pendulum_flywheel{variant}")


if __name__ == "__main__":
    main(sys.argv[1:])
