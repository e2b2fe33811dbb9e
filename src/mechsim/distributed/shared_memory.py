"""The co-simulation's exchange through shared memory, in the subsystems' compiled loops (SPEC C12).

Local worker processes of ``ms.cosimulate`` (exchange at every stage) share a block of memory
(``SharedBlock``) instead of messages through the coordinator: at every evaluation of its right-hand side a
subsystem writes its interface data (coupling.py: a slot), publishes its exchange count, waits until every
subsystem has published the same count, and then computes the coupling forces itself from all the slots with
the same kernel and the same numbers as the others (coupling.coupling_forces): no coordinator and no Python
between stages. The run is an ordinary compiled run of the worker model whose problem (integrators/problem.py)
wraps the mechanics with the exchange (``CoupledSystem``), made by the run's I/O link ``SharedMemoryExchange``.

Slots come in two buffers, by the parity of the exchange count: a subsystem writes exchange n + 2 into the
buffer of n only after every subsystem has published n + 1, which each does after it has read n. Counts are
stored with release and read with acquire ordering, so that a count seen published means its slot is seen
written, on any CPU; each count has a cache line of its own. A waiting subsystem spins, yielding its CPU after
a while (more subsystems than cores), and stops when the block's abort flag is set: by a subsystem that failed,
or by the coordinator when a worker died.
"""
from collections import namedtuple
from multiprocessing.shared_memory import SharedMemory
from types import SimpleNamespace

import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.core import cgutils
from numba.extending import intrinsic

from ..integrators.explicit import all_finite
from ..integrators.problem import register_problem
from ..modeling.links.base import Link
from ..dynamics.kernels import kinematic_map
from ..simulation.problem import INLINED_IR, correct
from ..spatial.algebra import INLINE, JIT
from ..status import LOG_FULL, NON_FINITE, OK, OUT_OF_STEP, PARTNER_STOPPED
from .coupling import coupling_forces, interface, slot_length

LINE = 8                # int64 per cache line: each count on its own
ABORT, N, K_POINTS = 0, 1, 2   # flags[ABORT] != 0: every subsystem stops at its next exchange; the block's n and K
SPINS = 2000            # polls of the counts before each yield of the CPU


# ----------------------------------------------------------------------------- the block
class SharedBlock:
    """The shared memory of one co-simulation of n subsystems of up to K coupling points each: ``flags``
    (int64: ABORT, N and K on the first line, then subsystem s's exchange count at LINE (s + 1)) and ``slots``
    (2, n, slot_length(K)). ``SharedBlock(n, K)`` makes one (the coordinator: it owns and unlinks it);
    ``SharedBlock.attach(name)`` reads n and K from it (the workers)."""

    def __init__(self, n, K, name=None):
        flag_bytes = 8 * LINE * (n + 1)
        size = flag_bytes + 8 * 2 * n * slot_length(K)
        self.memory = SharedMemory(name=name, create=name is None, size=size if name is None else 0)
        self.flags = np.ndarray(LINE * (n + 1), dtype=np.int64, buffer=self.memory.buf)
        self.slots = np.ndarray((2, n, slot_length(K)), dtype=np.float64, buffer=self.memory.buf, offset=flag_bytes)
        if name is None:
            self.flags[:] = 0
            self.flags[N], self.flags[K_POINTS] = n, K
        self.n, self.K = n, K

    @classmethod
    def attach(cls, name):
        memory = SharedMemory(name=name)
        n, K = (int(x) for x in np.ndarray(3, dtype=np.int64, buffer=memory.buf)[[N, K_POINTS]])
        memory.close()
        return cls(n, K, name)

    @property
    def name(self):
        return self.memory.name

    def private_copy(self):
        """The block's arrays copied into this process's own memory, for what needs only their types."""
        return SimpleNamespace(flags=self.flags.copy(), slots=self.slots.copy(), n=self.n, K=self.K)

    def abort(self):
        self.flags[ABORT] = 1

    def close(self, unlink=False):
        del self.flags, self.slots          # no view may outlive the mapping
        self.memory.close()
        if unlink:
            self.memory.unlink()


# ----------------------------------------------------------------------------- ordered loads and stores
def _element_pointer(context, builder, signature, args):
    array = context.make_array(signature.args[0])(context, builder, args[0])
    return cgutils.get_item_pointer(context, builder, signature.args[0], array, [args[1]])


@intrinsic
def load_acquire(typingctx, flags, index):
    """flags[index] (int64) read with acquire ordering: what was stored before its release is seen after it."""
    def codegen(context, builder, signature, args):
        return builder.load_atomic(_element_pointer(context, builder, signature, args), ordering="acquire", align=8)
    return types.int64(flags, index), codegen


@intrinsic
def store_release(typingctx, flags, index, value):
    """flags[index] = value (int64) with release ordering: every store before it is seen by an acquiring load
    that sees it."""
    def codegen(context, builder, signature, args):
        builder.store_atomic(args[2], _element_pointer(context, builder, signature, args), ordering="release",
                             align=8)
        return context.get_dummy_value()
    return types.void(flags, index, value), codegen


@intrinsic
def yield_cpu(typingctx):
    """sched_yield(2): let another process run on this CPU (called by name: the compiled code stays cacheable)."""
    def codegen(context, builder, signature, args):
        function = cgutils.get_or_insert_function(builder.module, ir.FunctionType(ir.IntType(32), []), "sched_yield")
        builder.call(function, [])
        return context.get_dummy_value()
    return types.void(), codegen


@njit(**JIT)
def peers_reached(flags, n):
    """Wait until every subsystem has published exchange count n; False when the abort flag is set first."""
    spins = 0
    for s in range(flags.shape[0] // LINE - 1):
        while load_acquire(flags, LINE * (s + 1)) < n:
            if load_acquire(flags, ABORT) != 0:
                return False
            spins += 1
            if spins > SPINS:
                yield_cpu()
    return True


# ----------------------------------------------------------------------------- the exchange in the run
Exchange = namedtuple("Exchange", "flags slots me K first inputs count log_t log_f")
Exchange.__doc__ = """A subsystem's side of the block: its index ``me``, slot stride K, its first end among the
stacked ends, the force-value slots of its ends' force inputs (3 per end, x y z), and its counts (exchanges,
log entries) with the log of the forces on its ends of the last exchange at each time."""
CoupledSystem = namedtuple("CoupledSystem", "system probe coupling exchange")
CoupledSystem.__doc__ = "The problem of a subsystem's run: its mechanics (simulation/problem.py System) and the exchange."


# Inlined (as interface and coupling_forces): a call passing the probe's and the tables' arrays, hundreds of
# words, costs more than the exchange's own arithmetic (~0.5 us a stage of the split four-bar, measured).
@njit(**INLINE)
def exchange_forces(probe, ct, ex, u, t, y):
    """One exchange at (t, y) (module docstring): this subsystem's ends' coupling forces into the force values u,
    and logged. Returns OK or a failure status; a failure of its own sets the abort flag for the others."""
    n, logged = ex.count[0] + 1, ex.count[1]
    if logged == 0 or ex.log_t[logged - 1] != t:      # a new time: a new entry (else the last is replaced)
        logged += 1
    if logged > ex.log_t.shape[0]:
        store_release(ex.flags, ABORT, 1)
        return LOG_FULL
    ex.count[0], ex.count[1] = n, logged
    slots = ex.slots[n & 1]
    nq = probe.model.nq
    status = interface(probe.model, probe.data, probe.cw, t, y[:nq], y[nq:], probe.qdd, ex.K, slots[ex.me])
    if status == OK and not all_finite(slots[ex.me]):   # its own failure, not the others' to report
        status = NON_FINITE
    if status == OK:
        store_release(ex.flags, LINE * (ex.me + 1), n)
        if not peers_reached(ex.flags, n):
            return PARTNER_STOPPED
        for s in range(slots.shape[0]):
            if slots[s, 0] != t:
                status = OUT_OF_STEP
        if status == OK:
            status = coupling_forces(ct, slots, ex.K)
    if status != OK:
        store_release(ex.flags, ABORT, 1)
        return status
    ex.log_t[logged - 1] = t
    for i in range(ex.inputs.shape[0]):
        force = ct.F[ex.first + i // 3, i % 3]
        u[ex.inputs[i]] = force
        ex.log_f[logged - 1, i] = force
    return OK


@njit(**INLINED_IR)
def coupled_derivative(cs, t, y, dy):
    """dy/dt of the subsystem under the coupling forces F of this evaluation's exchange: q' = H(q) v and
    v' = qdd_free + M^-1 J^T F, from the exchange's own evaluation (coupling.interface: qdd_free, and
    X = M^-1 G^T with G = J the points' Jacobian), which is the worker model's forward dynamics with its
    coupling force inputs at F, without a second pass."""
    status = exchange_forces(cs.probe, cs.coupling, cs.exchange, cs.system.data.u, t, y)
    if status != OK:
        return status
    nq, X, F, first = cs.system.model.nq, cs.probe.cw.X, cs.coupling.F, cs.exchange.first
    kinematic_map(cs.system.model.node_i, y[:nq], y[nq:], dy[:nq])
    for j in range(cs.probe.qdd.shape[0]):
        s = cs.probe.qdd[j]
        for i in range(cs.exchange.inputs.shape[0]):
            s += X[j, i] * F[first + i // 3, i % 3]
        dy[nq + j] = s
    return OK


@njit(**INLINED_IR)
def coupled_correct(cs, t, y):
    return correct(cs.system, t, y)


register_problem(CoupledSystem, coupled_derivative, coupled_correct)


class SharedMemoryExchange(Link):
    """The I/O link of a local co-simulation worker (made by ms.cosimulate, not by users): compiled, it wraps the
    run's mechanics with the exchange (``problem``) instead of being sampled from Python. ``inputs``: the force
    inputs of the subsystem's coupling points (cosim.Endpoint.inputs, in order); ``interface``: their
    coupling.Interface; ``coupling``: coupling.CouplingTables; ``capacity``: times the log holds."""
    kind = "shared_memory"
    compiled = True

    def __init__(self, block, me, first, inputs, interface, coupling, capacity):
        super().__init__("coupling", inputs=inputs)
        self.block, self.me, self.first, self.interface, self.coupling = block, me, first, interface, coupling
        self.count = np.zeros(2, dtype=np.int64)
        self.log_t, self.log_f = np.zeros(capacity), np.zeros((capacity, len(self.inputs)))

    def problem(self, system, cm):
        """The CoupledSystem of ``system`` (the run's mechanics on the compiled worker model ``cm``); the force-value
        slots of the link's inputs in ``input_slots``."""
        slot_of = {name: slot for slot, name in cm.input_slots}
        self.input_slots = np.array([slot_of[name] for name in self.inputs], dtype=np.int64)
        exchange = Exchange(self.block.flags, self.block.slots, self.me, self.block.K, self.first, self.input_slots,
                            self.count, self.log_t, self.log_f)
        return CoupledSystem(system, self.interface.probe, self.coupling, exchange)

    def logged(self):
        """(times, forces on this subsystem's ends (n, 3 k)) of the last exchange at each time so far."""
        n = int(self.count[1])
        return self.log_t[:n], self.log_f[:n]

    def open(self):
        pass

    def close(self):
        pass

    def exchange(self, t, outputs):
        raise NotImplementedError("a compiled link exchanges inside the compiled run")

    def stats(self):
        return {"exchanges": int(self.count[0])}
