"""Co-simulation of open-chain subsystems in separate worker processes (SPEC §3 ``ms.cosimulate``, C12).

Khan, Tang & Krovi (2006) compose a closed chain from open subsystems and integrate each on its
own processor, coupled at the cut (their §5, the four-bar split into a 2-DOF and a 1-DOF chain):

- compliance (Method A, their eqs. 10 and 22): the multipliers are virtual spring–damper forces on
  the coupling violations, lambda = K C + D C';
- projection (Method B, eqs. 11–17 and 24–27): the coupling forces keep the constraints, with
  Baumgarte's stabilization. Here they come from the subsystems' reduced interface dynamics: each
  subsystem i reports, at its coupling points, the positions x, velocities x', the accelerations
  a_free it would have without coupling forces and its interface compliance W_i = J_i M_i^-1 J_i^T
  (3x3 blocks per pair of its points); the coordinator solves the Schur complement
  Phi lambda = -(C''_free + 2 sigma C' + sigma^2 C), Phi = sum_i G_i W_i G_i^T (the Lambda = G M^-1 G^T
  of Wood & Kennedy 2003, eq. 10, assembled from its subsystem blocks; sigma from eq. 11 applied
  twice, critically damped), and sends each subsystem the forces at its points.

The exchange happens at every stage of the subsystems' fixed-step Runge–Kutta method
(``exchange="stage"``: each processor evaluates its own equations with the coupling forces of the
current stage state, the distributed right-hand side of their Figs. 2 and 3) or once per macro step
h, the coupling forces held over the step (``exchange="step"``), Jacobi (all subsystems from the
states at t_n) or Gauss–Seidel (subsystem k from the states of the subsystems before it at t_n+1).

Each subsystem runs as an ordinary ``m.simulate`` of its model with a body force per coupling point
(inputs "<coupling>_<end>_f[xyz]"); its Result therefore has every signal with the coupling forces in it.
Workers are local processes or tasks on a Dask cluster; they connect back to the coordinator
(multiprocessing.connection, authenticated), which starts them and gathers their results. The exchange
itself (coupling.py: the interface data and the coupling forces, compiled) goes

- through shared memory between local workers exchanging at every stage, inside their compiled runs
  (shared_memory.py: each subsystem computes the forces itself; no Python between stages; the workers fork
  from the coordinator with their compiled runs loaded there, _load_worker_kernels), or
- through the coordinator over the connections otherwise (a cluster's workers on other machines, step
  exchange, Gauss-Seidel ordering, or a subsystem that needs Python during its run): the subsystem's
  controller sends its interface data and waits for its forces.
"""
import os
import pickle
import secrets
import socket
import sys
from collections import namedtuple
from functools import partial
from multiprocessing import get_context
from multiprocessing.connection import Client, Listener, wait

import numpy as np

from ..errors import ModelError, SimulationError, keyword
from ..modeling.model import Model
from ..results.result import CoupledResult, Outcome, Result
from ..simulation.options import refuse_unknown
from ..simulation.run_inputs import model_python_reasons
from ..simulation.simulate import checked_options, load_kernels
from ..status import MESSAGES, OK, PARTNER_STOPPED
from .coupling import Interface, coupling_forces, coupling_tables, slot_length
from .shared_memory import SharedBlock, SharedMemoryExchange

KINDS = ("point_coincident", "distance")
METHODS = ("projection", "compliance")
START_METHOD = "fork" if sys.platform.startswith("linux") else "spawn"     # of local worker processes
CONNECT_TIMEOUT = 120.0      # s for every subsystem to start and connect (a cluster without free slots)

Endpoint = namedtuple("Endpoint", "subsystem body point sign inputs")
Endpoint.__doc__ = """One end of a coupling: a point (body coordinates) of a body of a subsystem; sign +1 for
body_a, -1 for body_b (C = x_a - x_b); the names of the inputs of its body force in the worker model."""
Coupling = namedtuple("Coupling", "name kind ends length")


# ----------------------------------------------------------------------------- the plan
def couplings_of(subsystems, couplings):
    """Coupling tuples from the user's (name, kind, arguments) with "<subsystem>/<body>" names."""
    out, names = [], set()
    for entry in couplings:
        if not (isinstance(entry, (list, tuple)) and len(entry) == 3 and isinstance(entry[2], dict)):
            raise ModelError(f"cosimulate(): a coupling is (name, kind, arguments), got {entry!r}")
        name, kind, args = entry
        what = f"cosimulate(): coupling {name!r}"
        if not isinstance(name, str) or not name or any(c in name for c in "./[] "):
            raise ModelError(f"{what}: give it a name without '.', '/', '[', ']' or spaces")
        if name in names:
            raise ModelError(f"{what}: the name is used twice")
        names.add(name)
        if kind not in KINDS:
            raise ModelError(f"{what}: kind {kind!r} is not one of {', '.join(KINDS)}")
        allowed = {"body_a", "point_a", "body_b", "point_b"} | ({"length"} if kind == "distance" else set())
        unknown = set(args) - allowed
        if unknown:
            raise ModelError(f"{what}: unknown argument(s) {sorted(unknown)}; it takes {sorted(allowed)}")
        ends = [_endpoint(subsystems, name, args, side, sign, what) for side, sign in (("a", 1.0), ("b", -1.0))]
        if ends[0].subsystem == ends[1].subsystem:
            raise ModelError(f"{what}: both ends are in subsystem '{ends[0].subsystem}'; join them with a constraint "
                             "inside that subsystem")
        length = None
        if kind == "distance":
            length = args.get("length")
            if not isinstance(length, (int, float)) or not length > 0:
                raise ModelError(f"{what}: distance needs length= a positive number, got {length!r}")
        out.append(Coupling(name, kind, tuple(ends), None if length is None else float(length)))
    if not out:
        raise ModelError("cosimulate(): give at least one coupling")
    return out


def _endpoint(subsystems, name, args, side, sign, what):
    key = f"body_{side}"
    full = args.get(key)
    sub, _, body = full.partition("/") if isinstance(full, str) else ("", "", "")
    if sub not in subsystems or not body:
        raise ModelError(f"{what}: {key} must be '<subsystem>/<body>' with a subsystem of "
                         f"{', '.join(subsystems)}, got {full!r}")
    if body not in subsystems[sub].bodies or body == "ground":
        raise ModelError(f"{what}: subsystem '{sub}' has no moving body {body!r} (bodies: "
                         f"{', '.join(b for b in subsystems[sub].bodies if b != 'ground')})")
    point = np.asarray(args.get(f"point_{side}", (0.0, 0.0, 0.0)), dtype=float)
    if point.shape != (3,) or not np.all(np.isfinite(point)):
        raise ModelError(f"{what}: point_{side} must be 3 finite numbers")
    inputs = tuple(f"{name}_{side}_f{axis}" for axis in "xyz")
    return Endpoint(sub, body, tuple(point), sign, inputs)


def worker_model(model, ends):
    """A subsystem's model with a world-axes body force at each of its coupling points, set by inputs."""
    m = model.copy()
    for end in ends:
        for name in end.inputs:
            m.add_input(name, 0.0)
        m.add_force(end.inputs[0][:-3], "body_force", body=end.body, point=end.point, force=end.inputs)
    return m


# ----------------------------------------------------------------------------- the worker
Task = namedtuple("Task", "name index model ends K coupling options exchange address authkey block")
Task.__doc__ = """A subsystem's run: its index in the subsystems' order, worker model and coupling points, the slot
stride K and coupling.CouplingTables, simulate's options, the exchange, where the coordinator listens, and the
shared block's name (None: the exchange goes through the coordinator)."""


# Messages: a tag byte, then raw float64s for the exchange of every stage (pickling them would cost more
# than the rest of the exchange), or a pickled tuple for the rest (hello, done, failed, stop).
STAGE, FORCES, OBJECT = b"S", b"F", b"P"


def send_numbers(connection, tag, *arrays):
    connection.send_bytes(tag + np.concatenate([np.ravel(a) for a in arrays]).tobytes())


def send_object(connection, message):
    connection.send_bytes(OBJECT + pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL))


def receive(connection):
    """(tag, float64 array or unpickled tuple)."""
    data = connection.recv_bytes()
    tag, body = data[:1], data[1:]
    return (tag, pickle.loads(body)) if tag == OBJECT else (tag, np.frombuffer(body))


def serve(task):
    """A subsystem's run: connect, simulate with the exchange (shared memory or the connection), send the
    result with the times and forces of its exchanges."""
    connection = Client(task.address, authkey=task.authkey)
    try:
        send_object(connection, ("hello", task.name, os.getpid()))
        run = _shared_memory_run if task.block else _connection_run
        try:
            send_object(connection, ("done", run(task, connection)))
        except SimulationError as exc:
            send_object(connection, ("failed", str(exc), exc.partial))
    finally:
        connection.close()


def _connection_run(task, connection):
    """The run with a controller that sends the interface data of every exchange and applies the forces the
    coordinator answers (their record is the coordinator's)."""
    interface, slot = Interface(task.model, task.ends, task.K), np.zeros(slot_length(task.K))
    cm = task.model.compile()
    names = [name for end in task.ends for name in end.inputs]
    moving = [joint for joint, block in cm.joint_v.items() if block.stop > block.start]

    def exchange(t, outputs):
        q, v = np.empty(cm.nq), np.empty(cm.nv)
        for joint in moving:                       # the controller's default outputs: .q and .v of these
            q[cm.joint_q[joint]], v[cm.joint_v[joint]] = outputs[f"{joint}.q"], outputs[f"{joint}.v"]
        send_numbers(connection, STAGE, interface(t, q, v, slot))
        tag, reply = receive(connection)
        if tag == OBJECT:
            raise CouplingStopped(reply[1])
        return dict(zip(names, reply))

    options = dict(task.options, controller=exchange, progress=False)
    if task.exchange == "step":
        options["sample_time"] = options["h"]
    try:
        return _arrays(task.model.simulate(**options))
    except SimulationError as exc:
        exc.partial = None if exc.partial is None else _arrays(exc.partial)
        raise


def _shared_memory_run(task, connection):
    """The compiled run exchanging through the shared block (shared_memory.py); its force inputs are recorded
    from the log of its exchanges."""
    block = SharedBlock.attach(task.block)
    link = _shared_memory_link(task, block)
    options = dict(task.options, links=[link], progress=False)
    try:
        return _arrays(task.model.simulate(**options), link)
    except SimulationError as exc:
        block.abort()
        exc.partial = None if exc.partial is None else _arrays(exc.partial, link)
        raise


def _shared_memory_link(task, block):
    """The I/O link of a subsystem's run exchanging through ``block`` (shared_memory.SharedMemoryExchange)."""
    first = int(np.searchsorted(task.coupling.end_of, task.index))       # its ends come together, in order
    steps = int(np.ceil(float(task.options["t_end"]) / float(task.options["h"]))) + len(task.model.compile().breakpoints)
    return SharedMemoryExchange(block, task.index, first, [name for end in task.ends for name in end.inputs],
                                Interface(task.model, task.ends, task.K), task.coupling, 2 * steps + 32)  # RK4: 2 times a step


def _load_worker_kernels(tasks, block):
    """The compiled kernels of the workers' runs through ``block`` loaded into this process before the workers fork
    from it (simulate.load_kernels, on a private copy of the block: only its types matter): else each worker loads
    them from numba's cache at every call (~0.4 s of the split four-bar's wall time, bench/cosim.py)."""
    for task in tasks:
        load_kernels(task.model, **dict(task.options, links=[_shared_memory_link(task, block.private_copy())],
                                        progress=False))


class CouplingStopped(Exception):
    """The coordinator ended the run (another subsystem failed); simulate turns it into a
    SimulationError carrying the partial Result, as for any failing controller."""


def _arrays(result, link=None):
    """What a worker sends of its Result; with a shared-memory ``link``, its force inputs are the forces of the
    last exchange at each output time (interpolated between), and the times and forces of every exchange."""
    arrays = dict(t=result.t, q=result.q, v=result.v, u_force=result.u_force, tau=result.tau,
                  outcome=Outcome(result.success, result.message, result.events, result.stats))
    if link is not None:
        times, forces = link.logged()
        if len(times) and link.inputs:
            arrays["u_force"] = result.u_force.copy()
            arrays["u_force"][:, link.input_slots] = held_at(times, forces, result.t)
        arrays["exchanges"] = (times.copy(), forces.copy())
    return arrays


def held_at(times, values, t):
    """values (n, m) of exchanges at ``times`` (in order, several at one time) at the times t: the last exchange
    at each time, linearly interpolated between."""
    last = len(times) - 1 - np.unique(times[::-1], return_index=True)[1]
    return np.column_stack([np.interp(t, times[last], values[last, k]) for k in range(values.shape[1])])


# ----------------------------------------------------------------------------- the coordinator
class Coupler:
    """The coordinator's side of the exchange through the connections: the coupling forces from the slots the
    subsystems send (coupling.coupling_forces), and their record."""

    def __init__(self, couplings, order, method, sigma, stiffness, damping):
        self.couplings, self.order = couplings, order
        self.tables = coupling_tables(couplings, order, method, sigma, stiffness, damping)
        self.K = int(np.bincount(self.tables.end_of, minlength=len(order)).max())
        self.first = dict(zip(order, np.searchsorted(self.tables.end_of, np.arange(len(order)))))
        self.count = dict(zip(order, np.bincount(self.tables.end_of, minlength=len(order))))
        self.record = {c.name: [] for c in couplings}     # (t, force on body_b)

    def forces(self, t, slots):
        """World forces at each subsystem's coupling points {subsystem: (k, 3)} from their slots {subsystem: slot},
        or None when the coupling equations cannot be solved."""
        ct = self.tables
        if coupling_forces(ct, np.stack([slots[s] for s in self.order]), self.K) != OK:
            return None
        F = ct.F.copy()
        for c, (kind, a, b, row) in zip(self.couplings, ct.plan):
            self.record[c.name].append((t, F[b]))
        return {s: F[self.first[s]:self.first[s] + self.count[s]] for s in self.order}


def coupled_model(subsystems, plan):
    """The whole machine as one model: the subsystems as submodels "<name>/..." joined by the couplings
    as constraints (the monolithic reference of a co-simulation)."""
    first = next(iter(subsystems.values()))
    whole = Model("+".join(subsystems), gravity=first.gravity)
    for name, model in subsystems.items():
        whole.add_submodel(name, model)
    for c in plan:
        a, b = c.ends
        whole.add_constraint(c.name, c.kind, body_a=f"{a.subsystem}/{a.body}", point_a=a.point,
                             body_b=f"{b.subsystem}/{b.body}", point_b=b.point,
                             **({} if c.length is None else {"length": c.length}))
    return whole


def assembled(subsystems, plan):
    """The subsystems with q0 and v0 moved onto the couplings (the whole machine assembled as m.simulate
    does before a run)."""
    state = coupled_model(subsystems, plan).assemble()
    return {name: model.with_parameters({f"joints.{j}.{k}0": state[f"{name}/{j}.{k}"] for j in model.compile().joint_q
                                         for k in ("q", "v") if model.joints[j].nv})
            for name, model in subsystems.items()}


CosimOptions = namedtuple("CosimOptions",
                          "baumgarte stiffness damping exchange ordering transport assemble h t_end t_eval solver "
                          "realtime",
                          defaults=(10.0, None, 0.0, "stage", "jacobi", "auto", True, None, None, None, "RK4", False))
CosimOptions.__doc__ = """cosimulate's keyword options with their defaults: the coupling's (baumgarte, stiffness, damping,
exchange, ordering, transport: the module docstring and TRANSPORTS), whether the start is assembled onto the
couplings, and the subsystems' runs (RUN_OPTIONS)."""
TRANSPORTS = ("auto", "shared_memory", "connections")   # auto: shared memory wherever it can (_shared_memory_refused)
RUN_OPTIONS = ("h", "t_end", "t_eval", "solver", "realtime")   # simulate's (simulation/options.py), checked there;
# each subsystem paced to the wall clock (realtime) holds the others, which wait for its coupling quantities


def cosimulate(subsystems, couplings, method="projection", workers=None, **options):
    """Co-simulate open-chain ``subsystems`` ({name: Model}) joined by ``couplings`` [(name, kind,
    arguments with "<subsystem>/<body>" names)], each subsystem in its own worker process (local, or
    a task on the Dask cluster of the Client ``workers``). Returns a Result whose signals are
    "<subsystem>/<signal>" of every subsystem, "<coupling>.violation" (C = x_a - x_b; ``|d| - length``)
    and "<coupling>.force" (the world force on body_b; body_a gets its opposite). See the module
    docstring for the methods (projection with ``baumgarte`` sigma; compliance with ``stiffness`` k and
    ``damping``), ``exchange`` ("stage" | "step") and ``ordering`` ("jacobi" | "gauss-seidel", step
    exchange). ``h`` is the macro step, the subsystems' fixed step of ``solver`` (RK4 or Euler). A
    subsystem that fails or whose worker dies raises SimulationError naming it, with ``.partial``.
    ``assemble``: start from the subsystems' q0/v0 moved onto the couplings (default), or as given.
    The keyword ``options`` and their defaults: CosimOptions."""
    refuse_unknown("cosimulate()", options, CosimOptions._fields)
    settings = CosimOptions(**options)
    order = _check_subsystems(subsystems)
    plan = couplings_of(subsystems, couplings)
    _check_settings(method, settings)
    if settings.assemble:
        subsystems = assembled(subsystems, plan)
    ends = {s: [e for c in plan for e in c.ends if e.subsystem == s] for s in order}
    models = {s: worker_model(subsystems[s], ends[s]) for s in order}
    run_options = {name: getattr(settings, name) for name in RUN_OPTIONS}
    for s in order:
        try:
            checked_options(models[s], dict(run_options))
        except ModelError as exc:
            raise ModelError(f"cosimulate(): {exc.template}") from None
    coupler = Coupler(plan, order, method, float(settings.baumgarte), settings.stiffness, settings.damping)
    block = SharedBlock(len(order), coupler.K) if _uses_shared_memory(workers, settings, models) else None
    authkey = secrets.token_bytes(32)
    host = _host(workers)
    listener = _listener(host, authkey)
    launched, connections = [], {}
    try:
        tasks = [Task(s, k, models[s], tuple(ends[s]), coupler.K, coupler.tables, run_options, settings.exchange,
                      listener.address, authkey, block and block.name) for k, s in enumerate(order)]
        if block is not None and START_METHOD == "fork":
            _load_worker_kernels(tasks, block)
        launched = _launch(tasks, workers)
        connections = _accept(listener, order, connections)
        if block is None:
            parts, failure = _coordinate(connections, order, coupler, settings.ordering)
        else:
            parts, failure = _gather(connections, order, block)
    finally:
        listener.close()
        for connection in connections.values():      # a worker still waiting gets EOF and ends
            connection.close()
        _reap(launched)
        if block is not None:
            block.close(unlink=True)
    forces = _coupling_forces(plan, coupler, parts, shared=block is not None)
    result = _result(models, order, parts, forces, plan, failure)
    if failure is not None:
        raise SimulationError(failure, partial=result)
    return result


def _uses_shared_memory(workers, settings, models):
    """Whether the subsystems exchange through shared memory (the transport option); ModelError when it is asked
    for and not possible."""
    if settings.transport == "connections":
        return False
    refused = _shared_memory_refused(workers, settings, models)
    if refused and settings.transport == "shared_memory":
        raise ModelError(f"cosimulate(): {keyword('transport')}='shared_memory' is not possible: {refused}; use "
                         f"{keyword('transport', to_give=True)}='auto'")
    return not refused


def _shared_memory_refused(workers, settings, models):
    """Why the subsystems cannot exchange through shared memory (None: they can): it needs local workers,
    an exchange at every stage, and runs that stay compiled (no events, nothing evaluated in Python)."""
    if workers is not None:
        return "the workers are a cluster's"
    if settings.exchange != "stage":
        return f"exchange={settings.exchange!r} exchanges between steps, through the coordinator"
    for name, model in models.items():
        if model.events:
            return f"subsystem '{name}' has events (its run leaves compiled code)"
        reasons = model_python_reasons(model.compile())
        if reasons:
            return f"subsystem '{name}': {reasons[0]} (its run leaves compiled code)"
    return None


def _check_subsystems(subsystems):
    if not isinstance(subsystems, dict) or len(subsystems) < 2:
        raise ModelError("cosimulate(): give at least two subsystems as {name: ms.Model}")
    for name, model in subsystems.items():
        if not isinstance(name, str) or not name or any(c in name for c in "./[] "):
            raise ModelError(f"cosimulate(): subsystem name {name!r} is invalid: use a name without '.', '/', '[', ']' "
                             "or spaces")
        if not isinstance(model, Model):
            raise ModelError(f"cosimulate(): subsystem '{name}' must be an ms.Model, got {type(model).__name__}")
        if not model.compile().is_tree:
            raise ModelError(f"cosimulate(): subsystem '{name}' has loops, constraints or load-dependent friction; "
                             "a subsystem is an open chain (cut it into open chains joined by couplings)")
    return list(subsystems)


def _check_settings(method, settings):
    """ModelError naming the coupling setting (CosimOptions) that is out of its range."""
    baumgarte, stiffness, damping = settings.baumgarte, settings.stiffness, settings.damping
    exchange, ordering = settings.exchange, settings.ordering
    if method not in METHODS:
        raise ModelError(f"cosimulate(): {keyword('method')} {method!r} is not one of {', '.join(METHODS)}")
    if method == "compliance":
        if not isinstance(stiffness, (int, float)) or not stiffness > 0:
            stiffness_asked = keyword("stiffness", to_give=True)
            raise ModelError(f"cosimulate(): {keyword('method')} 'compliance' needs {stiffness_asked}= a positive "
                             f"number (N/m), got {stiffness!r}")
        if not isinstance(damping, (int, float)) or damping < 0:
            raise ModelError(f"cosimulate(): {keyword('damping')} must be a non-negative number, got {damping!r}")
    elif stiffness is not None:
        method_asked = keyword("method", to_give=True)
        raise ModelError(f"cosimulate(): {keyword('stiffness')} applies to {method_asked}='compliance' only")
    if not isinstance(baumgarte, (int, float)) or baumgarte < 0:
        raise ModelError(f"cosimulate(): {keyword('baumgarte')} must be a non-negative rate sigma [1/s], got "
                         f"{baumgarte!r}")
    if exchange not in ("stage", "step"):
        raise ModelError(f"cosimulate(): {keyword('exchange')} {exchange!r} is not 'stage' or 'step'")
    if settings.transport not in TRANSPORTS:
        raise ModelError(f"cosimulate(): {keyword('transport')} {settings.transport!r} is not one of "
                         f"{', '.join(TRANSPORTS)}")
    if ordering not in ("jacobi", "gauss-seidel"):
        raise ModelError(f"cosimulate(): {keyword('ordering')} {ordering!r} is not 'jacobi' or 'gauss-seidel'")
    if ordering == "gauss-seidel" and exchange != "step":
        raise ModelError(f"cosimulate(): {keyword('ordering')}='gauss-seidel' orders macro steps; use it with "
                         f"{keyword('exchange', to_give=True)}='step'")
    if settings.solver not in ("RK4", "Euler"):
        raise ModelError(f"cosimulate(): solver {settings.solver!r}: the subsystems advance in lockstep with a fixed "
                         "step; use RK4 or Euler")


def _host(client):
    """Where workers reach the coordinator: a Unix socket for local processes (half the latency of
    TCP), loopback for a local cluster (its workers processes on this machine, or threads of this
    process: an "inproc://" scheduler), else this machine's address on the route to the scheduler."""
    if client is None:
        return None
    protocol, _, address = client.scheduler.address.rpartition("://")
    scheduler = address.rsplit(":", 1)[0]
    if protocol == "inproc" or scheduler in ("127.0.0.1", "localhost", "::1"):
        return "127.0.0.1"
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        probe.connect((scheduler, 9))
        return probe.getsockname()[0]


def _listener(host, authkey):
    previous = socket.getdefaulttimeout()
    socket.setdefaulttimeout(CONNECT_TIMEOUT)       # the listening socket's accept() only
    try:
        return Listener(family="AF_UNIX", authkey=authkey) if host is None else Listener((host, 0), authkey=authkey)
    finally:
        socket.setdefaulttimeout(previous)


def _launch(tasks, client):
    """Start a worker per subsystem: local processes, or tasks on the Dask cluster."""
    if client is None:
        context = get_context(START_METHOD)
        processes = [context.Process(target=serve, args=(task,), daemon=True) for task in tasks]
        for process in processes:
            process.start()
        return processes
    return [client.submit(serve, task, pure=False) for task in tasks]


def _reap(launched):
    """Wait for the local worker processes to end (they do once their connection is closed)."""
    for worker in launched:
        if hasattr(worker, "join"):
            worker.join(timeout=10)
            if worker.is_alive():
                worker.terminate()


def _accept(listener, order, connections):
    """Fill ``connections`` {subsystem: connection} as the workers connect and say who they are."""
    try:
        while len(connections) < len(order):
            connection = listener.accept()
            _, (_, name, _) = receive(connection)
            connections[name] = connection
    except (socket.timeout, OSError, EOFError) as exc:
        missing = [s for s in order if s not in connections]
        raise SimulationError(f"cosimulate(): subsystem(s) {', '.join(missing)} did not start within "
                              f"{CONNECT_TIMEOUT:g} s ({exc}); a cluster needs a free worker slot per subsystem") from None
    return connections


def _coordinate(connections, order, coupler, ordering):
    """The exchange loop: receive from every subsystem that is not waiting for an answer, answer those
    whose coupling forces can be computed; returns ({subsystem: arrays}, failure message or None)."""
    parts, failure = {}, None
    pending = dict(connections)
    reported = {s: [] for s in order}    # (t, interface data) of each request, in order
    answered = {s: 0 for s in order}     # requests answered so far
    while pending:
        for s in [s for s in order if s in pending and answered[s] == len(reported[s])]:
            try:
                tag, message = receive(pending[s])
            except (EOFError, OSError):
                failure = failure or f"subsystem '{s}': its worker process died (killed, out of memory or crashed)"
                del pending[s]
                continue
            if tag == STAGE:
                reported[s].append((message[0], message))
            else:
                parts[s] = message[-1] if message[0] == "failed" else message[1]
                if message[0] == "failed" and failure is None:
                    failure = f"subsystem '{s}' failed: {message[1]}"
                del pending[s]
        waiting = [s for s in order if s in pending and answered[s] < len(reported[s])]
        if failure is not None:
            for s in waiting:
                send_object(pending[s], ("stop", failure))
                answered[s] += 1
            continue
        if not waiting:
            continue
        ready = (_gauss_seidel(waiting, pending, order, reported, answered) if ordering == "gauss-seidel"
                 else _jacobi(waiting, order, reported, answered))
        if isinstance(ready, str):
            failure = ready
            continue
        for s, data in ready:
            t = reported[s][answered[s]][0]
            forces = coupler.forces(t, data)
            if forces is None:
                failure = f"the coupling equations could not be solved at t = {t:.6g}"
                break
            send_numbers(pending[s], FORCES, forces[s])
            answered[s] += 1
    return parts, failure


def _gather(connections, order, block):
    """The results of subsystems exchanging through the shared ``block``: ({subsystem: arrays}, failure message
    or None). A worker that fails or dies sets the block's abort flag, which stops the others at their next
    exchange; the failure reported is the first that is not such a stop."""
    parts, failures, pending = {}, [], {connection: s for s, connection in connections.items()}
    while pending:
        for connection in wait(list(pending)):
            s = pending.pop(connection)
            try:
                _, message = receive(connection)
            except (EOFError, OSError):
                block.abort()
                failures.append(f"subsystem '{s}': its worker process died (killed, out of memory or crashed)")
                continue
            parts[s] = message[1] if message[0] == "done" else message[2]
            if message[0] == "failed":
                block.abort()
                failures.append(f"subsystem '{s}' failed: {message[1]}")
    stopped = MESSAGES[PARTNER_STOPPED]
    failures.sort(key=lambda failure: stopped in failure)
    return parts, (failures[0] if failures else None)


def _jacobi(waiting, order, reported, answered):
    """Every subsystem from the states at one time (all have asked: the loop received from each)."""
    ended = [s for s in order if s not in waiting]
    if ended:
        return f"subsystem(s) {', '.join(ended)} ended while the others went on: the subsystems are out of step"
    requests = {s: reported[s][answered[s]] for s in waiting}
    if len({t for t, _ in requests.values()}) != 1:
        return f"the subsystems are out of step (times {sorted({t for t, _ in requests.values()})})"
    data = {s: d for s, (_, d) in requests.items()}
    return [(s, data) for s in waiting]


def _gauss_seidel(waiting, pending, order, reported, answered):
    """Subsystem k at step n from the states of the subsystems before it at step n + 1 (their last one
    when they have ended) and of itself and the others at step n; those whose states are in."""
    ready = []
    for k, s in enumerate(order):
        if s not in waiting:
            continue
        n, data = answered[s], {}
        for j, other in enumerate(order):
            step = n + 1 if j < k else n
            if step < len(reported[other]):
                data[other] = reported[other][step][1]
            elif other not in pending and reported[other]:
                data[other] = reported[other][-1][1]
            else:
                break
        else:
            ready.append((s, data))
    return ready


def _violation(c, results, n):
    """Coupling c's violation at the first n samples of the subsystems' ``results``: C = x_a - x_b, or |d| - length."""
    ea, eb = c.ends
    d = results[ea.subsystem].point(ea.body, ea.point)[:n] - results[eb.subsystem].point(eb.body, eb.point)[:n]
    return d if c.kind == "point_coincident" else np.linalg.norm(d, axis=1) - c.length


def _coupling_forces(plan, coupler, parts, shared):
    """{coupling: (times, world forces on body_b)} of every exchange: the coordinator's record, or the logs of
    the subsystems holding body_b (shared memory)."""
    forces = {}
    for c, (_, _, b, _) in zip(plan, coupler.tables.plan):
        if not shared:
            record = coupler.record[c.name]
            forces[c.name] = (np.array([r[0] for r in record]), np.array([r[1] for r in record]).reshape(-1, 3))
        elif parts.get(c.ends[1].subsystem) is not None:
            times, logged = parts[c.ends[1].subsystem]["exchanges"]
            k = coupler.tables.end_slot[b]
            forces[c.name] = (times, logged[:, 3 * k:3 * k + 3])
    return forces


def _result(models, order, parts, forces, plan, failure):
    """The subsystems' Results (rebuilt here on the worker models) joined with the coupling signals."""
    results = {}
    for s in order:
        if parts.get(s) is None:
            continue
        a = parts[s]
        results[s] = Result(models[s].compile(), a["t"], a["q"], a["v"], a["u_force"], a["tau"], outcome=a["outcome"])
    n = min((len(r.t) for r in results.values()), default=0)
    t = next(iter(results.values())).t[:n] if results else np.zeros(0)
    coupling = {}
    for c in plan:
        if c.ends[0].subsystem in results and c.ends[1].subsystem in results:
            coupling[f"{c.name}.violation"] = partial(_violation, c, results, n)
        times, values = forces.get(c.name, (np.zeros(0), None))
        if len(times) and n:
            coupling[f"{c.name}.force"] = held_at(times, values, t)
    return CoupledResult(results, t, coupling, message=failure or "the subsystems reached t_end",
                         success=failure is None)
