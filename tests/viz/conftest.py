"""Fixtures of the animation tests: the four-bar example (examples/four_bar.yaml) simulated once per
session on the animation's frame grid, so that every frame is a sample of the Result."""
from pathlib import Path

import numpy as np
import pytest

import mechsim as ms

FOUR_BAR = Path(__file__).resolve().parents[2] / "examples" / "four_bar.yaml"


def four_bar_run(t_end, fps):
    """The four-bar from rest for t_end seconds, sampled at the frames of an animation at fps."""
    m = ms.load(FOUR_BAR)
    return m.simulate(t_end=t_end, t_eval=np.arange(int(round(t_end * fps)) + 1) / fps)


@pytest.fixture(scope="session")
def four_bar_2s():
    """Two seconds at 30 frames/s (61 samples)."""
    return four_bar_run(2.0, 30)
