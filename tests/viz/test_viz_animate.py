"""ms.animate: frames resampled from the Result, the self-contained page and its data, GIFs, errors
(res.plot: test_viz_plot.py)."""
import base64
import json
import re

import numpy as np
import pytest

import mechsim as ms
from mechsim.results.resample import resample
from mechsim.results.result import JoinedResult, Result
from mechsim.viz.animate import page, scene_json
from mechsim.viz.scene import build_scene

from conftest import four_bar_run


def decode(text, dtype=np.float32):
    return np.frombuffer(base64.b64decode(text), dtype=np.dtype(dtype).newbyteorder("<"))


def page_data(html):
    return json.loads(re.search(r'<script type="application/json" id="mechsim-scene">(.*?)</script>', html, re.S)
                      .group(1).replace("<\\/", "</"))


# ------------------------------------------------------------------------------ frames
def test_resampling_interpolates_between_samples_to_fourth_order(four_bar_2s):
    """Cubic Hermite in q with the rates H(q) v: exact at the samples; between them, against the same
    run sampled there, the error falls ~16-fold when the sample spacing halves (O(h^4))."""
    np.testing.assert_array_equal(resample(four_bar_2s, four_bar_2s.t).q, four_bar_2s.q)
    errors = []
    for rate in (120, 240):
        res = four_bar_run(1.0, rate)
        mid = (res.t[:-1] + res.t[1:]) / 2
        exact = res.model.simulate(t_end=1.0, t_eval=mid)
        errors.append(np.abs(resample(res, mid)["coupler.position"] - exact["coupler.position"]).max())
    assert errors[0] < 3e-5 and errors[0] / errors[1] > 12, errors
    with pytest.raises(ms.MechsimError, match="outside the result"):
        resample(four_bar_2s, [2.5])


def test_resampling_a_joined_result_takes_each_time_from_its_stretch(four_bar_2s):
    res = four_bar_2s
    parts = [Result(res._cm, res.t[s], res.q[s], res.v[s], res.u_force[s]) for s in (slice(0, 31), slice(30, None))]
    times = [0.25, 1.0, 1.75]
    joined = resample(JoinedResult(parts), times)
    assert isinstance(joined, JoinedResult)
    np.testing.assert_allclose(joined["rocker.position"], resample(res, times)["rocker.position"], atol=1e-15)


def test_page_poses_are_the_results_at_the_frames(four_bar_2s):
    res = four_bar_2s
    data = scene_json(build_scene(res, "hull", fps=30, traces=["coupler", ("coupler", "tip"), ("rocker", (1, 0, 0))]))
    assert data["frames"] == len(res.t) == 61 and [b["name"] for b in data["bodies"]] == ["crank", "coupler", "rocker"]
    poses = decode(data["poses"]).reshape(61, 3, 7)
    for b, name in enumerate(["crank", "coupler", "rocker"]):
        np.testing.assert_allclose(poses[:, b, :3], res[f"{name}.position"], atol=1e-6)
        quat = res[f"{name}.quat"]                                        # (w, x, y, z), w >= 0
        np.testing.assert_allclose(poses[:, b, [6, 3, 4, 5]], quat, atol=1e-6)
    tip = decode(data["traces"][1]["points"]).reshape(61, 3)
    np.testing.assert_allclose(tip, res.point("coupler", (4, 0, 0)), atol=1e-6)
    assert [t["name"] for t in data["traces"]] == ["coupler", "coupler:tip", "rocker (1, 0, 0)"]
    cut, = data["links"]                                                   # the cut joint j3 closing the loop
    assert cut["name"] == "j3" and cut["kind"] == "cut joint" and cut["a"] == [1, [4.0, 0.0, 0.0]]
    assert {(j["joint"], j["type"]) for j in data["joints"]} == {("j1", "R"), ("j2", "R"), ("j3", "R"), ("j4", "R")}


def test_four_bar_page_for_ten_seconds_at_30_fps_is_under_1_MB(tmp_path):
    res = four_bar_run(10.0, 30)
    path = ms.animate(res, tmp_path / "four_bar.html", fps=30)
    html = path.read_text(encoding="utf-8")
    assert path.stat().st_size < 1_000_000, path.stat().st_size
    assert page_data(html)["frames"] == 301
    assert "three.js authors" in html and "Permission is hereby granted" in html      # the MIT notice
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:)?//""", html)             # nothing fetched


def test_page_escapes_the_model_name(four_bar_2s):
    scene = build_scene(four_bar_2s, fps=5)
    scene.title = "</script><b>x</b>"
    html = page(scene)
    assert "<b>x</b>" not in html and page_data(html)["title"] == "</script><b>x</b>"


# ------------------------------------------------------------------------------ video
def test_gif_has_a_frame_per_frame_time_at_the_size_asked(four_bar_2s, tmp_path):
    pytest.importorskip("matplotlib")
    Image = pytest.importorskip("PIL.Image")
    path = ms.animate(four_bar_2s, tmp_path / "four_bar.gif", fps=5, size=(160, 120), traces=["coupler"])
    with Image.open(path) as gif:
        assert gif.n_frames == 11 and gif.size == (160, 120)
        gif.seek(5)
        assert len(gif.convert("RGB").getcolors(maxcolors=1 << 16)) > 10          # drawn, not blank


def test_mp4_has_a_frame_per_frame_time(four_bar_2s, tmp_path):
    pytest.importorskip("matplotlib")
    imageio_ffmpeg = pytest.importorskip("imageio_ffmpeg")      # counts the frames (and is an ffmpeg)
    path = ms.animate(four_bar_2s, tmp_path / "four_bar.mp4", fps=5, size=(160, 120))
    assert imageio_ffmpeg.count_frames_and_secs(str(path))[0] == 11


def test_mp4_without_ffmpeg_says_what_to_install(four_bar_2s, tmp_path, monkeypatch):
    monkeypatch.setattr("shutil.which", lambda name: None)
    monkeypatch.setitem(__import__("sys").modules, "imageio_ffmpeg", None)
    with pytest.raises(ms.MechsimError, match="needs ffmpeg.*apt-get install ffmpeg.*mechsim\\[video\\]"):
        ms.animate(four_bar_2s, tmp_path / "four_bar.mp4")


# ------------------------------------------------------------------------------ bad input
def test_bad_input_gives_one_clear_error(four_bar_2s, tmp_path):
    res = four_bar_2s
    cases = [((tmp_path / "a.avi",), {}, "use a file name ending in .html, .gif or .mp4"),
             ((tmp_path / "missing" / "a.html",), {}, "does not exist"),
             ((tmp_path,), {}, "ending in .html"),
             ((tmp_path / "a.html",), {"traces": ["gear"]}, "unknown body 'gear'"),
             ((tmp_path / "a.html",), {"traces": [("coupler", "pin")]}, "no frame 'pin'"),
             ((tmp_path / "a.html",), {"traces": [("coupler", (1, 2))]}, "must be 3 numbers"),
             ((tmp_path / "a.html",), {"fps": 0}, "fps must be a positive number"),
             ((tmp_path / "a.html",), {"bodies": "boxes"}, "bodies='boxes'"),
             ((tmp_path / "a.gif",), {"size": (10.5, 20)}, "size must be")]
    for args, kwargs, message in cases:
        with pytest.raises(ms.MechsimError, match=re.escape(message)):
            ms.animate(res, *args, **kwargs)
    empty = Result(res._cm, [], np.zeros((0, res._cm.nq)), np.zeros((0, res._cm.nv)), np.zeros((0, res._cm.n_slots)))
    with pytest.raises(ms.MechsimError, match="no samples"):
        ms.animate(empty, tmp_path / "a.html")
    (tmp_path / "taken.html").mkdir()                                   # a directory where the file should go
    with pytest.raises(ms.MechsimError, match="cannot write .*taken.html"):
        ms.animate(res, tmp_path / "taken.html")


# ------------------------------------------------------------------------------ plots
