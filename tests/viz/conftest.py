"""Fixtures of the animation tests: the four-bar example (examples/four_bar.yaml) simulated once per
session on the animation's frame grid, so that every frame is a sample of the Result; Debian's chromium,
headless, driven by Playwright (tests marked browser, skipped without either)."""
import shutil
from pathlib import Path

import numpy as np
import pytest

import mechsim as ms

FOUR_BAR = Path(__file__).resolve().parents[2] / "examples" / "four_bar.yaml"
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


def four_bar_run(t_end, fps):
    """The four-bar from rest for t_end seconds, sampled at the frames of an animation at fps."""
    m = ms.load(FOUR_BAR)
    return m.simulate(t_end=t_end, t_eval=np.arange(int(round(t_end * fps)) + 1) / fps)


@pytest.fixture(scope="session")
def four_bar_2s():
    """Two seconds at 30 frames/s (61 samples)."""
    return four_bar_run(2.0, 30)


@pytest.fixture(scope="session")
def browser():
    if CHROMIUM is None:
        pytest.skip("chromium is not installed (apt-get install chromium)")
    sync_playwright = pytest.importorskip("playwright.sync_api").sync_playwright
    with sync_playwright() as playwright:
        # swiftshader: WebGL on the CPU, as on a machine without a GPU
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=["--enable-unsafe-swiftshader"])
        yield browser
        browser.close()


@pytest.fixture(scope="session")
def watched_page(browser):
    """A function making a page of the browser (its keywords: browser.new_page's) that records in
    ``page.problems`` the console's errors and the uncaught exceptions of its documents, its iframes' too."""
    def new_page(**options):
        page = browser.new_page(**options)
        page.problems = []
        page.on("console", lambda message: page.problems.append(message.text) if message.type == "error" else None)
        page.on("pageerror", lambda error: page.problems.append(str(error)))
        return page
    return new_page
