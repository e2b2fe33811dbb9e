"""Triangle meshes of the bodies, in body coordinates, for the web page and the videos (SPEC C9).

A body is drawn as SimMechanics draws it (Schlotter, *Multibody System Simulation with
SimMechanics*, Darmstadt 2003, §2.3 and §3.3): from its geometry, or as its
*equivalent inertia ellipsoid* — the homogeneous ellipsoid of the same mass, principal axes and
principal moments, centred at the centre of mass — or as the *convex hull* of the points fixed on
it (its frame origin, named frames, centre of mass and the points where joints, constraints and
springs attach).

For a solid ellipsoid of semi-axes a_i and mass m, I_1 = m (a_2² + a_3²) / 5 (and cyclically),
so  a_i = sqrt(5 / (2 m) (I_j + I_k − I_i)),  real for every body the model accepts (the
principal moments satisfy the triangle inequality, modeling/body.py).
"""
from dataclasses import dataclass

import numpy as np

from ..errors import MechsimError
from ..modeling.primitives import PRIMITIVES

BODY_MODES = ("geometry", "ellipsoid", "hull")
PALETTE = ("#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2", "#edc948", "#b07aa1", "#ff9da7",
           "#9c755f", "#bab0ac")
MAX_MESH_FACES = 20000       # meshes above this are decimated (quadric decimation through trimesh)
SEGMENTS = 24                # round shapes: segments around, half as many from pole to pole


@dataclass
class TriMesh:
    """Triangles: ``vertices`` (n, 3) in body coordinates, ``faces`` (m, 3) counter-clockwise seen from
    outside; ``color`` "#rrggbb"."""
    vertices: np.ndarray
    faces: np.ndarray
    color: str

    def moved(self, position, rotation):
        """The mesh with its vertices mapped x -> position + rotation x."""
        return TriMesh(self.vertices @ np.asarray(rotation).T + position, self.faces, self.color)


def body_meshes(model, mode="geometry", thickness=0.05, segments=SEGMENTS, max_faces=MAX_MESH_FACES):
    """{body name: [TriMesh]} for every body but the ground. ``mode``: "geometry" (its shapes; a body
    without any drawn as its ellipsoid), "ellipsoid" or "hull" (a massless body has no ellipsoid: its
    hull); ``thickness``: the diameter given to slender, flat or point-like bodies and the least
    diameter of an ellipsoid (m)."""
    if mode not in BODY_MODES:
        raise MechsimError(f"bodies={mode!r}: use one of {', '.join(map(repr, BODY_MODES))}")
    names = [b for b in model.bodies if b != "ground"]
    return {name: _body(model, name, PALETTE[k % len(PALETTE)], mode, thickness, segments, max_faces)
            for k, name in enumerate(names)}


def _body(model, name, color, mode, thickness, segments, max_faces):
    body = model.bodies[name]
    shapes = [s for s in body.shapes if s.role == "visual"] or list(body.shapes)
    if mode == "geometry" and shapes:
        return [shape_mesh(s, segments, max_faces, color) for s in shapes]
    if mode != "hull" and body.mass > 0 and np.any(body.inertia):
        radii, axes = inertia_ellipsoid(body.mass, body.inertia)
        return [ellipsoid_mesh(np.maximum(radii, thickness / 2), segments, color).moved(body.com, axes)]
    return [hull_mesh(body_points(model, name), thickness, segments, color)]


# ---------------------------------------------------------------------------------------- shapes
def shape_mesh(shape, segments, max_faces, color):
    """The TriMesh of a Shape (modeling/geometry.py), placed in the body frame."""
    d, color = shape.dims, shape.color or color
    if shape.kind == "box":
        mesh = box_mesh(d["size"], color)
    elif shape.kind == "sphere":
        mesh = ellipsoid_mesh(np.full(3, d["radius"]), segments, color)
    elif shape.kind == "ellipsoid":
        mesh = ellipsoid_mesh(d["radii"], segments, color)
    elif shape.kind == "cylinder":
        mesh = cylinder_mesh(d["radius"], d["length"], segments, color)
    elif shape.kind == "capsule":
        mesh = capsule_mesh(d["radius"], d["length"], segments, color)
    else:
        mesh = file_mesh(d, max_faces, color)
    return mesh.moved(shape.position, shape.rotation)


def box_mesh(size, color):
    """A box centred at the origin, four vertices per face (sharp edges)."""
    half = np.asarray(size, dtype=float) / 2
    vertices, faces = [], []
    for axis in range(3):
        u, w = (axis + 1) % 3, (axis + 2) % 3          # (u, w, axis) right-handed
        for sign in (1.0, -1.0):
            corners = np.zeros((4, 3))
            corners[:, axis] = sign * half[axis]
            corners[:, u] = sign * half[u] * np.array([-1, 1, 1, -1])
            corners[:, w] = half[w] * np.array([-1, -1, 1, 1])
            k = len(vertices) * 4
            vertices.append(corners)
            faces += [(k, k + 1, k + 2), (k, k + 2, k + 3)]
    return TriMesh(np.concatenate(vertices), np.array(faces), color)


def lathe(profiles, segments, color):
    """A surface of revolution about z: each profile, a list of (r, z) from bottom to top, is swept
    round in ``segments`` steps; points with r = 0 become single pole vertices. Separate profiles
    meet at sharp edges (their vertices are not shared)."""
    phi = 2 * np.pi * np.arange(segments) / segments
    circle = np.column_stack([np.cos(phi), np.sin(phi)])
    vertices, faces, count = [], [], 0
    for profile in profiles:
        rows = []
        for r, z in profile:
            ring = np.array([[0.0, 0.0, z]]) if r == 0 else np.column_stack([r * circle, np.full(segments, z)])
            rows.append(np.arange(count, count + len(ring)))
            vertices.append(ring)
            count += len(ring)
        for lower, upper in zip(rows, rows[1:]):
            faces += _band(lower, upper, segments)
    return TriMesh(np.concatenate(vertices).astype(float), np.array(faces), color)


def _band(lower, upper, segments):
    """Triangles between two rings of vertex indices (a ring of one index is a pole), outward for a
    profile that runs upwards."""
    j = np.arange(segments)
    a, b = lower[j % len(lower)], lower[(j + 1) % len(lower)]
    c, d = upper[(j + 1) % len(upper)], upper[j % len(upper)]
    triangles = []
    if len(lower) > 1:
        triangles += list(zip(a, b, c))
    if len(upper) > 1:
        triangles += list(zip(a, c, d))
    return triangles


def _arc(radius, start, stop, steps, z0):
    """(r, z) along a meridian of a sphere of ``radius`` centred at z0, polar angle from start to stop
    (0 at the bottom pole)."""
    theta = np.linspace(start, stop, steps + 1)
    return list(zip(radius * np.sin(theta), z0 - radius * np.cos(theta)))


def ellipsoid_mesh(radii, segments, color):
    sphere = lathe([_arc(1.0, 0, np.pi, segments // 2, 0.0)], segments, color)
    return TriMesh(sphere.vertices * radii, sphere.faces, color)


def capsule_mesh(radius, length, segments, color):
    quarter = segments // 4
    return lathe([_arc(radius, 0, np.pi / 2, quarter, -length / 2)
                  + _arc(radius, np.pi / 2, np.pi, quarter, length / 2)], segments, color)


def cylinder_mesh(radius, length, segments, color):
    h = length / 2
    return lathe([[(0, -h), (radius, -h)], [(radius, -h), (radius, h)], [(radius, h), (0, h)]], segments, color)


def file_mesh(dims, max_faces, color):
    """A mesh shape's triangles: read from its file through trimesh, or given; decimated to max_faces."""
    if "path" in dims:
        trimesh = _trimesh(f"reading the mesh {dims['path']}")
        try:
            loaded = trimesh.load(dims["path"], force="mesh")
        except (OSError, ValueError) as exc:
            raise MechsimError(f"cannot read the mesh {dims['path']}: {exc}") from None
        vertices, faces = np.asarray(loaded.vertices) * dims["scale"], np.asarray(loaded.faces)
    else:
        vertices, faces = dims["vertices"], dims["faces"]
    if len(faces) > max_faces:
        mesh = _trimesh(f"decimating a mesh of {len(faces)} faces").Trimesh(vertices, faces, process=False)
        mesh = mesh.simplify_quadric_decimation(face_count=max_faces)
        vertices, faces = np.asarray(mesh.vertices), np.asarray(mesh.faces)
    return TriMesh(np.asarray(vertices, dtype=float), np.asarray(faces, dtype=np.int64), color)


def _trimesh(task):
    try:
        import trimesh
    except ImportError:
        raise MechsimError(f"{task} needs trimesh: pip install mechsim[mesh]") from None
    return trimesh


# ---------------------------------------------------------------------------------------- ellipsoid
def inertia_ellipsoid(mass, inertia):
    """(semi-axes (3,), principal axes as the columns of a rotation) of the homogeneous ellipsoid with
    the body's mass and inertia about its centre of mass: a_i = sqrt(5/(2m) (I_j + I_k - I_i))."""
    moments, axes = np.linalg.eigh(np.asarray(inertia, dtype=float))
    if np.linalg.det(axes) < 0:
        axes[:, 2] = -axes[:, 2]
    return np.sqrt(np.maximum(5.0 / (2.0 * mass) * (moments.sum() - 2.0 * moments), 0.0)), axes


# ---------------------------------------------------------------------------------------- hull
def body_points(model, name):
    """(k, 3) points fixed on a body, in its frame: origin, named frames, centre of mass, where joints
    (frames F and M), constraints and point-to-point force elements attach."""
    body = model.bodies[name]
    points = [np.zeros(3), body.com, *(p for p, _ in body.frames.values())]
    for joint in model.joints.values():
        points += [pose[0] for side, pose in ((joint.parent, joint.parent_pose), (joint.child, joint.child_pose))
                   if side == name]
    for element in (*model.constraints.values(), *model.forces.values()):
        points += [p for body_name, p in attachments(element) if body_name == name]
    return np.array(points, dtype=float)


def attachments(element):
    """[(body, point)] of an element joining two body points (body_a/point_a, body_b/point_b); [] otherwise."""
    if all(hasattr(element, a) for a in ("body_a", "point_a", "body_b", "point_b")):
        return [(element.body_a, np.asarray(element.point_a)), (element.body_b, np.asarray(element.point_b))]
    return []


def hull_mesh(points, thickness, segments, color):
    """The convex hull of ``points`` (scipy.spatial.ConvexHull); a capsule of diameter ``thickness``
    when they lie on a line, a prism ``thickness`` thick when they lie in a plane, a sphere for one point."""
    from scipy.spatial import ConvexHull

    points = np.asarray(points, dtype=float)
    centre = points.mean(axis=0)
    _, spread, directions = np.linalg.svd(points - centre)
    rank = int(np.sum(spread > 1e-9 * max(1.0, spread[0])))
    if rank == 0:
        return ellipsoid_mesh(np.full(3, thickness / 2), segments, color).moved(centre, np.eye(3))
    if rank == 1:
        along = (points - centre) @ directions[0]
        a, b = centre + along.min() * directions[0], centre + along.max() * directions[0]
        capsule = capsule_mesh(thickness / 2, np.linalg.norm(b - a), segments, color)
        return capsule.moved((a + b) / 2, rotation_from_z(directions[0]))
    if rank == 2:                                   # a prism: the points pushed off the plane both ways
        normal = directions[2] * thickness / 2
        points = np.concatenate([points + normal, points - normal])
    hull = ConvexHull(points)
    faces = hull.simplices.copy()
    v = points[faces]
    inward = np.einsum("ij,ij->i", np.cross(v[:, 1] - v[:, 0], v[:, 2] - v[:, 0]), hull.equations[:, :3]) < 0
    faces[inward] = faces[inward][:, ::-1]
    return TriMesh(points[faces].reshape(-1, 3), np.arange(faces.size).reshape(-1, 3), color)   # flat faces


def rotation_from_z(direction):
    """A rotation whose third column is the unit vector ``direction``."""
    z = np.asarray(direction, dtype=float) / np.linalg.norm(direction)
    x = np.cross([0.0, 1.0, 0.0] if abs(z[1]) < 0.9 else [1.0, 0.0, 0.0], z)
    x /= np.linalg.norm(x)
    return np.column_stack([x, np.cross(z, x), z])


def joint_axes(model, index):
    """The drawn joint axes: [{"joint", "body" (index, -1 the ground), "point", "axis", "type"}] in body
    coordinates — a revolute-like (R), prismatic (P) or screw (H) joint's first axis on the parent at
    its frame F and its last on the child at M (one entry for a one-axis joint); a spherical joint's
    centre (type S, no axis). Free, bushing, planar and weld joints are not drawn."""
    entries = []
    for joint in model.joints.values():
        if joint.kind in ("free", "bushing", "planar", "weld"):
            continue
        primitives = joint.primitives
        ends = [(joint.child, joint.child_pose, primitives[-1])]
        if len(primitives) > 1:
            ends.insert(0, (joint.parent, joint.parent_pose, primitives[0]))
        for body, (position, rotation), (ptype, axis, _) in ends:
            entries.append({"joint": joint.name, "body": index.get(body, -1), "point": position.tolist(),
                            "axis": (rotation @ axis).tolist() if PRIMITIVES[ptype].axial else None,
                            "type": PRIMITIVES[ptype].letter})
    return entries
