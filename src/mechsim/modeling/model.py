"""The Model: a machine described as bodies, joints, force elements and inputs (SPEC §3)."""
from contextlib import contextmanager

from ..errors import ModelError
from ..spatial.rotations import as_vector3
from .body import Body
from .constraints import Driver, make_constraint
from .contacts import Contact
from .element import frozen
from .actions import file_action
from .events import Event
from .forces import make_force
from .joints import Joint
from .names import check_name, find_item

ELEMENTS = ("forces", "constraints", "contacts")
MAX_GRAVITY = 1e100      # m/s^2 along each axis: beyond, the weights and reactions computed with it overflow (as
                         # body.MAX_MASS)
NAME_SPACES = {"body": ("bodies",), "joint": ("joints",), "input": ("inputs",),  # SPEC C15
               **{kind[:-1]: ELEMENTS for kind in ELEMENTS}}


@contextmanager
def _item(what):
    """Turn a malformed argument's TypeError/ValueError into a ModelError naming the item."""
    try:
        yield
    except ModelError:
        raise
    except OverflowError:
        raise ModelError(f"{what}: a number is beyond the floating-point range; give finite values") from None
    except (TypeError, ValueError, AttributeError, IndexError) as exc:
        raise ModelError(f"{what}: invalid argument ({exc})") from None


class Model:
    """A mechanism. Build it with ``add_body``, ``add_joint``, ``add_force``, ``add_input``;
    analyse it with ``check``, ``simulate``; save it with ``to_yaml``.

    A model may change after a run: ``add_*``, ``gravity``, ``set_input_default`` and the parameters
    of what ``add_*`` returned (``body.mass = 2.0``, ``joint.q0 = 0.3``, ``spring.stiffness = 50``)
    take effect at the next run and in ``to_yaml`` (modeling/element.py)."""

    def __init__(self, name="model", gravity=(0.0, 0.0, -9.81)):
        self.name = str(name)
        self.gravity = gravity
        self.bodies, self.joints, self.forces, self.constraints, self.drivers = {}, {}, {}, {}, {}
        self.contacts = {}
        self.inputs = frozen({})  # name -> default value
        self.simulation = {}      # defaults for simulate() (the model file's simulation: section)
        self.events = {}          # name -> ms.Event, watched in every run (add_event)
        self.links = {}           # name -> an I/O link (modeling/links), exchanging in every run (add_link)
        self.specs = {"bodies": {}, "joints": {}, "forces": {}, "constraints": {}, "drivers": {},
                      "contacts": {}}                  # user arguments, for to_yaml
        self._register(Body("ground"), None)
        self._compiled = None

    @property
    def _compiled(self):
        """The CompiledModel compile() made, None until then and after every change."""
        return self._compiled_model

    @_compiled.setter
    def _compiled(self, value):
        self._compiled_model = value

    @property
    def gravity(self):
        """Gravity in world axes (3 finite numbers, each at most MAX_GRAVITY = 1e100 m/s^2 in magnitude)."""
        return self._gravity

    @gravity.setter
    def gravity(self, value):
        g = as_vector3(value, "gravity")
        if max(abs(g)) > MAX_GRAVITY:
            raise ModelError(f"gravity must be at most {MAX_GRAVITY:g} m/s^2 along each axis, got {value!r}")
        self._gravity, self._compiled = frozen(g), None

    # ---------------------------------------------------------------- building
    def _new_name(self, name, what):
        """``name`` for a new ``what``: unique in its name space (SPEC C15: bodies, joints, elements and inputs
        each have their own, modeling/names.py), taken as written but for control characters."""
        check_name(name, what)
        if what == "input" and any(c in name for c in ".[] "):
            raise ModelError(f"input name {name!r} is invalid: an input is named in expressions and signal "
                             f"lists; use a name without '.', '[', ']' or spaces")
        space = NAME_SPACES[what]
        for kind in space:
            if name in getattr(self, kind):
                noun = {"bodies": "a body", "inputs": "an input"}.get(kind, f"a {kind[:-1]}")
                raise ModelError(f"duplicate name '{name}': {noun} of that name exists already")
        self._compiled = None
        return name

    def add_body(self, name, mass=0.0, com=(0, 0, 0), inertia=(0, 0, 0), frames=None, geometry=None,
                 check_inertia=True):
        """Add a rigid body; ``inertia`` is about the COM in body axes: 3, 6 numbers or 3x3 (SPEC §2), one that no
        rigid body has (not positive semi-definite, or against the triangle inequality) taken as given only with
        ``check_inertia=False``."""
        self._new_name(name, "body")
        with _item(f"body '{name}'"):
            body = Body(name, mass=mass, com=com, inertia=inertia, frames=frames, geometry=geometry,
                        check_inertia=check_inertia)
        return self._register(body, dict(mass=mass, com=com, inertia=inertia, frames=frames, geometry=geometry,
                                         check_inertia=check_inertia))

    def add_frame(self, body, name, pose):
        """Name a frame (position or (position, rotation)) on a body, the ground included."""
        with _item(f"frame '{name}'"):
            self.body(body, f"frame '{name}'")._add_frame(name, pose)
        self.specs.setdefault("frames", []).append(frozen(dict(body=body, name=name, pose=pose)))
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
        return self._register(joint, dict(kind=kind, parent=parent, child=child, parent_frame=parent_frame,
                                          child_frame=child_frame, q0=q0, v0=v0, cut=cut, **options))

    def add_force(self, name, kind, **options):
        """Add a force element of a kind of modeling/forces (FORCE_KINDS): joint_spring_damper, spring_damper,
        joint_force, body_force, joint_limit, joint_friction, bushing, fluid_drag, fixed_tendon; ``options`` as its
        class documents."""
        self._new_name(name, "force")
        with _item(f"force '{name}'"):
            force = make_force(self, name, kind, options)
        return self._register(force, dict(kind=kind, **options))

    def add_constraint(self, name, kind, **options):
        """Add a constraint: gear, distance, point_coincident, point_on_line, point_on_plane, polynomial_coupling
        (SPEC §3; modeling/constraints)."""
        self._new_name(name, "constraint")
        with _item(f"constraint '{name}'"):
            constraint = make_constraint(self, name, kind, options)
        return self._register(constraint, dict(kind=kind, **options))

    def add_contact(self, name, body, **options):
        """Add a rigid contact of a point or sphere on ``body`` with a plane on ``surface`` (default the
        ground): shape, radius, point, surface, origin, normal, surface_velocity, restitution, static,
        kinetic, min_bounce_speed (SPEC §3; modeling/contacts.py)."""
        self._new_name(name, "contact")
        with _item(f"contact '{name}'"):
            contact = Contact(self, name, dict(body=body, **options))
        return self._register(contact, dict(body=body, **options))

    def add_driver(self, joint, position=None, velocity=None, acceleration=None, coordinate=0, name=None):
        """Make coordinate ``coordinate`` of ``joint`` follow a motion of t (number, callable or expression);
        the derivatives not given are taken numerically (SPEC §3)."""
        with _item(f"driver on joint {joint!r}"):
            driver = Driver(self, joint, position, velocity, acceleration, coordinate, name)
        if driver.name in self.drivers:
            raise ModelError(f"duplicate driver name '{driver.name}'; give name= to tell drivers apart")
        return self._register(driver, {k: v for k, v in dict(
            joint=joint, position=position, velocity=velocity, acceleration=acceleration,
            coordinate=coordinate or None, name=name).items() if v is not None})

    def add_event(self, signal, value=0.0, direction=0, terminal=False, action=None, name=None):
        """Watch ``signal`` (a signal name, or a callable g(t, state)) cross ``value`` in every run;
        ``action``: a model file's action ("stop", {"set_input": {input: value}}, {"set": {element: {parameter:
        value}}}: modeling/actions) or a callable action(sim, t, state). Named after the signal unless ``name``
        is given."""
        name = name or (signal if isinstance(signal, str) else getattr(signal, "__name__", None))
        if not isinstance(name, str) or not name:
            raise ModelError(f"event on {signal!r}: give it a name=")
        if name in self.events:
            raise ModelError(f"duplicate event name '{name}'; give name= to tell events apart")
        with _item(f"event '{name}'"):
            event = Event(signal, action=file_action(action, self, f"event '{name}'"), direction=direction,
                          terminal=terminal, name=name, value=value)
        event.spec = dict(signal=signal, value=value, direction=direction, terminal=terminal, action=action)
        self.events[name] = event
        return event

    def add_submodel(self, prefix, other, parameters=None):
        """Copy model ``other`` into this one under names "<prefix>/<name>" (its inputs, events and
        signals too), with ``parameters`` set on the copy ({"bodies.thigh.mass": 2.0}, as for
        with_parameters); join it with add_joint / add_constraint. The ground is shared and this
        model's gravity applies (modeling/submodel.py)."""
        from .submodel import add_submodel
        add_submodel(self, prefix, other, parameters)

    def add_link(self, link):
        """An I/O link (``ms.UDPLink``, modeling/links) that exchanges signals and inputs with another program or
        device at every step of every run (SPEC C13); its inputs must be the model's."""
        from .links import Link
        if not isinstance(link, Link):
            raise ModelError(f"add_link(): give a link such as ms.UDPLink(...), got {type(link).__name__}")
        if link.name in self.links:
            raise ModelError(f"duplicate link name '{link.name}'")
        link.check(self)
        self.links[link.name] = link
        return link

    def add_input(self, name, default=0.0):
        """Declare a named input; a joint_force may use it as ``value=name``."""
        self._new_name(name, "input")
        self._set_input(name, default)
        return name

    def set_input_default(self, name, default):
        """Change the default value of input ``name`` (the value a run uses when given none for it)."""
        if name not in self.inputs:
            raise ModelError(f"unknown input {name!r} (inputs: {', '.join(self.inputs) or 'none'})")
        self._set_input(name, default)

    def _set_input(self, name, default):
        with _item(f"input '{name}'"):
            self.inputs = frozen({**self.inputs, name: float(default)})
        self._compiled = None

    # ---------------------------------------------------------------- changing
    def _register(self, item, spec):
        """Add a built body, joint, force, constraint or driver, with the arguments that built it."""
        getattr(self, item._section)[item.name] = item
        if spec is not None:            # kept frozen, so that the caller's lists cannot change it later
            self.specs[item._section][item.name] = frozen(spec)
        item._model, self._compiled = self, None
        return item

    def _change(self, item, attr, value):
        """Set argument ``attr`` of an added item: rebuild the model from its arguments with the new
        value (checking it as add_* does), or raise ModelError and leave the model as it was."""
        specs = self._specs_copy()
        specs[item._section][item.name][attr] = value
        if attr == "frames":        # the new frames are all the body's frames, those of add_frame included
            specs["frames"] = [s for s in specs.get("frames", []) if s["body"] != item.name]
        try:
            self._rebuild(specs)
        except ModelError as exc:
            what = f"{item._noun} '{item.name}'"
            if str(exc).startswith(what) and attr in str(exc):
                raise
            raise ModelError(f"{what}: cannot set {attr} to {value!r}: {exc}") from None

    def _specs_copy(self):
        """The recorded add_* arguments as plain, changeable lists and dicts."""
        return {section: [dict(s) for s in table] if isinstance(table, list) else
                {name: dict(s) for name, s in table.items()} for section, table in self.specs.items()}

    def _replay(self, specs, gravity=None, inputs=None):
        """A new Model built by add_* from ``specs`` (with this model's inputs and gravity unless given)."""
        new = Model(self.name, self.gravity if gravity is None else gravity)
        for name, default in (self.inputs if inputs is None else inputs).items():
            new.add_input(name, default)
        for name, s in specs["bodies"].items():
            new.add_body(name, **s)
        for s in specs.get("frames", []):
            new.add_frame(**s)
        for section, add in (("joints", new.add_joint), ("constraints", new.add_constraint), ("forces", new.add_force),
                             ("contacts", new.add_contact)):
            for name, s in specs.get(section, {}).items():
                add(name, **s)
        for s in specs["drivers"].values():
            new.add_driver(**s)
        return new

    def copy(self):
        """An independent copy: the same arguments replayed through add_* (events and the simulation
        defaults shared by value)."""
        new = self._replay(self.specs)
        new.events, new.simulation, new.links = dict(self.events), dict(self.simulation), dict(self.links)
        return new

    def with_parameters(self, values):
        """A copy with parameters set: ``{"bodies.rod.mass": 2.0, "joints.j1.q0": 0.3, "inputs.u": 1.0,
        "bodies.rod.com[0]": 0.4}`` (modeling/parameters.py); this model stays as it is."""
        from .parameters import with_parameters
        return with_parameters(self, values)

    def __getstate__(self):
        """Pickled without its compiled form, which is made again where the copy runs (a process of a sweep,
        a Dask worker)."""
        return {**vars(self), "_compiled_model": None}

    def _rebuild(self, specs):
        """Build the model anew from ``specs`` (as add_* would) and move the new items into the
        objects add_* returned, so that they stay valid."""
        new = self._replay(specs)
        for section in ("bodies", "joints", "constraints", "forces", "drivers", "contacts"):
            for name, item in getattr(new, section).items():
                old = vars(getattr(self, section)[name])
                old.clear()
                old.update(vars(item), _model=self)
        self.specs, self._compiled = new.specs, None

    # ---------------------------------------------------------------- lookup
    def body(self, name, what="reference"):
        if not isinstance(name, str) or name not in self.bodies:
            raise ModelError(f"{what}: unknown body {name!r} (bodies: {', '.join(self.bodies)})")
        return self.bodies[name]

    def joint(self, name, what="reference"):
        if not isinstance(name, str) or name not in self.joints:
            raise ModelError(f"{what}: unknown joint {name!r} (joints: {', '.join(self.joints) or 'none'})")
        return self.joints[name]

    def item(self, name, what="reference"):
        """(section, item) of the body, joint, force element, constraint or contact ``name``; where a body and a
        joint (or an element) share it, "<section>.<name>" says which ("joints.gripper", SPEC C15)."""
        section, key = find_item({s: getattr(self, s) for s in ("bodies", "joints", *ELEMENTS)}, name, what)
        return section, getattr(self, section)[key]

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
        from ..results.state import State
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

    def to_fmu(self, path, outputs=None, **options):
        """Write this model as an FMI 2.0 co-simulation FMU (pythonfmu): its inputs, parameters and the entries of
        the ``outputs`` signals (default: all) as FMI variables; each doStep goes on with one run, with the model
        file's simulation settings and ``options`` over them (io/fmu.py)."""
        from ..io.fmu import to_fmu
        return to_fmu(self, path, outputs, **options)

    def to_urdf(self, path):
        """Write the model as URDF (io/urdf_export.py); ModelError for what URDF cannot hold."""
        from ..io.urdf_export import write_urdf
        write_urdf(self, path)

    def __repr__(self):
        return (f"Model({self.name!r}: {len(self.bodies) - 1} bodies, {len(self.joints)} joints, "
                f"{len(self.constraints)} constraints, {len(self.drivers)} drivers, {len(self.forces)} forces, "
                f"{len(self.contacts)} contacts, "
                f"{len(self.inputs)} inputs)")

    def _repr_html_(self):
        """What a notebook shows: the topology, elements and inputs (viz/notebook.py)."""
        from ..viz.notebook import model_html
        return model_html(self)
