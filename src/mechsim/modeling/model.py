"""The Model: a machine described as bodies, joints, force elements and inputs (SPEC §3)."""
from contextlib import contextmanager

from ..errors import ModelError
from ..spatial.rotations import as_vector3
from .body import Body
from .constraints import Constraint, Driver
from .forces import make_force
from .joints import Joint


@contextmanager
def _item(what):
    """Turn a malformed argument's TypeError/ValueError into a ModelError naming the item."""
    try:
        yield
    except ModelError:
        raise
    except (TypeError, ValueError, AttributeError) as exc:
        raise ModelError(f"{what}: invalid argument ({exc})") from None


class Model:
    """A mechanism. Build it with ``add_body``, ``add_joint``, ``add_force``, ``add_input``;
    analyse it with ``check``, ``simulate``; save it with ``to_yaml``."""

    def __init__(self, name="model", gravity=(0.0, 0.0, -9.81)):
        self.name = str(name)
        self.gravity = as_vector3(gravity, "gravity")
        self.bodies = {"ground": Body("ground")}
        self.joints = {}
        self.forces = {}
        self.constraints = {}
        self.drivers = {}
        self.inputs = {}          # name -> default value
        self.simulation = {}      # defaults for simulate() (the model file's simulation: section)
        self.specs = {"bodies": {}, "joints": {}, "forces": {}, "constraints": {}, "drivers": {}}   # user arguments, for to_yaml
        self._compiled = None

    # ---------------------------------------------------------------- building
    def _new_name(self, name, what):
        if not isinstance(name, str) or not name or any(c in name for c in ".[] \t\n"):
            raise ModelError(f"{what} name {name!r} is invalid: use a non-empty name without '.', '[', ']' or spaces")
        for kind, table in (("body", self.bodies), ("joint", self.joints), ("force", self.forces),
                            ("constraint", self.constraints), ("input", self.inputs)):
            if name in table:
                raise ModelError(f"duplicate name '{name}': a {kind} of that name exists already")
        self._compiled = None
        return name

    def add_body(self, name, mass=0.0, com=(0, 0, 0), inertia=(0, 0, 0), frames=None, geometry=None):
        """Add a rigid body; ``inertia`` is about the COM in body axes: 3, 6 numbers or 3x3 (SPEC §2)."""
        self._new_name(name, "body")
        with _item(f"body '{name}'"):
            body = Body(name, mass=mass, com=com, inertia=inertia, frames=frames, geometry=geometry)
        self.bodies[name] = body
        self.specs["bodies"][name] = dict(mass=mass, com=com, inertia=inertia, frames=frames, geometry=geometry)
        return body

    def add_frame(self, body, name, pose):
        """Name a frame (position or (position, rotation)) on a body, the ground included."""
        with _item(f"frame '{name}'"):
            self.body(body, f"frame '{name}'").add_frame(name, pose)
        self.specs.setdefault("frames", []).append(dict(body=body, name=name, pose=pose))
        self._compiled = None

    def add_joint(self, name, kind, parent, child, parent_frame=None, child_frame=None,
                  q0=None, v0=None, cut=False, **options):
        """Add a joint from frame F on ``parent`` to frame M on ``child`` (SPEC §2 for kinds and coordinates)."""
        self._new_name(name, "joint")
        what = f"joint '{name}'"
        with _item(what):
            pb, cb = self.body(parent, what + " parent"), self.body(child, what + " child")
            if pb is cb:
                raise ModelError(f"{what}: parent and child are the same body '{parent}'")
            joint = Joint(name, kind, parent, child, pb.resolve_frame(parent_frame, what + " parent_frame"),
                          cb.resolve_frame(child_frame, what + " child_frame"), options, q0=q0, v0=v0, cut=cut)
        self.joints[name] = joint
        self.specs["joints"][name] = dict(kind=kind, parent=parent, child=child, parent_frame=parent_frame,
                                          child_frame=child_frame, q0=q0, v0=v0, cut=cut, **options)
        return joint

    def add_force(self, name, kind, **options):
        """Add a force element: joint_spring_damper, spring_damper, joint_force, body_force."""
        self._new_name(name, "force")
        with _item(f"force '{name}'"):
            force = make_force(self, name, kind, options)
        self.forces[name] = force
        self.specs["forces"][name] = dict(kind=kind, **options)
        return force

    def add_constraint(self, name, kind, **options):
        """Add a constraint: gear, distance, point_coincident, point_on_line, point_on_plane (SPEC §3)."""
        self._new_name(name, "constraint")
        with _item(f"constraint '{name}'"):
            constraint = Constraint(self, name, kind, options)
        self.constraints[name] = constraint
        self.specs["constraints"][name] = dict(kind=kind, **options)
        return constraint

    def add_driver(self, joint, position=None, velocity=None, acceleration=None, coordinate=0, name=None):
        """Make coordinate ``coordinate`` of ``joint`` follow a motion of t (number, callable or expression);
        the derivatives not given are taken numerically (SPEC §3)."""
        with _item(f"driver on joint {joint!r}"):
            driver = Driver(self, joint, position, velocity, acceleration, coordinate, name)
        if driver.name in self.drivers:
            raise ModelError(f"duplicate driver name '{driver.name}'; give name= to tell drivers apart")
        self.drivers[driver.name] = driver
        self._compiled = None
        self.specs["drivers"][driver.name] = {k: v for k, v in dict(
            joint=joint, position=position, velocity=velocity, acceleration=acceleration,
            coordinate=coordinate or None, name=name).items() if v is not None}
        return driver

    def add_input(self, name, default=0.0):
        """Declare a named input; a joint_force may use it as ``value=name``."""
        self._new_name(name, "input")
        with _item(f"input '{name}'"):
            self.inputs[name] = float(default)
        return name

    # ---------------------------------------------------------------- lookup
    def body(self, name, what="reference"):
        if not isinstance(name, str) or name not in self.bodies:
            raise ModelError(f"{what}: unknown body {name!r} (bodies: {', '.join(self.bodies)})")
        return self.bodies[name]

    def joint(self, name, what="reference"):
        if not isinstance(name, str) or name not in self.joints:
            raise ModelError(f"{what}: unknown joint {name!r} (joints: {', '.join(self.joints) or 'none'})")
        return self.joints[name]

    # ---------------------------------------------------------------- analysis
    def compile(self):
        """The flat-array form of the model used by the compiled kernels (cached until the model changes)."""
        if self._compiled is None:
            from ..dynamics.compiled import CompiledModel
            self._compiled = CompiledModel(self)
        return self._compiled

    def coordinates(self):
        """(q_names, v_names) in the order of the state vectors q and v."""
        return self.compile().q_names, self.compile().v_names

    def signals(self):
        """Every signal name a Result provides."""
        return self.compile().signal_names()

    def check(self):
        """Topology report (``dof``, ``tree_joints``, ``cut_joints``, ``loops``, ...); raises ModelError."""
        from ..analysis.check import check
        return check(self)

    def initial_state(self):
        from ..analysis.state import State
        cm = self.compile()
        return State(cm, cm.q0.copy(), cm.v0.copy())

    def assemble(self, fixed=None, t=0.0):
        """A State that satisfies every loop, constraint and driver, as near q0/v0 as possible; the
        coordinates named in ``fixed`` (joint names, coordinate names, or {name: value}) are held."""
        from ..assembly.assemble import assemble
        return assemble(self, fixed, t)

    def simulate(self, t_end=None, **options):
        """Forward dynamics from q0/v0 (or ``initial=``); see mechsim.simulation.simulate."""
        from ..simulation.simulate import simulate
        return simulate(self, t_end=t_end, **options)

    def kinematics(self, t_eval, inputs=None):
        """The motion and forces of a fully driven machine over t_eval, as a Result (every joint's
        reaction, the drivers' forces); see mechsim.analysis.kinematics."""
        from ..analysis.kinematics import kinematics
        return kinematics(self, t_eval, inputs)

    def trim(self, fixed=None, free_inputs=None, t=0.0, inputs=None, tol=1e-10):
        """An equilibrium State (zero accelerations on the constraints) near q0 with the ``fixed``
        coordinates held and the ``free_inputs`` solved for; see mechsim.analysis.trim."""
        from ..analysis.trim import trim
        return trim(self, fixed, free_inputs, t, inputs, tol)

    def linearize(self, state=None, inputs=None, outputs=None, minimal=False, independent=None,
                  perturbation=1e-3, adaptive=True):
        """A, B, C, D about a state on the constraint manifold; see mechsim.analysis.linearize."""
        from ..analysis.linearize import linearize
        return linearize(self, state, inputs, outputs, minimal, independent, perturbation, adaptive)

    def to_dict(self):
        from ..io.model_file import model_to_dict
        return model_to_dict(self)

    def to_yaml(self, path):
        """Write the model as YAML (or JSON for a .json path)."""
        from ..io.model_file import save
        save(self, path)

    def __repr__(self):
        return (f"Model({self.name!r}: {len(self.bodies) - 1} bodies, {len(self.joints)} joints, "
                f"{len(self.constraints)} constraints, {len(self.drivers)} drivers, {len(self.forces)} forces, "
                f"{len(self.inputs)} inputs)")
