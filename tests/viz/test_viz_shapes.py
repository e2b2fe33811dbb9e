"""Body shapes for animations: the geometry format, primitive meshes, equivalent inertia ellipsoids
(Schlotter 2003, §2.3) and convex hulls with their fallbacks."""
import numpy as np
import pytest

import mechsim as ms
from mechsim.modeling.geometry import read_geometry
from mechsim.viz import shapes
from mechsim.viz.shapes import (body_meshes, box_mesh, capsule_mesh, cylinder_mesh, ellipsoid_mesh, hull_mesh,
                                inertia_ellipsoid, shape_mesh)


def volume(mesh):
    """Signed volume by the divergence theorem: positive when every face points outwards."""
    a, b, c = (mesh.vertices[mesh.faces[:, k]] for k in range(3))
    return np.einsum("ij,ij->i", a, np.cross(b, c)).sum() / 6


def rotation(seed=3):
    q, _ = np.linalg.qr(np.random.default_rng(seed).normal(size=(3, 3)))
    return q * np.sign(np.linalg.det(q))


# ------------------------------------------------------------------------------ ellipsoid
def test_equivalent_ellipsoid_of_a_box_is_the_formula():
    """A box a x b x c of mass m: I_x = m (b² + c²)/12, ..., so a_i = sqrt(5/(2m) (I_j + I_k - I_i))
    = sqrt(5/12) x its edge, along the box's edges, whatever the orientation."""
    size, mass, R = np.array([0.4, 0.2, 0.1]), 3.0, rotation()
    I_box = mass / 12 * np.diag([size[1] ** 2 + size[2] ** 2, size[0] ** 2 + size[2] ** 2, size[0] ** 2 + size[1] ** 2])
    radii, axes = inertia_ellipsoid(mass, R @ I_box @ R.T)
    order = np.argsort(radii)[::-1]                      # the longest semi-axis along the longest edge
    np.testing.assert_allclose(radii[order], np.sqrt(5 / 12) * size, rtol=1e-12)
    np.testing.assert_allclose(np.abs(np.einsum("ij,ij->j", axes[:, order], R)), 1.0, rtol=1e-12)
    assert np.linalg.det(axes) == pytest.approx(1.0)
    # the ellipsoid of those semi-axes has the box's inertia (I_x = m (b² + c²)/5)
    a2 = radii ** 2
    np.testing.assert_allclose(np.sort(mass / 5 * (a2.sum() - a2)), np.sort(np.diag(I_box)), rtol=1e-12)


def test_a_body_is_drawn_as_its_ellipsoid_at_its_centre_of_mass():
    m = ms.Model("m")
    size, R = np.array([0.4, 0.2, 0.1]), rotation(5)
    I_box = 2.0 / 12 * np.diag([size[1] ** 2 + size[2] ** 2, size[0] ** 2 + size[2] ** 2, size[0] ** 2 + size[1] ** 2])
    m.add_body("b", mass=2.0, com=(1, 2, 3), inertia=R @ I_box @ R.T)
    mesh, = body_meshes(m, "ellipsoid", thickness=1e-3)["b"]
    local = (mesh.vertices - (1, 2, 3)) @ R                 # in the box's edge axes
    np.testing.assert_allclose(np.abs(local).max(axis=0), np.sqrt(5 / 12) * size, rtol=1e-12)
    assert volume(mesh) == pytest.approx(4 / 3 * np.pi * np.prod(np.sqrt(5 / 12) * size), rel=0.05)   # 24 segments


# ------------------------------------------------------------------------------ hull
def test_hull_of_points_in_space_is_their_convex_hull_facing_outwards():
    corners = np.array([[0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 1]], dtype=float)
    mesh = hull_mesh(np.vstack([corners, [[0.1, 0.1, 0.1]]]), 0.05, 16, "#000000")
    assert len(mesh.faces) == 4 and volume(mesh) == pytest.approx(1 / 6)


def test_hull_fallbacks_sphere_capsule_prism():
    t = 0.1
    one = hull_mesh([[1, 2, 3]] * 3, t, 16, "#000000")                  # one point (repeated)
    np.testing.assert_allclose(np.linalg.norm(one.vertices - (1, 2, 3), axis=1), t / 2, atol=1e-12)
    line = hull_mesh([[0, 0, 0], [0.5, 0.5, 0], [2, 2, 0]], t, 16, "#000000")   # collinear: a capsule
    along = line.vertices @ np.array([1, 1, 0]) / np.sqrt(2)
    assert along.min() == pytest.approx(-t / 2) and along.max() == pytest.approx(2 * np.sqrt(2) + t / 2)
    assert np.abs(line.vertices[:, 2]).max() == pytest.approx(t / 2)
    square = [[0, 0, 0], [1, 0, 0], [1, 1, 0], [0, 1, 0], [0.5, 0.5, 0]]  # coplanar: a prism t thick
    prism = hull_mesh(square, t, 16, "#000000")
    np.testing.assert_allclose(prism.vertices.min(axis=0), [0, 0, -t / 2], atol=1e-12)
    np.testing.assert_allclose(prism.vertices.max(axis=0), [1, 1, t / 2], atol=1e-12)
    assert volume(prism) == pytest.approx(t)
    assert volume(line) > 0 and volume(one) > 0


def test_hull_points_are_the_frames_com_and_attachments():
    m = ms.Model("m")
    m.add_body("a", mass=1, com=(0.5, 0, 0), inertia=(0, 0.1, 0.1), frames={"tip": (1, 0, 0)})
    m.add_body("b", mass=1, inertia=(0.1, 0.1, 0.1))
    m.add_joint("j", "revolute", "ground", "a", child_frame=(0, 0.2, 0))
    m.add_joint("k", "spherical", "a", "b", parent_frame="tip")
    m.add_constraint("c", "distance", body_a="a", point_a=(0, 0, 0.3), body_b="ground", point_b=(0, 0, 0), length=0.3)
    points = {tuple(p) for p in shapes.body_points(m, "a")}
    assert points == {(0, 0, 0), (0.5, 0, 0), (1, 0, 0), (0, 0.2, 0), (0, 0, 0.3)}


# ------------------------------------------------------------------------------ geometry
def test_primitive_meshes_have_their_volumes_and_face_outwards():
    assert volume(box_mesh([0.1, 0.2, 0.3], "#000000")) == pytest.approx(0.006)
    ball, tube = 4 / 3 * np.pi * 0.5 ** 3, np.pi * 0.5 ** 2 * 2
    for mesh, exact in ((ellipsoid_mesh(np.full(3, 0.5), 48, "#000000"), ball), (cylinder_mesh(0.5, 2, 48, ""), tube),
                        (capsule_mesh(0.5, 2, 48, ""), tube + ball)):
        assert volume(mesh) == pytest.approx(exact, rel=0.01)


def test_geometry_format_kinds_poses_and_colours():
    R = rotation(7)
    box, sphere, cylinder, capsule, ellipsoid, mesh = read_geometry([
        {"kind": "box", "size": [0.1, 0.2, 0.3], "pose": {"position": [1, 2, 3], "rotation": R.tolist()},
         "color": "#FF0000"},
        {"kind": "sphere", "radius": 0.5, "pose": [0, 0, 1], "role": "collision"},
        {"kind": "cylinder", "radius": 0.1, "length": 2,
         "pose": [[0, 0, 0], {"euler": [0, np.pi / 2, 0], "seq": "xyz"}]},
        {"kind": "capsule", "radius": 0.1, "length": 0, "color": [0, 0.5, 1]},
        {"kind": "ellipsoid", "radii": [1, 2, 3]},
        {"kind": "mesh", "vertices": [[0, 0, 0], [1, 0, 0], [0, 1, 0]], "faces": [[0, 1, 2]], "scale": 2}], "body 'b'")
    assert box.color == "#ff0000" and capsule.color == "#0080ff" and sphere.role == "collision"
    drawn = shape_mesh(box, 16, 100, "#000000")
    np.testing.assert_allclose(drawn.vertices.mean(axis=0), [1, 2, 3], atol=1e-12)
    np.testing.assert_allclose(np.sort(np.abs((drawn.vertices - (1, 2, 3)) @ R).max(axis=0)), [0.05, 0.1, 0.15])
    along = shape_mesh(cylinder, 16, 100, "#000000").vertices
    assert np.ptp(along[:, 0]) == pytest.approx(2) and np.ptp(along[:, 2]) == pytest.approx(0.2)
    assert shape_mesh(mesh, 16, 100, "#000000").vertices.max() == 2
    assert shape_mesh(ellipsoid, 16, 100, "#000000").vertices.max(axis=0) == pytest.approx([1, 2, 3])


@pytest.mark.parametrize("entry, words", [
    ({"kind": "cone", "radius": 1}, ["unknown kind 'cone'"]),
    ({"kind": "box", "size": [1, 2]}, ["size must be 3 numbers"]),
    ({"kind": "sphere", "radius": -1}, ["radius must be a number > 0"]),
    ({"kind": "sphere", "radius": 1, "colour": "red"}, ["unknown key(s) ['colour']"]),
    ({"kind": "cylinder", "radius": 1}, ["needs length"]),
    ({"kind": "mesh"}, ["a mesh needs a path"]),
    ({"kind": "mesh", "vertices": [[0, 0, 0]], "faces": [[0, 1, 2]]}, ["a mesh needs a path, or vertices"]),
    ({"kind": "mesh", "path": "part.stl", "scale": [1, 2]}, ["scale must be 1 or 3 nonzero numbers"]),
    ({"kind": "sphere", "radius": 1, "role": "ghost"}, ["role must be"]),
    ({"kind": "sphere", "radius": 1, "color": "red"}, ["color must be"]),
    ("box", ["geometry must be a shape dict"]),
])
def test_bad_geometry_is_refused_naming_the_body_and_entry(entry, words):
    m = ms.Model("m")
    with pytest.raises(ms.ModelError) as error:
        m.add_body("b", mass=1, inertia=(1, 1, 1), geometry=entry)
    assert "body 'b'" in str(error.value)
    for word in words:
        assert word in str(error.value)


def test_changing_a_bodys_geometry_changes_its_shapes():
    m = ms.Model("m")
    body = m.add_body("b", mass=1, inertia=(1, 1, 1), geometry={"kind": "sphere", "radius": 1})
    body.geometry = [{"kind": "box", "size": [1, 2, 3]}]
    assert [s.kind for s in m.bodies["b"].shapes] == ["box"]
    with pytest.raises(ms.ModelError, match="unknown kind 'cube'"):
        body.geometry = {"kind": "cube"}


def test_default_drawing_geometry_else_ellipsoid_else_hull():
    m = ms.Model("m")
    m.add_body("shaped", mass=1, inertia=(1, 1, 1), geometry=[{"kind": "sphere", "radius": 0.2},
                                                              {"kind": "box", "size": [1, 1, 1], "role": "collision"}])
    m.add_body("massive", mass=1, inertia=(0.1, 0.1, 0.1))
    m.add_body("massless", frames={"tip": (1, 0, 0)})
    m.add_joint("j1", "revolute", "ground", "shaped")
    m.add_joint("j2", "revolute", "shaped", "massive")
    m.add_joint("j3", "weld", "massive", "massless")
    drawn = body_meshes(m, "geometry", thickness=0.01)
    assert drawn["shaped"][0].vertices.max() == pytest.approx(0.2)          # the visual sphere only
    assert len(drawn["massive"][0].vertices) == len(ellipsoid_mesh(np.ones(3), shapes.SEGMENTS, "").vertices)
    assert drawn["massless"][0].vertices[:, 0].max() == pytest.approx(1.005)  # a capsule over its frames
    with pytest.raises(ms.MechsimError, match="bodies='box'"):
        body_meshes(m, "box")


# ------------------------------------------------------------------------------ meshes
def test_mesh_files_through_trimesh_scaled_and_decimated(tmp_path):
    trimesh = pytest.importorskip("trimesh")
    pytest.importorskip("fast_simplification")
    trimesh.creation.icosphere(subdivisions=3).export(tmp_path / "ball.stl")      # 1280 faces
    shape, = read_geometry({"kind": "mesh", "path": str(tmp_path / "ball.stl"), "scale": [1, 2, 3]}, "body 'b'")
    full = shape_mesh(shape, 16, 10000, "#000000")
    assert len(full.faces) == 1280
    np.testing.assert_allclose(full.vertices.max(axis=0), [1, 2, 3], rtol=1e-6)
    assert 100 <= len(shape_mesh(shape, 16, 300, "#000000").faces) <= 300


def test_mesh_without_trimesh_names_the_extra(tmp_path, monkeypatch):
    monkeypatch.setitem(__import__("sys").modules, "trimesh", None)
    shape, = read_geometry({"kind": "mesh", "path": str(tmp_path / "part.obj")}, "body 'b'")
    with pytest.raises(ms.MechsimError, match=r"needs trimesh: pip install mechsim\[mesh\]"):
        shape_mesh(shape, 16, 1000, "#000000")


def test_mjcf_meshes_become_vertices_and_faces(tmp_path):
    pytest.importorskip("mujoco")
    path = tmp_path / "tet.xml"
    path.write_text('<mujoco><asset><mesh name="tet" vertex="0 0 0  1 0 0  0 1 0  0 0 1"/></asset><worldbody>'
                    '<body name="b" pos="0 0 1"><freejoint/><geom type="mesh" mesh="tet" mass="1"/></body>'
                    '</worldbody></mujoco>')
    m = ms.load(path)
    mesh, = body_meshes(m)["b"]
    assert len(mesh.faces) == 4 and volume(mesh) == pytest.approx(1 / 6, rel=1e-6)
    # MuJoCo moves the mesh to its inertia frame and poses the geom back: the corners are where the file put them
    corners = np.array([[0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 1]])
    assert all(np.min(np.linalg.norm(mesh.vertices - c, axis=1)) < 1e-6 for c in corners)
