"""What the example scripts share besides their figures (examples/_figures.py): the end time from
$MECHSIM_EXAMPLE_T_END, timing a run and its "simulated ... to t = ... s" line, the energy
bookkeeping from body signals, and writing a generated model file (--write-yaml)."""
import os
import time
from pathlib import Path

import numpy as np


def t_end(default):
    """The simulated span (s): $MECHSIM_EXAMPLE_T_END when set (to shorten the run), else ``default``."""
    return float(os.environ.get("MECHSIM_EXAMPLE_T_END", default))


def timed(simulate, *args, **kwargs):
    """(simulate(*args, **kwargs), wall time in s)."""
    start = time.perf_counter()
    res = simulate(*args, **kwargs)
    return res, time.perf_counter() - start


def run_line(m, res, wall=None):
    """``<model>: <n> samples to t = <t_end> s`` (the tests look for "to t = <t_end> s"), with the wall
    time when given."""
    line = f"{m!r}: {len(res.t)} samples to t = {res.t[-1]:g} s"
    return line if wall is None else f"{line} in {wall:.3f} s wall time"


def energy(m, res, names):
    """Kinetic plus potential energy (J) of the bodies ``names`` at every sample, from the body signals."""
    g = np.asarray(m.gravity)
    E = np.zeros(len(res.t))
    for name in names:
        body = m.bodies[name]
        R, w = res[f"{name}.rotation"], res[f"{name}.omega"]
        c = res.point(name, body.com)
        vc = res[f"{name}.velocity"] + np.cross(w, c - res[f"{name}.position"])
        Iw = np.einsum("nij,jk,nlk,nl->ni", R, body.inertia, R, w)      # R I R^T w
        E += 0.5 * body.mass * np.einsum("ni,ni->n", vc, vc) + 0.5 * np.einsum("ni,ni->n", w, Iw) - body.mass * c @ g
    return E


def energy_line(E):
    """``energy E(0) = ... J, max |E - E(0)| = ... J``."""
    return f"energy E(0) = {E[0]:.6f} J, max |E - E(0)| = {np.abs(E - E[0]).max():.2e} J"


def write_yaml(m, path, header):
    """Write model ``m`` to the model file ``path`` with the comment block ``header`` on top; the path."""
    m.to_yaml(path)
    path = Path(path)
    path.write_text(header + path.read_text(encoding="utf-8"), encoding="utf-8")
    return path


def write_yaml_requested(argv, write):
    """``--write-yaml`` in ``argv``: call ``write()`` (which returns the path written), say so, True."""
    if "--write-yaml" not in argv:
        return False
    print(f"wrote {write()}")
    return True
