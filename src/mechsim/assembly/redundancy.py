"""Redundant constraints and inconsistent drivers (Wood & Kennedy 2003, §3.6), by QR with column pivoting."""
from collections import namedtuple

import numpy as np

from ..dynamics.layout import SWITCHED_ROWS
from ..errors import ModelError

RANK_TOL = 1e-9     # |R_kk| / |R_11| below this is numerically zero (the analysis runs at an assembled q)

Analysis = namedtuple("Analysis", "active redundant rank dof")


def numerical_rank(A):
    """Rank of A by QR with column pivoting (Wood & Kennedy 2003, eq. 18, with a tolerance for assembled data)."""
    if A.size == 0:
        return 0, np.zeros(0, dtype=int)
    # LAPACK's dgeqp3, as scipy.linalg.qr(pivoting=True) calls it, without that wrapper's checks and Q: 1.6 us
    # against 58 us on a contact's 6x3 (measured); the mode iteration of hybrid runs analyses at every switch.
    # Imported here, not at start-up (~0.4 s): an open tree has no rows.
    from scipy.linalg.lapack import dgeqp3
    qr, pivots, _, _, _ = dgeqp3(np.asarray(A, dtype=float))
    d = np.abs(np.diag(qr)[:min(A.shape)])
    return int(np.sum(d > RANK_TOL * max(d[0], 1e-300))) if d.size else 0, pivots - 1


def analyse(cm, G, closed=()):
    """Active rows (the independent structural equations, eq. 40, then every driver, appended one by
    one, eq. 41, then the rows of the ``closed`` stops that raise the rank), the labels of the
    redundant equations, the rank and the remaining DOF. Raises ModelError naming a driver whose
    row does not raise the rank: it fights the other drivers or the constraints over a motion they
    already determine."""
    owners = cm.rows.owner
    bad = np.flatnonzero(~np.all(np.isfinite(G), axis=1))
    if bad.size:                # a row without a gradient: a distance constraint's points coincide (|r| = 0)
        kind, name, _ = owners[bad[0]]
        raise ModelError(f"{kind} '{name}': the distance is undefined at this configuration (its two points "
                         "coincide, where it has no direction); change q0 so that they are apart, or use "
                         "point_coincident")
    structural = np.array([k for k, o in enumerate(owners) if o[0] != "driver" and o[0] not in SWITCHED_ROWS],
                          dtype=int)
    drivers = [k for k, o in enumerate(owners) if o[0] == "driver"]
    rank, perm = numerical_rank(G[structural].T)
    independent = list(structural[perm[:rank]])
    redundant = sorted(structural[perm[rank:]].tolist())
    for row in drivers:
        new_rank, _ = numerical_rank(G[independent + [row]].T)
        if new_rank == len(independent):
            name, joint = owners[row][1], owners[row][2]
            raise ModelError(f"driver '{name}' on joint '{joint}' is inconsistent: the motion of that coordinate is "
                             "already determined by the constraints and the drivers before it (two drivers over one "
                             "degree of freedom?); remove it or drive another joint")
        independent.append(row)
    for row in closed:                      # a closed stop in a loop another stop already holds: redundant
        if numerical_rank(G[independent + [row]].T)[0] > len(independent):
            independent.append(row)
    return Analysis(np.array(sorted(independent), dtype=np.int64), [owners[k][2] for k in redundant],
                    len(independent), cm.nv - len(independent))
