"""What an animation shows, independent of how it is drawn (web page or video): the frame times,
every body's meshes and world pose per frame, joint axes, lines for constraints, cut joints and
springs, traces of body points, the world's up direction and size."""
from dataclasses import dataclass, field

import numpy as np

from ..errors import MechsimError
from .shapes import SEGMENTS, attachments, body_meshes, body_points, joint_axes

THICKNESS = 0.03      # of the model's size: the diameter of slender bodies, markers and lines


@dataclass
class Scene:
    title: str
    times: np.ndarray              # (F,) frame times (s)
    fps: float
    bodies: list                   # names, in the order of the poses
    meshes: dict                   # body -> [TriMesh] in body coordinates
    rotations: np.ndarray          # (F, B, 3, 3) body frames in world
    positions: np.ndarray          # (F, B, 3)
    up: np.ndarray                 # unit vector against gravity (z without gravity)
    thickness: float               # m
    coms: np.ndarray = None        # (B, 3) in body coordinates
    frames: list = field(default_factory=list)     # per body: [(name, position, rotation)]
    joints: list = field(default_factory=list)     # shapes.joint_axes entries
    links: list = field(default_factory=list)      # {"name", "kind", "a": (body index, point), "b": ...}
    traces: list = field(default_factory=list)     # (label, (F, 3) world points)

    def world(self, body_index, points):
        """(F, n, 3) world positions of body points (n, 3) at every frame; the ground (-1): fixed."""
        points = np.atleast_2d(points)
        if body_index < 0:
            return np.broadcast_to(points, (len(self.times), *points.shape))
        return self.positions[:, body_index, None] + np.einsum("fij,nj->fni", self.rotations[:, body_index], points)

    def view(self):
        """Unit vector from the scene's centre to the default eye: across the world axis along which the
        machine is thinnest (a planar machine seen face on), raised towards up and turned a little."""
        lower, upper = self.bounds()
        axes = [a - self.up * (a @ self.up) for a in np.eye(3)]
        candidates = [(extent, a / np.linalg.norm(a)) for extent, a in zip(upper - lower, axes) if a @ a > 0.1]
        across = min(candidates, key=lambda c: c[0])[1]
        view = across + 0.45 * self.up + 0.35 * np.cross(self.up, across)
        return view / np.linalg.norm(view)

    def bounds(self):
        """(lower, upper) corners of a box holding every mesh and trace at every frame."""
        corners = [self.world(b, _box_corners(np.concatenate([m.vertices for m in self.meshes[name]])))
                   for b, name in enumerate(self.bodies)]
        points = np.concatenate([c.reshape(-1, 3) for c in corners] + [p for _, p in self.traces] + [np.zeros((1, 3))])
        return points.min(axis=0), points.max(axis=0)


def build_scene(res, mode="geometry", fps=30.0, traces=None, segments=SEGMENTS):
    """The Scene of Result ``res``, sampled at ``fps`` frames per second from its first to its last time."""
    if not len(res.t):
        raise MechsimError("animate: the result has no samples (an empty run)")
    if not (np.isfinite(fps) and fps > 0):
        raise MechsimError(f"animate: fps must be a positive number, got {fps!r}")
    model = res.model
    names = [b for b in model.bodies if b != "ground"]
    index = {name: k for k, name in enumerate(names)}
    trace_points = [_trace(model, item) for item in traces or ()]
    times = res.t[0] + np.arange(int(np.floor((res.t[-1] - res.t[0]) * fps + 1e-9)) + 1) / fps
    from ..results.resample import resample       # imported here, not at start-up: it imports numba
    frames = resample(res, times)
    rotations = np.stack([frames[f"{b}.rotation"] for b in names], axis=1).reshape(len(times), len(names), 3, 3)
    positions = np.stack([frames[f"{b}.position"] for b in names], axis=1).reshape(len(times), len(names), 3)
    scene = Scene(model.name, times, float(fps), names, {}, rotations, positions, _up(model.gravity), 0.0)
    scene.thickness = THICKNESS * _size(scene, model)
    scene.meshes = body_meshes(model, mode, scene.thickness, segments)
    scene.coms = np.array([model.bodies[b].com for b in names]).reshape(-1, 3)
    scene.frames = [[(f, p, R) for f, (p, R) in model.bodies[b].frames.items()] for b in names]
    scene.joints = joint_axes(model, index)
    scene.links = _links(res, index)
    scene.traces = [(label, scene.world(index.get(body, -1), point)[:, 0]) for label, body, point in trace_points]
    return scene


def _up(gravity):
    g = np.linalg.norm(gravity)
    return -np.asarray(gravity, dtype=float) / g if g > 0 else np.array([0.0, 0.0, 1.0])


def _size(scene, model):
    """The model's size (m): the diagonal of the box its bodies' points sweep; 1 m for a single point."""
    points = np.concatenate([scene.world(b, body_points(model, name)).reshape(-1, 3)
                             for b, name in enumerate(scene.bodies)] or [np.zeros((1, 3))])
    size = np.linalg.norm(points.max(axis=0) - points.min(axis=0))
    return size if size > 1e-9 else 1.0


def _box_corners(vertices):
    lo, hi = vertices.min(axis=0), vertices.max(axis=0)
    return np.array([[(lo, hi)[(k >> i) & 1][i] for i in range(3)] for k in range(8)])


def _links(res, index):
    """Lines between the two points of every cut joint (F on the parent, M on the child), constraint
    and point-to-point spring."""
    model, links = res.model, []
    for name in res._cm.topology.cut:
        joint = model.joints[name]
        links.append({"name": name, "kind": "cut joint", "a": (index.get(joint.parent, -1), joint.parent_pose[0]),
                      "b": (index.get(joint.child, -1), joint.child_pose[0])})
    for kind, elements in (("constraint", model.constraints), ("spring", model.forces)):
        for name, element in elements.items():
            ends = attachments(element)
            if ends:
                links.append({"name": name, "kind": kind, **{side: (index.get(b, -1), p)
                                                             for side, (b, p) in zip("ab", ends)}})
    return links


def _trace(model, item):
    """(label, body, point in body coordinates) of a trace: a body name (its frame origin) or
    (body, frame name or point)."""
    body, where = (item, None) if isinstance(item, str) else \
        tuple(item) if isinstance(item, (tuple, list)) and len(item) == 2 else (item, None)
    if not isinstance(body, str) or body not in model.bodies:
        raise MechsimError(f"animate: unknown body {body!r} in traces; a trace is a body name or (body, frame "
                           f"name or point); bodies: {', '.join(model.bodies)}")
    if where is None:
        return body, body, np.zeros(3)
    if isinstance(where, str):
        frames = model.bodies[body].frames
        if where not in frames:
            raise MechsimError(f"animate: body {body!r} has no frame {where!r} (its frames: "
                               f"{', '.join(frames) or 'none'})")
        return f"{body}:{where}", body, frames[where][0]
    point = np.asarray(where, dtype=float)
    if point.shape != (3,) or not np.all(np.isfinite(point)):
        raise MechsimError(f"animate: trace point of body {body!r} must be 3 numbers, got {where!r}")
    return f"{body} ({', '.join(f'{x:g}' for x in point)})", body, point
