"""Assembly: consistent initial positions and velocities, redundancy and driver-consistency analysis."""
