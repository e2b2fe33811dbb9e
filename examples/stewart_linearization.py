"""Stewart platform linearized about its rest (Březina et al. 2008: the platform's
linear model from SimMechanics' linmod, checked against the nonlinear model's step response).

The platform of ``stewart_platform.py`` (six UPS legs on spring-dampers, dof 6) with a force actuator
on each leg: inputs ``f1`` .. ``f6`` (N), ``joint_force`` elements ``a1`` .. ``a6`` on the prismatic
joints ``p1`` .. ``p6`` (positive lengthens the leg).

1. ``m.trim()``: the rest under the platform's weight (velocities and accelerations zero, the five cut
   ball joints closed) — the platform a few millimetres below the nominal pose.
2. ``m.linearize(op, inputs=[f1..f6], outputs=[platform position, quaternion vector part],
   minimal=True)``: exactly 12 states (2 x 6 DOF, the independent coordinates mechsim picks), all
   eigenvalues in the left half plane (springs and dampers). ``minimal=False`` gives 2 nv = 42 states
   whose dependent columns are zero: the same 12 eigenvalues and 30 zeros.
3. A small constant force on leg 1 from rest at the trim point, the linear model (exact step response by
   the matrix exponential) against the nonlinear simulation: the paper compares its linear and nonlinear
   models within a few per cent; here they agree to far better than 1 % for a 1 N step.

Run: ``python examples/stewart_linearization.py`` (``MECHSIM_EXAMPLE_T_END`` shortens the step run,
``MECHSIM_EXAMPLE_OUT`` moves the plot).
"""
import sys
from pathlib import Path

import numpy as np

try:
    import mechsim  # noqa: F401  (stewart_platform imports it too)
except ImportError:                      # running from a source checkout without installing
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))
from _figures import animate, draw, new_figure, save  # noqa: E402  (examples/_figures.py)
import _common as common  # noqa: E402  (examples/_common.py)
import stewart_platform as sp  # noqa: E402  (examples/stewart_platform.py)

INPUTS = [f"f{i}" for i in range(1, 7)]
OUTPUTS = ["platform.position", "platform.quat[1]", "platform.quat[2]", "platform.quat[3]"]
STEP = {"f1": 1.0}                       # N: a small constant force on leg 1
T_END = common.t_end("1")
RATE = 400


def build_model():
    """stewart_platform's model with a force input on every leg."""
    m = sp.build_model()
    m.name = "stewart-platform-actuated"
    for i, name in enumerate(INPUTS, 1):
        m.add_input(name)
        m.add_force(f"a{i}", "joint_force", joint=f"p{i}", value=name)
    return m


def linearize(m, op, minimal=True, **options):
    return m.linearize(op, inputs=INPUTS, outputs=OUTPUTS, minimal=minimal, **options)


def output_values(res):
    """The outputs of OUTPUTS from a Result: (N, 6) platform position and quaternion vector part."""
    return np.column_stack([res["platform.position"], res["platform.quat"][:, 1:]])


def linear_step(lin, t, step=STEP):
    """Outputs of the linear model (deviations from the operating point) for the constant inputs
    ``step`` from x = 0: x(t) = int_0^t expm(A s) ds B u, exactly, by one augmented matrix exponential."""
    from scipy.linalg import expm
    u = np.array([step.get(name, 0.0) for name in lin.input_names])
    n = lin.A.shape[0]
    aug = np.zeros((n + 1, n + 1))
    aug[:n, :n], aug[:n, n] = lin.A, lin.B @ u
    x = np.array([expm(aug * s)[:n, n] for s in t])
    return x @ lin.C.T + lin.D @ u


def nonlinear_step(m, op, t_end=T_END, step=STEP, rate=RATE):
    """The nonlinear model from rest at ``op`` with the constant inputs ``step``: its Result."""
    return sp.simulate(m, t_end=t_end, rate=rate, initial=op, inputs=dict(step))


def step_comparison(m, op, lin, t_end=T_END, step=STEP):
    """(t, nonlinear output deviations, linear outputs, max error / max |linear| over all outputs)."""
    res = nonlinear_step(m, op, t_end, step)
    y0 = output_values(res)[0]
    y_nl = output_values(res) - y0
    y_lin = linear_step(lin, res.t, step)
    return res, y_nl, y_lin, np.abs(y_nl - y_lin).max() / np.abs(y_lin).max()


def op_value(m, op, joint):
    """A 1-DOF joint's coordinate at a State."""
    return float(op.q[m.coordinates()[0].index(f"{joint}.q")])


def nonzero_eigenvalues(A, tol=1e-6):
    """The eigenvalues of A larger than tol (times the largest) in magnitude, sorted."""
    e = np.linalg.eigvals(A)
    return np.sort_complex(e[np.abs(e) > tol * np.abs(e).max()])


def main():
    m = build_model()
    print(m.check())
    op = m.trim()
    legs = np.array([op_value(m, op, f"p{i}") for i in range(1, 7)])
    print(f"trim: leg extensions {np.array2string(1e3 * legs, precision=4)} mm, residual {np.max(op.residual):.1e}")
    lin = linearize(m, op)
    eig = np.sort_complex(np.linalg.eigvals(lin.A))
    print(f"minimal linearization: {lin.A.shape[0]} states {lin.state_names}")
    print(f"  independent: {lin.independent}")
    print(f"  eig(A) = {np.array2string(eig, precision=3)}")
    full = linearize(m, op, minimal=False, independent=lin.independent)
    e_full = nonzero_eigenvalues(full.A)
    print(f"full linearization: {full.A.shape[0]} states, {len(e_full)} nonzero eigenvalues, "
          f"max |difference| to the minimal's {np.abs(e_full - eig).max() if len(e_full) == len(eig) else np.nan:.2e}")
    res, y_nl, y_lin, rel = step_comparison(m, op, lin)
    print(common.run_line(m, res))
    z = res["platform.position"][0, 2]
    print(f"platform at rest at z = {z:.6f} m ({1e3 * (sp.HEIGHT - z):.4f} mm below the nominal pose)")
    print(f"step {STEP} N: platform moves {1e6 * np.abs(y_nl[:, :3]).max():.3f} um, "
          f"max |nonlinear - linear| / max |linear| = {rel:.2e}")
    animate(res, "stewart_linearization")
    plot(res.t, y_nl, y_lin)
    return lin


def plot(t, y_nl, y_lin):
    fig = new_figure(figsize=(10, 4))
    if fig is None:
        return
    a1, a2 = fig.subplots(1, 2)
    for k, axis in enumerate("xyz"):
        line, = draw(a1, t, 1e6 * y_nl[:, k], "µm", label=f"{axis} nonlinear")
        draw(a1, t, 1e6 * y_lin[:, k], "µm", ls="--", color="k", lw=0.8)
        draw(a2, t, 2e6 * y_nl[:, 3 + k], "µrad", color=line.get_color(), label=f"about {axis}, nonlinear")
        draw(a2, t, 2e6 * y_lin[:, 3 + k], "µrad", ls="--", color="k", lw=0.8)
    a1.set_ylabel("platform position change (µm)")
    a2.set_ylabel("platform rotation (µrad)")
    a2.set_title("2 × the quaternion's vector part", fontsize=9)
    for ax in (a1, a2):
        ax.set_xlabel("t (s)")
        ax.legend(fontsize=8, title="dashed: linear", title_fontsize=8)
        ax.grid(True, alpha=0.3)
    fig.suptitle(f"Stewart platform: {STEP['f1']:g} N step on leg 1 from the trimmed rest, linear vs nonlinear")
    save(fig, "stewart_linearization")


if __name__ == "__main__":
    main()
