"""``ms.animate``: the machine moving, as one self-contained web page or as a GIF or MP4 video
(SPEC C9, §3).

The page (.html) opens from disk in any browser, offline: it carries three.js (the classes it
uses, minified: viz/web/three.min.js, built by web/build.mjs from the npm package ``three``, MIT
licence notice included), the player (viz/web/player.js) and the scene — meshes in body
coordinates and every body's pose per frame, as base64 little-endian float32. Videos are drawn
from the same scene with matplotlib (viz/video.py).
"""
import base64
import html
import json
import re
from pathlib import Path

import numpy as np

from ..errors import MechsimError
from ..spatial.rotations import matrix_to_quat
from .notebook import Player
from .scene import build_scene

WEB = Path(__file__).resolve().parent / "web"
FORMATS = (".html", ".gif", ".mp4")


def animate(res, path=None, bodies="geometry", fps=30, traces=None, size=(800, 600)):
    """Write an animation of Result ``res`` to ``path``: ``.html`` (an interactive page), ``.gif`` or
    ``.mp4`` (needs ffmpeg). ``bodies``: "geometry" (each body's shapes; a body without any as its
    equivalent inertia ellipsoid), "ellipsoid" or "hull" (the convex hull of its frames); ``fps``:
    frames per second of simulated time; ``traces``: body points whose paths are drawn, each a body
    name (its frame origin) or (body, frame name or point in body coordinates); ``size``: a video's
    (width, height) in pixels, or the most an inline player takes. Returns the path; without a path,
    a Player that a notebook shows inline (the same page: viz/notebook.py)."""
    if path is None:
        scene = build_scene(res, bodies, fps, traces)
        return Player(page(scene), scene.title, size)
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix not in FORMATS:
        raise MechsimError(f"animate: cannot write {str(path)!r}: use a file name ending in .html, .gif or .mp4")
    if not path.parent.is_dir():
        raise MechsimError(f"animate: cannot write {path}: the directory {path.parent} does not exist")
    if suffix == ".html":
        scene = build_scene(res, bodies, fps, traces)
        _write(path, lambda: path.write_text(page(scene), encoding="utf-8"))
    else:
        from .video import write_video
        scene = build_scene(res, bodies, fps, traces, segments=16)
        _write(path, lambda: write_video(scene, path, size))
    return path


def _write(path, write):
    try:
        write()
    except OSError as exc:
        raise MechsimError(f"animate: cannot write {path}: {exc.strerror or exc}") from None


def page(scene):
    """The self-contained HTML page of a Scene."""
    parts = {"TITLE": html.escape(scene.title), "SCENE": json.dumps(scene_json(scene)).replace("</", "<\\/"),
             "THREE": (WEB / "three.min.js").read_text(encoding="utf-8"),
             "PLAYER": (WEB / "player.js").read_text(encoding="utf-8")}
    template = (WEB / "page.html").read_text(encoding="utf-8")
    return re.sub(r"__(TITLE|SCENE|THREE|PLAYER)__", lambda m: parts[m.group(1)], template)


def scene_json(scene):
    """The scene as player.js reads it: numbers as lists, bulk arrays as base64 float32 / uint32."""
    F, B = len(scene.times), len(scene.bodies)
    quats = matrix_to_quat(scene.rotations.reshape(-1, 3, 3)).reshape(F, B, 4)           # (w, x, y, z)
    poses = np.concatenate([scene.positions, quats[..., 1:], quats[..., :1]], axis=2)     # three.js: x y z w
    lower, upper = scene.bounds()
    return {
        "title": scene.title, "fps": scene.fps, "t0": float(scene.times[0]), "frames": F,
        "up": scene.up.tolist(), "view": scene.view().tolist(), "thickness": scene.thickness,
        "bounds": [lower.tolist(), upper.tolist()],
        "poses": _base64(poses, np.float32),
        "bodies": [{"name": name, "com": scene.coms[b].tolist(),
                    "frames": [{"name": f, "position": p.tolist(), "rotation": R.ravel().tolist()}
                               for f, p, R in scene.frames[b]],
                    "meshes": [_mesh_json(m) for m in scene.meshes[name]]}
                   for b, name in enumerate(scene.bodies)],
        "joints": scene.joints,
        "links": [{"name": link["name"], "kind": link["kind"],
                   **{side: [link[side][0], np.asarray(link[side][1]).tolist()] for side in "ab"}}
                  for link in scene.links],
        "traces": [{"name": label, "points": _base64(points, np.float32)} for label, points in scene.traces],
    }


def _mesh_json(mesh):
    index = np.uint16 if len(mesh.vertices) <= 1 << 16 else np.uint32
    return {"color": mesh.color, "vertices": _base64(mesh.vertices, np.float32),
            "faces": _base64(mesh.faces, index), "index_bytes": np.dtype(index).itemsize}


def _base64(array, dtype):
    return base64.b64encode(np.ascontiguousarray(array, dtype=np.dtype(dtype).newbyteorder("<")).tobytes()).decode()
