"""Where the tests' robot descriptions are: PR2 and Solo12 ship with the package (the speed suite
uses them, mechsim/bench/robot_files), the others are in tests/data/robots."""
from pathlib import Path

from mechsim.bench.robots import ROBOT_FILES

ROBOTS = Path(__file__).parents[1] / "data" / "robots"


def robot_file(name):
    """Path of the robot description ``name`` (.urdf)."""
    shipped = ROBOT_FILES / f"{name}.urdf"
    return shipped if shipped.exists() else ROBOTS / f"{name}.urdf"
