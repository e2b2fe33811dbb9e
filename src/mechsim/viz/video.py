"""GIF and MP4 of an animation Scene (viz/scene.py), drawn with matplotlib's 3D axes on the Agg
canvas: Pillow writes GIFs (no ffmpeg needed), ffmpeg MP4s — the one on the PATH, or else the one
the imageio-ffmpeg package ships. Faces are shaded by hand (Lambert, light from the viewer's side)
since matplotlib shades a collection only when it is made."""
import contextlib
import shutil

import numpy as np

from ..errors import MechsimError
from .plot import load_matplotlib

def write_video(scene, path, size=(800, 600)):
    """Write the Scene to ``path`` (.gif or .mp4) at ``size`` (width, height) pixels, one video frame
    per scene frame at the scene's frame rate."""
    width, height = _size(size, path.suffix.lower() == ".mp4")
    try:
        Figure, FigureCanvasAgg = load_matplotlib()
    except ImportError as exc:
        raise MechsimError(f"animate: writing {path.suffix} {exc}") from None
    from matplotlib import animation, rc_context
    from mpl_toolkits.mplot3d.art3d import Poly3DCollection

    ffmpeg = find_ffmpeg() if path.suffix.lower() == ".mp4" else None
    figure = Figure(figsize=(width / 100, height / 100), dpi=100)
    FigureCanvasAgg(figure)
    ax = figure.add_subplot(projection="3d")
    light = _set_view(ax, scene)
    bodies = [(b, mesh, Poly3DCollection([], edgecolor="none")) for b, name in enumerate(scene.bodies)
              for mesh in scene.meshes[name]]
    for *_, collection in bodies:
        ax.add_collection3d(collection)
    links = [(link, ax.plot([], [], [], color="#ff7f0e", lw=1.5)[0]) for link in scene.links]
    traces = [(points, ax.plot([], [], [], lw=1.0)[0]) for _, points in scene.traces]
    title = ax.set_title("")
    with rc_context({"animation.ffmpeg_path": ffmpeg} if ffmpeg else {}):
        writer = animation.FFMpegWriter(fps=scene.fps) if ffmpeg else animation.PillowWriter(fps=scene.fps)
        with writer.saving(figure, str(path), dpi=100):
            for k, t in enumerate(scene.times):
                for b, mesh, collection in bodies:
                    _draw_mesh(collection, scene, b, mesh, k, light)
                for link, line in links:
                    ends = np.array([scene.world(i, p)[k, 0] for i, p in (link["a"], link["b"])])
                    line.set_data_3d(*ends.T)
                for points, line in traces:
                    line.set_data_3d(*points[:k + 1].T)
                title.set_text(f"{scene.title}   t = {t:.2f} s")
                writer.grab_frame()


def _size(size, even):
    try:
        width, height = (int(v) for v in size)
    except (TypeError, ValueError):
        width = height = 0
    if width < 16 or height < 16 or any(v != int(v) for v in size) or (even and (width % 2 or height % 2)):
        raise MechsimError(f"animate: size must be (width, height), two whole numbers of pixels >= 16"
                           f"{' and even for .mp4' if even else ''}, got {size!r}")
    return width, height


def find_ffmpeg():
    """The ffmpeg program for MP4s: on the PATH, or imageio-ffmpeg's; a MechsimError saying what to install."""
    found = shutil.which("ffmpeg")
    if found:
        return found
    with contextlib.suppress(ImportError, RuntimeError):
        import imageio_ffmpeg
        return imageio_ffmpeg.get_ffmpeg_exe()
    raise MechsimError("animate: writing .mp4 needs ffmpeg, which was not found: install it (apt-get install "
                       "ffmpeg, brew install ffmpeg or conda install ffmpeg) or pip install mechsim[video] "
                       "(imageio-ffmpeg); .gif and .html need neither")


def _set_view(ax, scene):
    """Equal scales on a cube around the scene, the world axis nearest to up vertical, axes in metres,
    seen from the scene's default view; returns the unit vector towards the viewer (world)."""
    lower, upper = scene.bounds()
    centre, half = (lower + upper) / 2, max(np.max(upper - lower) / 2, scene.thickness)
    for axis, c in zip("xyz", centre):
        getattr(ax, f"set_{axis}lim")(c - half, c + half)
        getattr(ax, f"set_{axis}label")(f"{axis} (m)")
    ax.set_box_aspect((1, 1, 1))
    vertical = int(np.argmax(np.abs(scene.up)))
    eye = np.roll(scene.view(), 2 - vertical)      # mplot3d's Axes3D.get_proj rolls (x, y, z) to the vertical
    ax.view_init(np.degrees(np.arcsin(eye[2])), np.degrees(np.arctan2(eye[1], eye[0])), vertical_axis="xyz"[vertical])
    return scene.view()


def _draw_mesh(collection, scene, b, mesh, k, light):
    """A body mesh at frame k, each face coloured by Lambert's cosine law (two-sided)."""
    triangles = scene.world(b, mesh.vertices)[k][mesh.faces]
    normals = np.cross(triangles[:, 1] - triangles[:, 0], triangles[:, 2] - triangles[:, 0])
    normals /= np.maximum(np.linalg.norm(normals, axis=1, keepdims=True), 1e-300)
    shade = 0.35 + 0.65 * np.abs(normals @ light)
    rgb = np.array([int(mesh.color[i:i + 2], 16) / 255 for i in (1, 3, 5)])
    collection.set_verts(triangles)
    collection.set_facecolor(np.clip(shade[:, None] * rgb, 0, 1))
