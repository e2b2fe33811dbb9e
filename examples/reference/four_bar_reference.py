"""Independent reference solution of the four-bar of Khan, Tang & Krovi (2006, §5.1, Table 1).

Regenerate ``four_bar.json`` beside this file with ``python examples/reference/four_bar_reference.py``.
It uses numpy, scipy and sympy only — nothing from mechsim.

Model (Khan, Tang & Krovi 2006, Fig. 1, eq. (19)). Ground pivots A = (0, 0) and D = (l0, 0); gravity -g along y.
Absolute angles from the horizontal: crank AB at theta, coupler BC at alpha, rocker DC at phi:
    B = l1 e(theta),  C = B + l2 e(alpha) = D + l3 e(phi),   e(x) = (cos x, sin x).
Table 1: l0 = 3, l1 = 1, l2 = 4, l3 = 2.5 m; m_i = 1 kg; l_ci = l_i / 2; I_i = m_i l_i^2 / 12;
theta(0) = 1.5708 rad, all velocities zero; tau_theta = 6 N m; g = 9.81 m/s^2. The paper's
alpha(0) = 0.3533 and phi(0) = 1.2649 are 4-digit roundings: here both are solved from the loop at
theta(0) = 1.5708 (circle intersection, the branch with C on the left of B -> D, i.e. the paper's).

Method 1 (the reference, "minimal"): Lagrange's equation in the crank angle alone.
  * Positions: for a given theta, C is the intersection of the circles |C - B| = l2 and
    |C - D| = l3 (closed form), alpha = atan2(C - B), phi = atan2(C - D).
  * Velocities: differentiating the loop l1 e(theta) + l2 e(alpha) - l3 e(phi) = (l0, 0) and
    dotting with e(phi) resp. e(alpha) gives alpha' = a theta', phi' = b theta' with
        a = -l1 sin(phi - theta) / (l2 sin(phi - alpha)),  b = l1 sin(alpha - theta) / (l3 sin(alpha - phi)).
  * Kinetic energy T = 1/2 mu(theta) theta'^2 with
        mu = (m1 lc1^2 + I1) + m2 l1^2 + 2 m2 l1 lc2 cos(alpha - theta) a + (m2 lc2^2 + I2) a^2 + (m3 lc3^2 + I3) b^2
    (crank about A; coupler's centre of mass B + lc2 e(alpha); rocker about D).
    Potential V = g [m1 lc1 sin(theta) + m2 (l1 sin(theta) + lc2 sin(alpha)) + m3 lc3 sin(phi)].
  * Lagrange: mu theta'' + 1/2 mu'(theta) theta'^2 + V'(theta) = tau, where d/dtheta of any f(theta,
    alpha, phi) is f_theta + a f_alpha + b f_phi (sympy does the differentiation).
  Integrated with scipy solve_ivp DOP853, rtol 1e-12, atol 1e-12 (dense output).
Method 2 (a cross-check): the paper's index-1 DAE in (theta, alpha, phi) (its eq. (21) with M, V, G
  of eq. (18) and A of eq. (20)), accelerations and multipliers from the augmented system
  [M A^T; A 0], integrated the same way, positions projected back onto the loop only when reported.
  Its distance to method 1 is stored as "cross_check_max_diff".
"""
import json
from pathlib import Path

import numpy as np
import sympy as sp
from scipy.integrate import solve_ivp

L0, L1, L2, L3 = 3.0, 1.0, 4.0, 2.5
M1 = M2 = M3 = 1.0
LC1, LC2, LC3 = L1 / 2, L2 / 2, L3 / 2
I1, I2, I3 = M1 * L1 ** 2 / 12, M2 * L2 ** 2 / 12, M3 * L3 ** 2 / 12
G = 9.81
TAU = 6.0
THETA0 = 1.5708
T_END = 10.0
RTOL = ATOL = 1e-12
OUT = Path(__file__).resolve().with_name("four_bar.json")


def loop_angles(theta):
    """(alpha, phi) closing the loop at crank angle theta (circle intersection, the paper's branch)."""
    B = np.array([L1 * np.cos(theta), L1 * np.sin(theta)])
    D = np.array([L0, 0.0])
    d = D - B
    dist = np.hypot(*d)
    x = (dist ** 2 + L2 ** 2 - L3 ** 2) / (2 * dist)          # along B -> D from B
    h = np.sqrt(L2 ** 2 - x ** 2)                           # to the left of B -> D
    u = d / dist
    C = B + x * u + h * np.array([-u[1], u[0]])
    return np.arctan2(C[1] - B[1], C[0] - B[0]), np.arctan2(C[1] - D[1], C[0] - D[0])


def _minimal_equation():
    """mu(theta, alpha, phi), 1/2 mu' and V' as numpy functions, derived with sympy."""
    th, al, ph = sp.symbols("theta alpha phi")
    a = -L1 * sp.sin(ph - th) / (L2 * sp.sin(ph - al))
    b = L1 * sp.sin(al - th) / (L3 * sp.sin(al - ph))
    mu = (M1 * LC1 ** 2 + I1 + M2 * L1 ** 2 + 2 * M2 * L1 * LC2 * sp.cos(al - th) * a
          + (M2 * LC2 ** 2 + I2) * a ** 2 + (M3 * LC3 ** 2 + I3) * b ** 2)
    V = G * (M1 * LC1 * sp.sin(th) + M2 * (L1 * sp.sin(th) + LC2 * sp.sin(al)) + M3 * LC3 * sp.sin(ph))

    def total(f):                                           # d/dtheta along the loop
        return sp.diff(f, th) + a * sp.diff(f, al) + b * sp.diff(f, ph)

    args = (th, al, ph)
    return (sp.lambdify(args, mu, "numpy"), sp.lambdify(args, total(mu) / 2, "numpy"),
            sp.lambdify(args, total(V), "numpy"), sp.lambdify(args, a, "numpy"), sp.lambdify(args, b, "numpy"),
            sp.lambdify(args, V, "numpy"))


MU, HALF_DMU, DV, RATIO_A, RATIO_B, POTENTIAL = _minimal_equation()


def minimal_rhs(_, y):
    theta, w = y
    al, ph = loop_angles(theta)
    return [w, (TAU - HALF_DMU(theta, al, ph) * w * w - DV(theta, al, ph)) / MU(theta, al, ph)]


def dae_rhs(_, y):
    """Khan, Tang & Krovi 2006, eq. (21): M q'' + V + G = E u - A^T lambda, A q'' = -A' q' (index 1)."""
    th, al, ph, wt, wa, wp = y
    c = np.cos(al - th)
    s = np.sin(al - th)
    M = np.array([[M1 * LC1 ** 2 + I1 + M2 * L1 ** 2, M2 * L1 * LC2 * c, 0.0],
                  [M2 * L1 * LC2 * c, I2 + M2 * LC2 ** 2, 0.0],
                  [0.0, 0.0, M3 * LC3 ** 2 + I3]])
    Vv = np.array([-M2 * L1 * LC2 * s * wa ** 2, M2 * L1 * LC2 * s * wt ** 2, 0.0])
    Gv = np.array([(M1 * LC1 + M2 * L1) * G * np.cos(th), M2 * G * LC2 * np.cos(al), M3 * G * LC3 * np.cos(ph)])
    A = np.array([[L1 * np.sin(th), L2 * np.sin(al), -L3 * np.sin(ph)],
                  [-L1 * np.cos(th), -L2 * np.cos(al), L3 * np.cos(ph)]])
    Adot_qdot = np.array([L1 * np.cos(th) * wt ** 2 + L2 * np.cos(al) * wa ** 2 - L3 * np.cos(ph) * wp ** 2,
                          L1 * np.sin(th) * wt ** 2 + L2 * np.sin(al) * wa ** 2 - L3 * np.sin(ph) * wp ** 2])
    K = np.zeros((5, 5))
    K[:3, :3], K[:3, 3:], K[3:, :3] = M, A.T, A
    rhs = np.concatenate([np.array([TAU, 0.0, 0.0]) - Vv - Gv, -Adot_qdot])
    return [wt, wa, wp, *np.linalg.solve(K, rhs)[:3]]


def energy(theta, w):
    """Kinetic + potential energy (J) of the minimal model."""
    al, ph = loop_angles(theta)
    return 0.5 * MU(theta, al, ph) * w * w + POTENTIAL(theta, al, ph)


def solve(t_out):
    sol = solve_ivp(minimal_rhs, (0.0, T_END), [THETA0, 0.0], method="DOP853", rtol=RTOL, atol=ATOL,
                    t_eval=t_out, dense_output=True)
    assert sol.success, sol.message
    return sol


def main():
    t_out = np.arange(0.0, T_END + 0.5, 1.0)
    sol = solve(t_out)
    theta, w = sol.y
    angles = np.array([loop_angles(x) for x in theta])
    alpha, phi = angles[:, 0], angles[:, 1]
    a = RATIO_A(theta, alpha, phi)
    b = RATIO_B(theta, alpha, phi)
    E = np.array([energy(x, v) for x, v in zip(theta, w)]) - TAU * (theta - THETA0)

    al0, ph0 = loop_angles(THETA0)
    y0 = [THETA0, al0, ph0, 0.0, 0.0, 0.0]
    dae = solve_ivp(dae_rhs, (0.0, T_END), y0, method="DOP853", rtol=RTOL, atol=ATOL, t_eval=t_out)
    assert dae.success, dae.message
    diff = max(np.abs(dae.y[0] - theta).max(), np.abs(dae.y[1] - alpha).max(), np.abs(dae.y[2] - phi).max())
    # looser and tighter runs of method 1 show how many digits the stored numbers carry
    loose = solve_ivp(minimal_rhs, (0.0, T_END), [THETA0, 0.0], method="DOP853", rtol=1e-10, atol=1e-10, t_eval=t_out)
    tight = solve_ivp(minimal_rhs, (0.0, T_END), [THETA0, 0.0], method="DOP853", rtol=2.3e-14, atol=1e-14,
                      t_eval=t_out)
    data = {
        "source": "Khan, Tang & Krovi (2006), Sec. 5.1 and Table 1 (parameters from Wang et al.): "
                  "planar four-bar, l0=3, l1=1, l2=4, l3=2.5 m, m=1 kg, lc=l/2, I=m l^2/12, g=9.81 m/s^2 along -y, "
                  "6 N m on the crank, theta(0)=1.5708 rad, at rest",
        "method": "Lagrange's equation in the crank angle alone (loop closed in closed form by circle intersection, "
                  "coupler/rocker rates from the differentiated loop, mu(theta) and its derivative by sympy), "
                  "integrated by scipy solve_ivp DOP853 rtol=atol=1e-12; regenerate with "
                  "python examples/reference/four_bar_reference.py",
        "angles": "absolute angles from the +x axis (counter-clockwise): crank theta (A->B), coupler alpha (B->C), "
                  "rocker phi (D->C); A=(0,0), D=(3,0)",
        "parameters": {"l0": L0, "l1": L1, "l2": L2, "l3": L3, "m": [M1, M2, M3], "g": G, "torque": TAU,
                       "theta0": THETA0, "alpha0": al0, "phi0": ph0},
        "t": t_out.tolist(),
        "crank": theta.tolist(),
        "crank_rate": w.tolist(),
        "coupler": alpha.tolist(),
        "rocker": phi.tolist(),
        "coupler_rate": (a * w).tolist(),
        "rocker_rate": (b * w).tolist(),
        "energy_minus_work": E.tolist(),
        "cross_check": "the paper's eq. (21) index-1 DAE in (theta, alpha, phi), DOP853 rtol=atol=1e-12",
        "cross_check_max_diff": float(diff),
        "rtol_1e-10_max_diff": float(np.abs(loose.y[0] - theta).max()),
        "rtol_2.3e-14_max_diff": float(np.abs(tight.y[0] - theta).max()),
        "accuracy": "crank angle good to about 2e-9 rad at t = 10 s (see rtol_2.3e-14_max_diff)",
    }
    OUT.write_text(json.dumps(data, indent=1) + "\n")
    print(f"wrote {OUT}")
    print(f"alpha0 = {al0:.10f}, phi0 = {ph0:.10f} (paper: 0.3533, 1.2649)")
    print(f"crank at t = 10 s: {theta[-1]:.12f} rad, rate {w[-1]:.9f} rad/s")
    print(f"max |method 2 - method 1| = {diff:.2e} rad, rtol 1e-10 vs 1e-12: {data['rtol_1e-10_max_diff']:.2e} rad,"
          f" 2.3e-14 vs 1e-12: {data['rtol_2.3e-14_max_diff']:.2e} rad")
    print(f"energy - work: ptp {np.ptp(E):.2e} J")


if __name__ == "__main__":
    main()
