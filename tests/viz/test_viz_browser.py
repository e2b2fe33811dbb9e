"""The animation page in a real browser: Debian's chromium, headless, driven by Playwright pointed at
it (no browser download; the browser fixture, conftest.py). Skipped where chromium or playwright is
missing; .ci/run installs both."""
import io

import numpy as np
import pytest

import mechsim as ms

pytestmark = pytest.mark.browser
BODIES = ["crank", "coupler", "rocker"]


@pytest.fixture(scope="module")
def page(watched_page, four_bar_2s, tmp_path_factory):
    """The four-bar's page (2 s at 30 frames/s, convex hulls, a trace) loaded, with what it logged."""
    path = ms.animate(four_bar_2s, tmp_path_factory.mktemp("page") / "four_bar.html", bodies="hull",
                      traces=[("coupler", "tip")])
    page = watched_page(viewport={"width": 800, "height": 560})
    page.goto(path.as_uri())
    page.wait_for_function("window.mechsim !== undefined", timeout=20000)
    yield page
    page.close()


def test_page_loads_without_errors_with_the_results_frames_and_bodies(page, four_bar_2s):
    assert page.problems == []
    assert page.evaluate("window.mechsim.frames") == len(four_bar_2s.t) == 61
    assert page.evaluate("window.mechsim.bodies") == BODIES


def test_seeking_shows_the_results_body_poses(page, four_bar_2s):
    res = four_bar_2s
    for k in (0, 17, 45, 60):
        assert page.evaluate(f"window.mechsim.seek({float(res.t[k])!r})") == pytest.approx(res.t[k], abs=1e-12)
        poses = page.evaluate("window.mechsim.poses()")
        for body in BODIES:
            np.testing.assert_allclose(poses[body]["position"], res[f"{body}.position"][k], atol=1e-6)
            rotation = np.reshape(poses[body]["rotation"], (3, 3))
            np.testing.assert_allclose(rotation, res[f"{body}.rotation"][k], atol=1e-6)
    assert page.evaluate("window.mechsim.seek(0.99)") == pytest.approx(1.0)     # the nearest frame
    assert page.inner_text("#clock") == "t = 1.000 s / 2.000 s"
    assert page.problems == []


def test_screenshot_shows_the_machine_and_follows_the_window(page):
    Image = pytest.importorskip("PIL.Image")
    page.evaluate("window.mechsim.seek(1.0)")
    shot = Image.open(io.BytesIO(page.locator("#view").screenshot())).convert("RGB")
    pixels = np.asarray(shot, dtype=float)
    background = np.array([0xf4, 0xf5, 0xf7])
    drawn = np.abs(pixels - background).sum(axis=2) > 60
    assert 0.01 < drawn.mean() < 0.6, drawn.mean()                     # the links and grid, not blank
    page.check('[data-layer="grid"]')
    page.uncheck('[data-layer="grid"]')
    page.evaluate("window.mechsim.seek(1.0)")
    without_grid = np.asarray(Image.open(io.BytesIO(page.locator("#view").screenshot())).convert("RGB"), dtype=float)
    assert (np.abs(without_grid - background).sum(axis=2) > 60).mean() < drawn.mean()
    page.set_viewport_size({"width": 640, "height": 480})
    page.wait_for_function("document.getElementById('view').width === document.getElementById('stage').clientWidth")
    assert page.evaluate("document.getElementById('view').width") == 640
    assert page.problems == []
