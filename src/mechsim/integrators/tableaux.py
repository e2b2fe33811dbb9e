"""Explicit Runge–Kutta methods as data: Butcher tableaux with error weights and dense output.

References
----------
HNW: E. Hairer, S. P. Nørsett, G. Wanner, Solving Ordinary Differential Equations I, 2nd ed.,
     Springer 1993: §II.1 (Euler, the classical RK4), §II.4 (embedded error estimates, step size
     control), §II.5 (DOPRI5 and DOP853), §II.6 (dense output, Hermite interpolation),
     §II.10 (DOP853's error estimator).
BS89: P. Bogacki, L. F. Shampine, A 3(2) pair of Runge–Kutta formulas, Appl. Math. Lett. 2(4)
      (1989) 321–325.
DP80: J. R. Dormand, P. J. Prince, A family of embedded Runge–Kutta formulae, J. Comput. Appl.
      Math. 6(1) (1980) 19–26.
S86:  L. F. Shampine, Some practical Runge–Kutta formulas, Math. Comp. 46(173) (1986) 135–150.
H-DOP853: E. Hairer, G. Wanner, the code DOP853 accompanying HNW (its coefficient list is where
      DOP853's numbers below are published to full precision).

Layout (one generic compiled loop runs every tableau, integrators/explicit.py): a step of
``n_stages`` stages K_0..K_{n-1} (K_0 = f(t, y)) gives y_new = y + h sum_j b_j K_j; then
K_n = f(t + h, y_new), which every method evaluates as the next step's first stage. Row n of A
is b (c_n = 1) and rows n+1.. are extra stages for the dense output, so that with S = A.shape[0]
stage s is f(t + c_s h, y + h sum_{j<s} A_sj K_j) for every s in 1..S-1. ``e`` (n + 1 weights)
estimates the local error h sum_j e_j K_j; ``P`` (S, p) is the continuous extension
y(t + x h) = y + h sum_k K_k sum_j P_kj x^(j+1), x in [0, 1].
"""
from collections import namedtuple
from fractions import Fraction as F

import numpy as np
from numpy.polynomial import polynomial

Tableau = namedtuple("Tableau", "A b c e e3 P order error_order n_stages adaptive fsal dop853_norm")
Tableau.__doc__ = """An explicit Runge–Kutta method (see the module docstring for the layout).

A (S, S), b (n_stages,), c (S,): Butcher tableau, extended by the row b at n_stages and the
    extra dense-output stages after it.
e (n_stages + 1,): error weights b - b_hat over the stages and f(t + h, y_new) (zeros: none).
e3 (n_stages + 1,): DOP853's 3rd-order error weights (zeros for the other methods).
P (S, p): dense output weights, a polynomial of degree p in x = (t - t_old) / h.
order: order of the solution; error_order: order of the embedded estimate, which sets the
    step-size exponent -1 / (error_order + 1) (HNW §II.4).
n_stages: stages of a step; adaptive: has an error estimate; fsal: the published method has
    the stage f(t + h, y_new) ("first same as last"); dop853_norm: DOP853's error norm (HNW §II.10).
"""


def _frozen(x):
    a = np.array(np.asarray(x, dtype=float), order="C")
    a.setflags(write=False)
    return a


def _lower(rows, size):
    """A (size, size) from the rows 1.. of its strict lower triangle (trailing zeros omitted)."""
    A = np.zeros((size, size))
    for s, row in enumerate(rows, start=1):
        A[s, :len(row)] = row
    return A


def _hermite(b):
    """Cubic Hermite interpolation of y, y_new = y + h sum b_j K_j and their slopes K_0, K_n
    (HNW §II.6): y(t + x h) - y = h [(x - 2x^2 + x^3) K_0 + (3x^2 - 2x^3) sum b_j K_j + (x^3 - x^2) K_n].
    b as Fractions: P is then exact to the last bit."""
    P = [[0, 3 * bk, -2 * bk] for bk in b] + [[0, -1, 1]]
    P[0] = [1, P[0][1] - 2, P[0][2] + 1]
    return [[float(x) for x in row] for row in P]


def _make(c, rows, b, order, P, *, e=None, e3=None, error_order=0, extra_rows=(), fsal=False):
    """The Tableau of a method; with ``e3`` (DOP853's 3rd-order error weights) the error norm is DOP853's."""
    n = len(b)
    A = _lower(list(rows) + [b] + list(extra_rows), len(c))
    weights = np.zeros(n + 1)
    return Tableau(A=_frozen(A), b=_frozen(b), c=_frozen(c), e=_frozen(weights if e is None else e),
                   e3=_frozen(weights if e3 is None else e3), P=_frozen(P), order=order, error_order=error_order,
                   n_stages=n, adaptive=e is not None, fsal=fsal, dop853_norm=e3 is not None)


# ---------------------------------------------------------------------------- Euler, RK4 (fixed step)
# Explicit Euler (HNW §II.1); dense output: the straight line y + x h K_0.
EULER = _make(c=[0, 1], rows=[], b=[1.0], order=1, P=[[1.0], [0.0]])

# The classical Runge–Kutta method of order 4 (Kutta 1901; HNW §II.1); dense output: cubic Hermite.
RK4_B = [F(1, 6), F(1, 3), F(1, 3), F(1, 6)]
RK4 = _make(c=[0, 1 / 2, 1 / 2, 1, 1], rows=[[1 / 2], [0, 1 / 2], [0, 0, 1]], b=RK4_B, order=4, P=_hermite(RK4_B))

# ------------------------------------------------------------------------------ Bogacki–Shampine 3(2)
# BS89 (scipy's RK23): third-order b, embedded second-order b_hat = (7/24, 1/4, 1/3, 1/8) using
# f(t + h, y_new) (FSAL); e = b - b_hat. Dense output: the cubic Hermite interpolant (BS89).
RK23_B = [F(2, 9), F(1, 3), F(4, 9)]
RK23 = _make(c=[0, 1 / 2, 3 / 4, 1], rows=[[1 / 2], [0, 3 / 4]], b=RK23_B, order=3, P=_hermite(RK23_B),
             e=[-5 / 72, 1 / 12, 1 / 9, -1 / 8], error_order=2, fsal=True)

# ------------------------------------------------------------------------------ Dormand–Prince 5(4)
# DP80, table "RK5(4)7M"; HNW §II.5 Table 5.2 (DOPRI5). e = b - b_hat with b_hat the 4th-order
# weights 5179/57600, 0, 7571/16695, 393/640, -92097/339200, 187/2100, 1/40.
RK45_B = [35 / 384, 0, 500 / 1113, 125 / 192, -2187 / 6784, 11 / 84]
RK45_P = [  # S86 (the continuous extension of order 4 that scipy's RK45 uses), in powers x, x^2, x^3, x^4
    [1, -8048581381 / 2820520608, 8663915743 / 2820520608, -12715105075 / 11282082432],
    [0, 0, 0, 0],
    [0, 131558114200 / 32700410799, -68118460800 / 10900136933, 87487479700 / 32700410799],
    [0, -1754552775 / 470086768, 14199869525 / 1410260304, -10690763975 / 1880347072],
    [0, 127303824393 / 49829197408, -318862633887 / 49829197408, 701980252875 / 199316789632],
    [0, -282668133 / 205662961, 2019193451 / 616988883, -1453857185 / 822651844],
    [0, 40617522 / 29380423, -110615467 / 29380423, 69997945 / 29380423]]
RK45 = _make(c=[0, 1 / 5, 3 / 10, 4 / 5, 8 / 9, 1, 1],
             rows=[[1 / 5],
                   [3 / 40, 9 / 40],
                   [44 / 45, -56 / 15, 32 / 9],
                   [19372 / 6561, -25360 / 2187, 64448 / 6561, -212 / 729],
                   [9017 / 3168, -355 / 33, 46732 / 5247, 49 / 176, -5103 / 18656]],
             b=RK45_B, order=5, P=RK45_P,
             e=[71 / 57600, 0, -71 / 16695, 71 / 1920, -17253 / 339200, 22 / 525, -1 / 40], error_order=4, fsal=True)

# -------------------------------------------------------------------------- Dormand–Prince 8(5,3)
# DOP853: HNW §II.5 (the 8th-order method of Dormand & Prince with Hairer's 5th- and 3rd-order
# error estimators, §II.10) and §II.6 (dense output of order 7 with three extra stages 13-15).
# All numbers are those of H-DOP853 (c_i, a_ij, b_i, er_i = E5, b_i - bhh_i = E3, d_ij = D).
DOP853_C = [0, 0.05260015195876773, 0.0789002279381516, 0.1183503419072274, 0.2816496580927726,
            0.3333333333333333, 0.25, 0.3076923076923077, 0.6512820512820513, 0.6, 0.8571428571428571, 1.0,
            1.0,                                  # c_12: f(t + h, y_new)
            0.1, 0.2, 0.7777777777777778]         # the extra stages of the dense output
DOP853_A = [
    [0.05260015195876773],
    [0.0197250569845379, 0.0591751709536137],
    [0.02958758547680685, 0, 0.08876275643042054],
    [0.2413651341592667, 0, -0.8845494793282861, 0.924834003261792],
    [0.037037037037037035, 0, 0, 0.17082860872947386, 0.12546768756682242],
    [0.037109375, 0, 0, 0.17025221101954405, 0.06021653898045596, -0.017578125],
    [0.03709200011850479, 0, 0, 0.17038392571223998, 0.10726203044637328, -0.015319437748624402,
     0.008273789163814023],
    [0.6241109587160757, 0, 0, -3.3608926294469414, -0.868219346841726, 27.59209969944671, 20.154067550477894,
     -43.48988418106996],
    [0.47766253643826434, 0, 0, -2.4881146199716677, -0.590290826836843, 21.230051448181193, 15.279233632882423,
     -33.28821096898486, -0.020331201708508627],
    [-0.9371424300859873, 0, 0, 5.186372428844064, 1.0914373489967295, -8.149787010746927, -18.52006565999696,
     22.739487099350505, 2.4936055526796523, -3.0467644718982196],
    [2.273310147516538, 0, 0, -10.53449546673725, -2.0008720582248625, -17.9589318631188, 27.94888452941996,
     -2.8589982771350235, -8.87285693353063, 12.360567175794303, 0.6433927460157636]]
DOP853_B = [0.054293734116568765, 0, 0, 0, 0, 4.450312892752409, 1.8915178993145003, -5.801203960010585,
            0.3111643669578199, -0.1521609496625161, 0.20136540080403034, 0.04471061572777259]
DOP853_EXTRA = [  # rows 13-15 of A
    [0.056167502283047954, 0, 0, 0, 0, 0, 0.25350021021662483, -0.2462390374708025, -0.12419142326381637,
     0.15329179827876568, 0.00820105229563469, 0.007567897660545699, -0.008298],
    [0.03183464816350214, 0, 0, 0, 0, 0.028300909672366776, 0.053541988307438566, -0.05492374857139099, 0, 0,
     -0.00010834732869724932, 0.0003825710908356584, -0.00034046500868740456, 0.1413124436746325],
    [-0.42889630158379194, 0, 0, 0, 0, -4.697621415361164, 7.683421196062599, 4.06898981839711, 0.3567271874552811,
     0, 0, 0, -0.0013990241651590145, 2.9475147891527724, -9.15095847217987]]
DOP853_E5 = [0.01312004499419488, 0, 0, 0, 0, -1.2251564463762044, -0.4957589496572502, 1.6643771824549864,
             -0.35032884874997366, 0.3341791187130175, 0.08192320648511571, -0.022355307863886294, 0]
DOP853_E3 = [-0.18980075407240762, 0, 0, 0, 0, 4.450312892752409, 1.8915178993145003, -5.801203960010585,
             -0.4226823213237919, -0.1521609496625161, 0.20136540080403034, 0.02265179219836082, 0]
DOP853_D = [
    [-8.428938276109013, 0, 0, 0, 0, 0.5667149535193777, -3.0689499459498917, 2.38466765651207, 2.117034582445028,
     -0.871391583777973, 2.2404374302607883, 0.6315787787694688, -0.08899033645133331, 18.148505520854727,
     -9.194632392478356, -4.436036387594894],
    [10.427508642579134, 0, 0, 0, 0, 242.28349177525817, 165.20045171727028, -374.5467547226902,
     -22.113666853125306, 7.733432668472264, -30.674084731089398, -9.332130526430229, 15.697238121770845,
     -31.139403219565178, -9.35292435884448, 35.81684148639408],
    [19.985053242002433, 0, 0, 0, 0, -387.0373087493518, -189.17813819516758, 527.8081592054236, -11.57390253995963,
     6.8812326946963, -1.0006050966910838, 0.7777137798053443, -2.778205752353508, -60.19669523126412,
     84.32040550667716, 11.99229113618279],
    [-25.69393346270375, 0, 0, 0, 0, -154.18974869023643, -231.5293791760455, 357.6391179106141, 93.40532418362432,
     -37.45832313645163, 104.0996495089623, 29.8402934266605, -43.53345659001114, 96.32455395918828,
     -39.17726167561544, -149.72683625798564]]


def _dop853_dense(b, D, S):
    """P of DOP853's dense output. HNW §II.6 / H-DOP853 write it as y + sum_m F_m phi_m(x) with
    phi = x, x(1-x), x^2(1-x), x^2(1-x)^2, x^3(1-x)^2, x^3(1-x)^3, x^4(1-x)^3 and F_m = h sum_k w_mk K_k:
    w_0 = b (F_0 = y_new - y), w_1 = e_0 - b, w_2 = 2b - e_0 - e_12, w_{3+j} = D_j. Expanded here in
    powers of x."""
    n = len(b)
    unit = np.eye(S)
    bb = np.zeros(S)
    bb[:n] = b
    W = np.vstack([bb, unit[0] - bb, 2 * bb - unit[0] - unit[n], np.asarray(D, dtype=float)])
    x, one_minus_x = [0.0, 1.0], [1.0, -1.0]
    phi, p = [], [1.0]
    for m in range(W.shape[0]):                      # phi_m = phi_{m-1} * (x if m even else 1 - x)
        p = polynomial.polymul(p, x if m % 2 == 0 else one_minus_x)
        phi.append(np.pad(p, (0, W.shape[0] + 1 - len(p))))
    return W.T @ np.array(phi)[:, 1:]


DOP853 = _make(c=DOP853_C, rows=DOP853_A, b=DOP853_B, order=8, P=_dop853_dense(DOP853_B, DOP853_D, 16),
               e=DOP853_E5, e3=DOP853_E3, error_order=7, extra_rows=DOP853_EXTRA, fsal=True)

TABLEAUX = {"Euler": EULER, "RK4": RK4, "RK23": RK23, "RK45": RK45, "DOP853": DOP853}
