"""Run the mechsim speed suite (SPEC §6) and write benchmarks/RESULTS.md next to this script.

    pip install -e ".[bench]"          # Pinocchio, MuJoCo, Exudyn, Drake (peers are skipped with a note if missing)
    python benchmarks/run.py [--quick] [--output PATH] [--engines pin,mujoco,exudyn,drake] [--no-startup]

Same as `mechsim bench`, except that the default output is this directory's RESULTS.md
whatever the working directory.
"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))

try:
    import mechsim.bench
except ImportError:                                       # not installed: use the source tree
    sys.path.insert(0, os.path.join(os.path.dirname(HERE), "src"))
    import mechsim.bench


if __name__ == "__main__":
    argv = sys.argv[1:]
    if not any(a == "--output" or a.startswith("--output=") or a == "-o" for a in argv):
        argv += ["--output", os.path.join(HERE, "RESULTS.md")]
    sys.exit(mechsim.bench.main(argv))
