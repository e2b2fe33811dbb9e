"""A UR5 arm from its URDF (tests/data/robots/ur5.urdf, from example-robot-data; licence in that
folder's README): gravity compensation by inverse dynamics, then a point-to-point motion under a
PD law with gravity compensation, sampled at 1 kHz as a real joint controller would be.

1. Holding still: with every joint driven by tau = ID(q, 0, 0) (``ms.inverse_dynamics``), the arm
   held out horizontally does not move: max |q - q0| after 1 s, and the torques against a static
   check (the shoulder carries the whole outstretched arm).
2. Point to point: from q_a to q_b along a quintic (zero velocity and acceleration at both ends) in
   T_MOVE s, tau = ID(q, 0, 0) + Kp (q_ref - q) + Kd (qd_ref - qd) with the gains placing every joint
   at the natural frequency OMEGA (Kp = M_ii OMEGA^2, Kd = 2 M_ii OMEGA from the mass matrix at q_a);
   the tracking error and the final error are printed, the joint angles plotted.

Run: ``python examples/ur5_arm.py`` (``MECHSIM_EXAMPLE_T_END`` shortens the run,
``MECHSIM_EXAMPLE_OUT`` moves the plot).
"""
import sys
import warnings
from pathlib import Path

import numpy as np

try:
    import mechsim as ms
except ImportError:                      # running from a source checkout without installing
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))
    import mechsim as ms
from _figures import animate, draw, new_figure, save  # noqa: E402  (examples/_figures.py)
import _common as common  # noqa: E402  (examples/_common.py)

UR5 = Path(__file__).resolve().parents[1] / "tests" / "data" / "robots" / "ur5.urdf"
JOINTS = ("shoulder_pan_joint", "shoulder_lift_joint", "elbow_joint", "wrist_1_joint", "wrist_2_joint",
          "wrist_3_joint")
Q_A = np.array([0.0, -np.pi / 2, 0.0, -np.pi / 2, 0.0, 0.0])      # upright
Q_B = np.array([1.2, -0.4, -1.1, -1.0, 0.8, 0.5])
T_MOVE, OMEGA, SAMPLE = 2.0, 30.0, 1e-3                             # s, rad/s, s
T_END = common.t_end("3")


def build_model():
    """The UR5 with a joint-force actuator per joint, driven by the inputs ``u_<joint>``."""
    with warnings.catch_warnings():            # its meshes are not shipped; its limits are not simulated yet
        warnings.simplefilter("ignore")
        m = ms.load(UR5)
    for joint in JOINTS:
        m.add_input(f"u_{joint}")
        m.add_force(f"motor_{joint}", "joint_force", joint=joint, value=f"u_{joint}")
    return m


def gravity_torques(m, q):
    """tau = ID(q, 0, 0): what the motors apply to hold the arm still at q."""
    return ms.inverse_dynamics(m, q, np.zeros(len(q)), np.zeros(len(q)))


def quintic(t, qa, qb, duration):
    """(q, qd) of the rest-to-rest quintic 10 s^3 - 15 s^4 + 6 s^5 from qa to qb, s = t / duration."""
    s = min(max(t / duration, 0.0), 1.0)
    blend, rate = 10 * s**3 - 15 * s**4 + 6 * s**5, (30 * s**2 - 60 * s**3 + 30 * s**4) / duration
    return qa + (qb - qa) * blend, (qb - qa) * rate


def hold(m, q0, t_end):
    """Simulate the arm at rest at q0 with the gravity torques of q0 held constant."""
    tau = gravity_torques(m, q0)
    for joint, value in zip(JOINTS, q0):
        m.joints[joint].q0 = value
    inputs = {f"u_{joint}": float(value) for joint, value in zip(JOINTS, tau)}
    return m.simulate(t_end=t_end, inputs=inputs, rtol=1e-9, atol=1e-11), tau


def shoulder_statics(m, res):
    """The shoulder-lift torque that holds the arm, by statics: the moment about the shoulder-lift
    axis of the weights of every body it carries (their COMs from the simulated poses at t = 0)."""
    axis_point, axis = res["upper_arm_link.position"][0], res["upper_arm_link.rotation"][0] @ (0, 1, 0)
    carried = ("upper_arm_link", "forearm_link", "wrist_1_link", "wrist_2_link", "wrist_3_link")
    moment = sum(np.cross(res.point(b, m.bodies[b].com)[0] - axis_point, m.bodies[b].mass * np.asarray(m.gravity))
                 for b in carried)
    return -moment @ axis


def point_to_point(m, t_end):
    """The PD + gravity-compensation move from Q_A to Q_B, the controller sampled every SAMPLE s."""
    for joint, value in zip(JOINTS, Q_A):
        m.joints[joint].q0 = value
    M = ms.mass_matrix(m, Q_A)
    kp, kd = np.diag(M) * OMEGA**2, 2 * np.diag(M) * OMEGA

    def controller(t, outputs):
        q = np.array([outputs[f"{joint}.q"] for joint in JOINTS])
        qd = np.array([outputs[f"{joint}.v"] for joint in JOINTS])
        q_ref, qd_ref = quintic(t, Q_A, Q_B, T_MOVE)
        tau = gravity_torques(m, q) + kp * (q_ref - q) + kd * (qd_ref - qd)
        return {f"u_{joint}": float(value) for joint, value in zip(JOINTS, tau)}

    return m.simulate(t_end=t_end, controller=controller, sample_time=SAMPLE, rtol=1e-8, atol=1e-10,
                      t_eval=np.linspace(0, t_end, int(100 * t_end) + 1))


def joint_angles(res):
    return np.column_stack([res[f"{joint}.q"] for joint in JOINTS])


def main():
    m = build_model()
    q_out = np.array([0.0, 0.0, 0.0, -np.pi / 2, 0.0, 0.0])            # upper arm and forearm horizontal
    res, tau = hold(m, q_out, min(T_END, 1.0))
    drift = np.abs(joint_angles(res) - q_out).max()
    print(f"holding the outstretched arm: gravity torques {np.round(tau, 3).tolist()} N m "
          f"(shoulder lift by statics: {shoulder_statics(m, res):.3f} N m), "
          f"max |q - q0| over {res.t[-1]:g} s = {drift:.2e} rad")
    res, wall = common.timed(point_to_point, m, T_END)
    print(common.run_line(m, res, wall))
    q = joint_angles(res)
    reference = np.array([quintic(t, Q_A, Q_B, T_MOVE)[0] for t in res.t])
    print(f"point to point: max tracking error {np.abs(q - reference).max():.2e} rad, "
          f"final error {np.abs(q[-1] - reference[-1]).max():.2e} rad")
    animate(res, "ur5_arm", bodies="hull")
    fig = new_figure()
    if fig is None:
        return
    ax = fig.add_subplot()
    for k, joint in enumerate(JOINTS):
        draw(ax, res.t, q[:, k], "rad", label=joint)
        draw(ax, res.t, reference[:, k], "rad", color="k", ls=":", lw=0.8)
    ax.set_xlabel("t (s)")
    ax.set_ylabel("joint angle (rad)")
    ax.set_title("UR5: PD with gravity compensation (dotted: quintic reference)")
    ax.legend(fontsize=7)
    save(fig, "ur5_arm")


if __name__ == "__main__":
    main()
