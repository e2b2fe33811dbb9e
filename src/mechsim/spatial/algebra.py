"""Compiled spatial-algebra helpers (Featherstone, RBDA ch. 2) in [angular; linear] order.

Every spatial quantity in the kernels is expressed in world axes and referred to one point fixed
in the world (the inertial-coordinate form of Wood & Kennedy 2003, §2.1; dynamics/kernels.py
reference_point), so moving a quantity from a body to its parent needs no transform at all; body and
articulated inertias excepted, which the ABA keeps in node axes (dynamics/kernels.py).
"""
import numpy as np
from numba import njit

from .._jit_cache import listen

listen()        # every module that defines kernels imports this one (JIT, INLINE): the first compile is announced

# error_model="numpy": IEEE division without a zero-divisor branch (the kernels guard their divisions).
# _nrt=False: no reference counting. With numba's runtime every view a kernel takes (R[i], y[:nq], a
# field of the workspace) and every array passed on increments and decrements a shared counter by
# an atomic (lock-prefixed) instruction: half the time of a four-bar run (perf, AMD EPYC), and
# atomics cost more on other CPUs. The kernels only read and write arrays the caller owns, so they
# need no counts; the rule that comes with it: a compiled kernel never allocates an array (scratch
# lives in Data; numba refuses to compile an allocation here: "NRT required but not enabled").
# forceinline=False, said explicitly: a kernel compiled for a caller that is inlined (INLINE, the
# integrators' problem functions) would otherwise inherit forceinline from it (numba's
# CPUTargetOptions.finalize) and be inlined whole at every call site: the four-bar's integrator loop
# became one function of 250,000 LLVM instructions and a first run compiled for 20 minutes.
JIT = dict(cache=True, fastmath=False, nogil=True, error_model="numpy", _nrt=False, forceinline=False)
# Small steps are compiled once and inlined by LLVM wherever they are used: a numba call passes
# every array as a struct of ~10 words, as costly as the few dozen flops of a step (SPEC §6).
INLINE = dict(JIT, forceinline=True)
# Passes inlined in numba's IR where they are called (typed there, no call): for bodies called once or twice;
# nesting large ones is slow to compile (dynamics/multipliers.py rigid_accelerations).
PASS = dict(JIT, inline="always")


def python(kernel):
    """The Python function a kernel compiles (the kernel itself under NUMBA_DISABLE_JIT), for tables built once."""
    return getattr(kernel, "py_func", kernel)


@njit(**INLINE)
def copy_into(src, dst):
    """dst[...] = src for arrays of one shape (an array assignment needs numba's runtime)."""
    for index in np.ndindex(src.shape):
        dst[index] = src[index]


@njit(**INLINE)
def cross3(a, b, out):
    out[0] = a[1] * b[2] - a[2] * b[1]
    out[1] = a[2] * b[0] - a[0] * b[2]
    out[2] = a[0] * b[1] - a[1] * b[0]


@njit(**INLINE)
def crm(v, m, out):
    """out = v x m (spatial motion cross product, RBDA eq. 2.31)."""
    w0, w1, w2, u0, u1, u2 = v[0], v[1], v[2], v[3], v[4], v[5]
    a0, a1, a2, b0, b1, b2 = m[0], m[1], m[2], m[3], m[4], m[5]
    out[0] = w1 * a2 - w2 * a1
    out[1] = w2 * a0 - w0 * a2
    out[2] = w0 * a1 - w1 * a0
    out[3] = w1 * b2 - w2 * b1 + u1 * a2 - u2 * a1
    out[4] = w2 * b0 - w0 * b2 + u2 * a0 - u0 * a2
    out[5] = w0 * b1 - w1 * b0 + u0 * a1 - u1 * a0


@njit(**INLINE)
def crf(v, f, out):
    """out = v x* f (spatial force cross product, RBDA eq. 2.32)."""
    w0, w1, w2, u0, u1, u2 = v[0], v[1], v[2], v[3], v[4], v[5]
    n0, n1, n2, f0, f1, f2 = f[0], f[1], f[2], f[3], f[4], f[5]
    out[0] = w1 * n2 - w2 * n1 + u1 * f2 - u2 * f1
    out[1] = w2 * n0 - w0 * n2 + u2 * f0 - u0 * f2
    out[2] = w0 * n1 - w1 * n0 + u0 * f1 - u1 * f0
    out[3] = w1 * f2 - w2 * f1
    out[4] = w2 * f0 - w0 * f2
    out[5] = w0 * f1 - w1 * f0


@njit(**INLINE)
def body_inertia_world(m, c, Ic, R, out):
    """6x6 spatial inertia about the point O of a body with mass m, COM c (world axes, from O) and
    rotational inertia Ic (row-major 9) about the COM in body axes rotated to world by R
    (RBDA eq. 2.63): [[J, m c~], [m c~^T, m 1]] with J = R Ic R^T + m (|c|^2 1 - c c^T). J_ii's m (|c|^2 - c_i^2) is
    summed as m (c_j^2 + c_k^2): the difference loses |c|^2 / (c_j^2 + c_k^2) in relative accuracy, a body's
    inertia about an axis near its COM (iCub's head about its neck's yaw axis: 1e-11 in its accelerations)."""
    sq = (c[1] * c[1] + c[2] * c[2], c[0] * c[0] + c[2] * c[2], c[0] * c[0] + c[1] * c[1])
    for j in range(3):
        t0 = Ic[0] * R[j, 0] + Ic[1] * R[j, 1] + Ic[2] * R[j, 2]      # column j of Ic R^T
        t1 = Ic[3] * R[j, 0] + Ic[4] * R[j, 1] + Ic[5] * R[j, 2]
        t2 = Ic[6] * R[j, 0] + Ic[7] * R[j, 1] + Ic[8] * R[j, 2]
        for i in range(j + 1):
            s = R[i, 0] * t0 + R[i, 1] * t1 + R[i, 2] * t2 + (m * sq[i] if i == j else -m * c[i] * c[j])
            out[i, j] = s
            out[j, i] = s
    mc = ((0.0, -m * c[2], m * c[1]), (m * c[2], 0.0, -m * c[0]), (-m * c[1], m * c[0], 0.0))   # m c~
    for i in range(3):
        for j in range(3):
            out[i, 3 + j] = mc[i][j]
            out[3 + j, i] = mc[i][j]
            out[3 + i, 3 + j] = m if i == j else 0.0


@njit(**INLINE)
def axis_angle_matrix(a, theta, out):
    """Rotation matrix of angle theta about unit axis a (Rodrigues)."""
    s, c = np.sin(theta), np.cos(theta)
    t = 1.0 - c
    x, y, z = a[0], a[1], a[2]
    out[0, 0] = c + x * x * t
    out[0, 1] = x * y * t - z * s
    out[0, 2] = x * z * t + y * s
    out[1, 0] = y * x * t + z * s
    out[1, 1] = c + y * y * t
    out[1, 2] = y * z * t - x * s
    out[2, 0] = z * x * t - y * s
    out[2, 1] = z * y * t + x * s
    out[2, 2] = c + z * z * t


@njit(**INLINE)
def quat_matrix(q, out):
    """Rotation matrix of the scalar-first quaternion q, normalized on the fly."""
    n = np.sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3])
    w, x, y, z = q[0] / n, q[1] / n, q[2] / n, q[3] / n
    out[0, 0] = 1 - 2 * (y * y + z * z)
    out[0, 1] = 2 * (x * y - w * z)
    out[0, 2] = 2 * (x * z + w * y)
    out[1, 0] = 2 * (x * y + w * z)
    out[1, 1] = 1 - 2 * (x * x + z * z)
    out[1, 2] = 2 * (y * z - w * x)
    out[2, 0] = 2 * (x * z - w * y)
    out[2, 1] = 2 * (y * z + w * x)
    out[2, 2] = 1 - 2 * (x * x + y * y)


@njit(**INLINE)
def quat_rate(q, w, out):
    """out = dq/dt = 1/2 q (x) (0, w) for the body-fixed angular velocity w."""
    out[0] = 0.5 * (-q[1] * w[0] - q[2] * w[1] - q[3] * w[2])
    out[1] = 0.5 * (q[0] * w[0] + q[2] * w[2] - q[3] * w[1])
    out[2] = 0.5 * (q[0] * w[1] + q[3] * w[0] - q[1] * w[2])
    out[3] = 0.5 * (q[0] * w[2] + q[1] * w[1] - q[2] * w[0])


@njit(**INLINE)
def matmul3(A, B, out):
    for i in range(3):
        for j in range(3):
            out[i, j] = A[i, 0] * B[0, j] + A[i, 1] * B[1, j] + A[i, 2] * B[2, j]


@njit(**INLINE)
def tmatvec3(A, x):
    """A^T x as a 3-tuple, for a 3x3 A."""
    return (A[0, 0] * x[0] + A[1, 0] * x[1] + A[2, 0] * x[2],
            A[0, 1] * x[0] + A[1, 1] * x[1] + A[2, 1] * x[2],
            A[0, 2] * x[0] + A[1, 2] * x[1] + A[2, 2] * x[2])


@njit(**INLINE)
def matvec3(A, x):
    """A x as a 3-tuple, for a 3x3 A."""
    return (A[0, 0] * x[0] + A[0, 1] * x[1] + A[0, 2] * x[2],
            A[1, 0] * x[0] + A[1, 1] * x[1] + A[1, 2] * x[2],
            A[2, 0] * x[0] + A[2, 1] * x[1] + A[2, 2] * x[2])


@njit(**INLINE)
def matvec6(A, x):
    """A x as a 6-tuple, for a 6x6 A."""
    h0 = h1 = h2 = h3 = h4 = h5 = 0.0
    for l in range(6):
        h0 += A[0, l] * x[l]
        h1 += A[1, l] * x[l]
        h2 += A[2, l] * x[l]
        h3 += A[3, l] * x[l]
        h4 += A[4, l] * x[l]
        h5 += A[5, l] * x[l]
    return h0, h1, h2, h3, h4, h5


@njit(**INLINE)
def transform_point(R, p, x):
    """R x + p as a 3-tuple (a point x in a frame at (R, p), in world)."""
    y = matvec3(R, x)
    return y[0] + p[0], y[1] + p[1], y[2] + p[2]
