"""Khan, Tang & Krovi's (2006) distributed four-bar as mechsim co-simulations (benchmarks/RESULTS_cosim.md).

The four-bar of their §5.1 and Table 1 split into chain A (crank and coupler) and chain B (rocker), each
integrated by RK4 in its own worker process (examples/cosim/four_bar.yaml), joined at the coupler–rocker
pin:

1. compliance coupling (their Method A, eq. 22): virtual springs of stiffness k = 1e1 ... 1e6 N/m on the
   pin's violation, as their Fig. 5; the crank, coupler and rocker errors against the reference
   (examples/reference/four_bar.json) fall with k (at 1 s; by 2 s soft springs have let the crank
   fall a whole phase behind), and the violation with it, as 1/k once k is large;
2. projection coupling (Method B, eqs. 24–27) with sigma = 10 /s: the multipliers from the chains'
   interface dynamics at every stage;
3. the same with the coupling forces held over each macro step (Jacobi and Gauss–Seidel).

Each row: the largest angle error at t = 1 s and t = 2 s, the largest violation of the pin, the
exchanges (Runge–Kutta stages or macro steps) and the wall time. The spans are 2 s, not their 10 s:
an exchange costs ~1 ms of interprocess round trip on 2 cores (tests/distributed's slow test runs the
10 s at their 1e-4 s step).

Run: ``python examples/cosim/study.py [--quick]`` (--quick: 1 s and fewer rows, printed only).
"""
import json
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
try:
    import mechsim as ms
except ImportError:                      # running from a source checkout without installing
    sys.path.insert(0, str(HERE.parents[1] / "src"))
    import mechsim as ms
from mechsim.io.cosim_file import load_cosimulation  # noqa: E402

REFERENCE = json.loads((HERE.parent / "reference" / "four_bar.json").read_text())


def errors(cs, t_end):
    """Largest |error| of the crank, coupler and rocker angles at each whole second up to t_end."""
    out = []
    for second in range(1, int(t_end) + 1):
        i = int(np.argmin(np.abs(cs.t - second)))
        crank, coupler = cs["A/j1.q"][i], cs["A/j1.q"][i] + cs["A/j2.q"][i]
        out.append(max(abs(crank - REFERENCE["crank"][second]), abs(coupler - REFERENCE["coupler"][second]),
                       abs(cs["B/j4.q"][i] - REFERENCE["rocker"][second])))
    return out


def row(label, t_end, **settings):
    arguments = {**load_cosimulation(HERE / "four_bar.yaml"), "t_end": t_end, **settings}
    started = time.perf_counter()
    cs = ms.cosimulate(**arguments)
    wall = time.perf_counter() - started
    exchanges = round(t_end / arguments["h"]) * (4 if arguments.get("exchange", "stage") == "stage" else 1)
    return [label, f"{arguments['h']:g}", *(f"{e:.1e}" for e in errors(cs, t_end)),
            f"{np.abs(cs['pin.violation']).max():.1e}", str(exchanges), f"{wall:.1f}"]


def main(quick=False):
    t_end = 1.0 if quick else 2.0
    rows = []
    for k in ((1e2, 1e4) if quick else (1e1, 1e2, 1e3, 1e4, 1e5, 1e6)):
        h = 1e-4 if k >= 1e6 else 1e-3      # RK4's stability limit ~2.8 / sqrt(k / m_eff)
        rows.append(row(f"compliance k = {k:.0e} N/m", t_end, method="compliance", stiffness=k, h=h))
    rows.append(row("projection sigma = 10 /s", t_end, h=1e-3))
    if not quick:
        rows.append(row("projection sigma = 10 /s", t_end, h=1e-4))
    for ordering in ("jacobi", "gauss-seidel"):
        rows.append(row(f"projection, forces held per step, {ordering}", t_end, h=1e-3, exchange="step",
                        ordering=ordering))
    header = ["coupling", "h [s]", *(f"error at {s} s [rad]" for s in range(1, int(t_end) + 1)),
              "max violation [m]", "exchanges", "wall [s]"]
    table = "\n".join(["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
                      + ["| " + " | ".join(r) + " |" for r in rows])
    print(table)
    if not quick:
        text = (Path(HERE.parents[1] / "benchmarks" / "RESULTS_cosim.md"))
        text.write_text("# Co-simulation of Khan, Tang & Krovi's four-bar (examples/cosim/study.py)\n\n"
                        + __doc__.split("\n\n", 1)[1].split("Run:")[0] + "\n" + table + "\n")
        print(f"wrote {text}")


if __name__ == "__main__":
    main("--quick" in sys.argv)
