"""Linearization on the constraint manifold (SPEC C7, ``m.linearize``; Wood & Kennedy 2003, §4).

The state is x = [dq; dv]: dq are tangent coordinates paired with v (R, P, H coordinates: their
increments; a spherical primitive: the rotation vector in M axes, q = q_bar (x) exp(dq)). The
coordinates are split into independent and dependent sets by QR rank tests on the constraint
Jacobian G (the user's choice first, then actuated joints, then tree order), and every column is
a perturbation that satisfies the constraints to first order (eqs. 47–48):

    dq = T dq_i,  T = [I; -G_d^+ G_i],    dv = T dv_i + W dq_i,  W = [0; -G_d^+ d(G v)/dq T],

so the columns of the dependent states are zero (not reachable) when minimal=False, and
minimal=True keeps the 2 DOF independent states only. The accelerations and outputs are
differentiated numerically by central differences; with ``adaptive`` on a ladder of halving
steps with Richardson extrapolation, entry by entry at the step where successive estimates agree
best (the trade-off between truncation and rounding error of §4).
"""
import json
from collections import namedtuple
from pathlib import Path

import numpy as np

from ..assembly.redundancy import analyse, numerical_rank
from ..dynamics.api import constraint_values
from ..dynamics.kernels import normalize_quaternions
from ..dynamics.projection import integrate_coordinates
from ..errors import MechsimError, ModelError, keyword
from ..modeling.names import split_index
from ..modeling.primitives import PRIMITIVES
from ..results.result import Mode, Result
from ..results.state import State
from ..simulation.options import CHECKS, is_number

LADDER = 6          # steps h0, h0/2, ..., h0/32 in the adaptive differences
OFF_MANIFOLD = 1e-6  # largest constraint error (position or velocity) of a state to linearize about


class Linearization:
    """dx/dt = A x + B u, y = C x + D u about ``state``, with the names of x, u and y."""

    def __init__(self, A, B, C, D, state_names, input_names, output_names, independent, state):
        self.A, self.B, self.C, self.D = A, B, C, D
        self.state_names, self.input_names, self.output_names = state_names, input_names, output_names
        self.independent, self.state = independent, state

    def to_control(self):
        """The python-control StateSpace (extra ``control``), its signals named as here with '.' -> '_'
        (python-control reserves '.'): "j1.q" is "j1_q"."""
        try:
            import control
        except ImportError:
            raise MechsimError("to_control() needs python-control: pip install 'mechsim[control]'") from None
        names = lambda items: [name.replace(".", "_") for name in items]
        return control.ss(self.A, self.B, self.C, self.D, states=names(self.state_names),
                          inputs=names(self.input_names), outputs=names(self.output_names))

    def poles(self):
        """Eigenvalues of A."""
        return np.linalg.eigvals(self.A)

    def save(self, path):
        """Write A, B, C, D with the names and the operating point: .json (one matrix row per line), .npz,
        or .csv (the block matrix [[A, B], [C, D]], rows named by states then outputs)."""
        path = str(path)
        names = {"state_names": list(self.state_names), "input_names": list(self.input_names),
                 "output_names": list(self.output_names), "independent": list(self.independent)}
        if path.endswith(".json"):
            matrices = {key: np.asarray(getattr(self, key), dtype=float).tolist() for key in "ABCD"}
            point = self.state.operating_point()
            data = json.dumps({**{key: f"@{key}@" for key in matrices}, **names, "operating_point": point}, indent=1)
            for key, rows in matrices.items():        # one matrix row per line
                data = data.replace(f'"@{key}@"', "[" + ",".join(f"\n  {json.dumps(row)}" for row in rows) + "\n ]")
            Path(path).write_text(data + "\n")
        elif path.endswith(".npz"):
            arrays = {key: np.asarray(getattr(self, key), dtype=float) for key in "ABCD"}
            arrays.update({key: np.array(value, dtype=str) for key, value in names.items()})
            np.savez_compressed(path, **arrays)
        elif path.endswith(".csv"):
            block = np.block([[self.A, self.B], [self.C, self.D]])
            rows = list(self.state_names) + list(self.output_names)
            header = ",".join(["row", *self.state_names, *self.input_names])
            lines = [header] + [",".join([name, *(f"{x:.17g}" for x in row)]) for name, row in zip(rows, block)]
            Path(path).write_text("\n".join(lines) + "\n")
        else:
            raise MechsimError(f"cannot write {path}: use a file name ending in .json, .npz or .csv")

    def __repr__(self):
        return (f"Linearization({len(self.state_names)} states, {len(self.input_names)} inputs, "
                f"{len(self.output_names)} outputs, independent: {', '.join(self.independent) or 'none'})")


def linearize(model, state=None, inputs=None, outputs=None, minimal=False, independent=None, perturbation=1e-3,
              adaptive=True):
    """Linearization about ``state`` (a State; None: m.assemble(); a Result: one per sample, with the
    independent coordinates of the first kept throughout)."""
    cm = model.compile()
    if not is_number(perturbation, positive=True):
        raise ModelError(f"linearize(): perturbation must be a finite positive number, got {perturbation!r}")
    points = _operating_points(model, cm, state)
    inputs = _Inputs(model, cm, _names(inputs, "inputs") or [])
    outputs = _Outputs(model, cm, _names(outputs, "outputs"))
    independent = _names(independent, "independent")
    chosen = None
    linearizations = []
    for point in points:
        lin = _Linearizer(cm, point, inputs, outputs, float(perturbation), adaptive)
        chosen = lin.partition(independent if chosen is None else chosen, keep=chosen is not None)
        linearizations.append(lin.build(minimal))
    return linearizations if isinstance(state, Result) else linearizations[0]


OperatingPoint = namedtuple("OperatingPoint", "q v t u tau values")
OperatingPoint.__doc__ = """A state to linearize about: q, v at t, the force values u, the generalized forces tau and
the input values (None: a sample of a Result)."""


def _operating_points(model, cm, state):
    """The OperatingPoints to linearize about."""
    if state is None:
        state = model.assemble()
    if isinstance(state, Result):
        return [OperatingPoint(state.q[k], state.v[k], state.t[k], state.u_force[k], state.tau[k], None)
                for k in range(len(state.t))]
    if not isinstance(state, State):
        raise MechsimError("linearize(): state must be an ms.State (from m.assemble or m.trim), a Result or None")
    q, v = np.asarray(state.q, dtype=float), np.asarray(state.v, dtype=float)
    if q.shape != (cm.nq,) or v.shape != (cm.nv,):
        raise MechsimError(f"linearize(): the state has {q.size} positions and {v.size} velocities; "
                           f"'{model.name}' has {cm.nq} and {cm.nv}")
    values = {**model.inputs, **(getattr(state, "inputs", None) or {})}
    return [OperatingPoint(q, v, state.t, cm.force_values(state.t, values).copy(), np.zeros(cm.nv), values)]


def tangent_names(cm):
    """Names of the tangent position coordinates, paired with v: "j.q" for "j.v", "j.q[i]" for "j.v[i]"."""
    names = []
    for name in cm.v_names:
        joint, _, kind = name.rpartition(".")
        names.append(f"{joint}.{kind.replace('v', 'q', 1)}")
    return names


def _names(names, what):
    """A names argument (None, one name or a list of names) as None or a list."""
    if names is None or isinstance(names, str):
        return names if names is None else [names]
    if not CHECKS["names"][0](names):
        raise ModelError(f"linearize(): {what} must be a list of names, got {names!r}")
    return names


class _Inputs:
    """Input columns: a model input (every force slot it feeds) or a joint's generalized force."""

    def __init__(self, model, cm, names):
        self.names, self.slots, self.taus = [], [], []
        for name in names:
            if name in model.inputs:
                self._add(name, [slot for slot, src in cm.sources if src.input == name], [])
                continue
            base, k = split_index(name)
            section, joint, kind = cm.signals.get(base) or (None, None, None)
            if section == "joints" and kind == "force":
                vs = list(range(cm.joint_v[joint].start, cm.joint_v[joint].stop))
                if k is not None:
                    self._add(name, [], [vs[k]]) if k < len(vs) else self._unknown(model, name)
                elif len(vs) == 1:
                    self._add(name, [], vs)
                else:
                    for k, vi in enumerate(vs):
                        self._add(f"{joint}.force[{k}]", [], [vi])
                continue
            self._unknown(model, name)

    def _add(self, name, slots, taus):
        self.names.append(name)
        self.slots.append(slots)
        self.taus.append(taus)

    @staticmethod
    def _unknown(model, name):
        raise MechsimError(f"linearize(): unknown input {name!r}; inputs are the model's inputs "
                           f"({', '.join(model.inputs) or 'none declared'}) or '<joint>.force' of a joint")


class _Outputs:
    """Output rows: (signal, flat index) of any signal of m.signals(); None: the states themselves."""

    def __init__(self, model, cm, names):
        self.states = names is None
        self.names, self.items = [], []
        if self.states:
            return
        probe = Result(cm, [0.0], cm.q0[None], cm.v0[None], cm.u_const[None])
        for name in names:
            base, k = split_index(name)
            if base not in cm.signals:
                raise MechsimError(f"linearize(): unknown output {name!r}; m.signals() lists the signal names")
            width = probe[base].reshape(1, -1).shape[1] if cm.nq else 0
            if k is not None:
                if not k < width:
                    raise MechsimError(f"linearize(): output {name!r}: {base} has {width} entries")
                self.names.append(name)
                self.items.append((base, k))
            else:
                self.names += [base] if width == 1 else [f"{base}[{k}]" for k in range(width)]
                self.items += [(base, k) for k in range(width)]

    def values(self, res):
        """(N, ny) output values of a Result."""
        return np.column_stack([res[s].reshape(len(res.t), -1)[:, k] for s, k in self.items]) if self.items \
            else np.zeros((len(res.t), 0))


class _Linearizer:
    def __init__(self, cm, point, inputs, outputs, perturbation, adaptive):
        self.cm, (self.q, self.v, t, self.u, self.tau, self.values) = cm, point
        self.t = float(t)
        self.inputs, self.outputs = inputs, outputs
        self.h0, self.adaptive = perturbation, adaptive
        self.G, self.active = np.zeros((0, cm.nv)), None
        if cm.n_rows:
            h, hd, self.G = constraint_values(cm, self.q, self.v, t)
            error = max(np.abs(h).max(), np.abs(hd).max())
            if error > OFF_MANIFOLD:
                raise MechsimError(f"linearize(): the state at t = {t:.6g} violates the constraints (max |g|, |G v - "
                                   f"f'| = {error:.3g}); linearize about a consistent state from m.assemble, m.trim "
                                   "or a simulation")
            self.active = analyse(cm, self.G).active      # the redundancy analysis here: the rows the dynamics keep

    # ------------------------------------------------------------ partition (eqs. 47-48)
    def partition(self, independent, keep):
        """Choose the independent velocity indices (names given first; ``keep``: exactly those)."""
        cm, G = self.cm, self.G
        rank = numerical_rank(G)[0] if G.size else 0
        dof = cm.nv - rank
        names = tangent_names(cm)
        wanted = _indices(cm, independent)
        if len(wanted) > dof:
            raise MechsimError(f"linearize(): {len(wanted)} independent coordinates named, but the mechanism has "
                               f"{dof} degree(s) of freedom")
        actuated = [cm.joint_v[j].start + k for j, pairs in cm.actuated.items() for k, _ in pairs]
        actuated += [vi for taus in self.inputs.taus for vi in taus]
        chosen = []
        for c in list(dict.fromkeys(wanted + actuated + list(range(cm.nv)))):
            if len(chosen) == dof:
                break
            rest = [k for k in range(cm.nv) if k not in chosen and k != c]
            if rank == 0 or numerical_rank(G[:, rest])[0] == rank:       # the rest still solve the constraints
                chosen.append(c)
            elif c in wanted:
                raise MechsimError(f"linearize(): '{names[c]}' cannot be independent"
                                   + (f" with {', '.join(names[k] for k in chosen)}" if chosen else "")
                                   + f" at t = {self.t:.6g}: the constraints and drivers determine it from the others; "
                                   "choose other independent coordinates")
        if keep and chosen != wanted:
            raise MechsimError(f"linearize(): the independent coordinates {', '.join(names[k] for k in wanted)} no "
                               f"longer determine the state at t = {self.t:.6g} (a singular configuration)")
        self.ind = np.array(chosen, dtype=int)
        self.dep = np.setdiff1d(np.arange(cm.nv), self.ind)
        self.names = names
        return [names[k] for k in chosen]

    def _extension(self):
        """T (nv x ni) and W (nv x ni) of the module docstring."""
        cm, G, ind, dep = self.cm, self.G, self.ind, self.dep
        T = np.zeros((cm.nv, ind.size))
        T[ind, np.arange(ind.size)] = 1.0
        W = np.zeros_like(T)
        if dep.size:
            Gd_pinv = np.linalg.pinv(G[:, dep])
            T[dep] = -Gd_pinv @ G[:, ind]
            if np.any(self.v) and ind.size:           # d(G v)/dq along T by central differences of G v - f'
                eps = 1e-6
                rate = lambda q: constraint_values(cm, q, self.v, self.t)[1]
                dGv = np.column_stack([rate(plus) - rate(minus) for plus, minus in
                                       zip(self._moved(eps * T), self._moved(-eps * T))]) / (2 * eps)
                W[dep] = -Gd_pinv @ dGv
        return T, W

    def _moved(self, dq):
        """q_bar (+) dq for every column of dq (nv, k) -> (k, nq)."""
        out = np.empty((dq.shape[1], self.cm.nq))
        for k in range(dq.shape[1]):
            out[k] = self.q
            integrate_coordinates(self.cm.node_i, out[k], np.ascontiguousarray(dq[:, k]))
            normalize_quaternions(self.cm.quat_q, out[k])
        return out

    # ------------------------------------------------------------ differences
    def _responses(self, dq, dv, du, dtau):
        """Accelerations and outputs (N, nv + ny) at the perturbed states (columns of the d* arrays)."""
        cm, n = self.cm, dq.shape[1]
        res = Result(cm, np.full(n, self.t), self._moved(dq), self.v[None] + dv.T, self.u[None] + du.T,
                     tau=self.tau[None] + dtau.T, mode=Mode(self.active))
        qdd = res._node_dynamics()[0]
        if not np.all(np.isfinite(qdd)):
            raise MechsimError(f"linearize(): the dynamics cannot be evaluated near the state at t = {self.t:.6g} "
                               "(singular configuration); try a smaller perturbation")
        return np.hstack([qdd, self.outputs.values(res)])

    def _derivatives(self, dq, dv, du, dtau, scale):
        """Central differences (adaptive: Richardson on a ladder) of the responses along each column."""
        k = dq.shape[1]
        steps = self.h0 * scale[None, :] * 0.5 ** np.arange(LADDER if self.adaptive else 1)[:, None]   # (L, k)
        D = []
        for h in steps:
            cols = [np.hstack([x * h, -x * h]) for x in (dq, dv, du, dtau)]
            f = self._responses(*cols)
            D.append(((f[:k] - f[k:]) / (2 * h[:, None])).T)
        if not self.adaptive:
            return D[0]
        D = np.array(D)
        R = (4 * D[1:] - D[:-1]) / 3                              # Richardson: O(h^4)
        err = np.abs(np.diff(R, axis=0))                           # agreement of successive estimates
        best = np.argmin(err, axis=0)
        return np.take_along_axis(R[1:], best[None], axis=0)[0]

    # ------------------------------------------------------------ matrices
    def build(self, minimal):
        cm, ind, nv = self.cm, self.ind, self.cm.nv
        ni, nu = ind.size, len(self.inputs.names)
        T, W = self._extension()
        dq = np.hstack([T, np.zeros_like(T)])                      # state columns [dq_i, dv_i]
        dv = np.hstack([W, T])
        scale = np.maximum(1.0, np.abs(np.concatenate([self._q_scale()[ind], self.v[ind]])))
        F_x = self._derivatives(dq, dv, np.zeros((cm.n_slots, 2 * ni)), np.zeros((nv, 2 * ni)), scale) if ni \
            else np.zeros((0, 0))
        F_x = F_x.reshape(nv + len(self.outputs.items), 2 * ni)
        du, dtau = np.zeros((cm.n_slots, nu)), np.zeros((nv, nu))
        for j, (slots, taus) in enumerate(zip(self.inputs.slots, self.inputs.taus)):
            du[slots, j], dtau[taus, j] = 1.0, 1.0
        u_scale = np.array([max(1.0, np.max(np.abs(self.u[s]), initial=0.0)) for s in self.inputs.slots])
        F_u = self._derivatives(np.zeros((nv, nu)), np.zeros((nv, nu)), du, dtau, u_scale) if nu else \
            np.zeros((nv + len(self.outputs.items), 0))
        kinematic = self._tangent_rates() @ np.vstack([dq, dv])   # d(dq)/dt along the columns, exactly
        Phi_x = np.vstack([kinematic, F_x[:nv]])                   # (2 nv, 2 ni)
        Phi_u = np.vstack([np.zeros((nv, nu)), F_u[:nv]])
        keep = np.concatenate([ind, nv + ind])

        def columns(M):
            """M's columns (the independent states) as the state vector asks: those only, or placed among
            every state's (the dependent ones zero)."""
            if minimal:
                return M
            full = np.zeros((M.shape[0], 2 * nv))
            full[:, keep] = M
            return full
        A, B = (Phi_x[keep], Phi_u[keep]) if minimal else (columns(Phi_x), Phi_u)
        state_names = [self.names[k] for k in ind] + [cm.v_names[k] for k in ind] if minimal \
            else self.names + list(cm.v_names)
        if self.outputs.states:
            C, D, output_names = np.eye(A.shape[0]), np.zeros((A.shape[0], nu)), list(state_names)
        else:
            C, D, output_names = columns(F_x[nv:]), F_u[nv:], list(self.outputs.names)
        state = State(cm, self.q, self.v, self.t, inputs=self.values)
        return Linearization(A, B, C, D, state_names, list(self.inputs.names), output_names,
                             [self.names[k] for k in ind], state)

    def _q_scale(self):
        """|q| per velocity coordinate (R, P, H, T coordinates; 0 for rotation vectors)."""
        out = np.zeros(self.cm.nv)
        for ptype, qi, vi in self.cm.node_i[:, 1:4]:
            if not PRIMITIVES[ptype].quaternion:
                n = PRIMITIVES[ptype].nv
                out[vi:vi + n] = np.abs(self.q[qi:qi + n])
        return out

    def _tangent_rates(self):
        """d(dq)/dt = [Omega, I] [dq; dv]: Omega = -[w]x on a spherical primitive's rotation vector
        (R = R_bar exp(dq): d(dq)/dt = dw - w_bar x dq to first order), 0 elsewhere."""
        nv = self.cm.nv
        Omega = np.zeros((nv, nv))
        for ptype, qi, vi in self.cm.node_i[:, 1:4]:
            if PRIMITIVES[ptype].quaternion:
                w = self.v[vi:vi + 3]
                Omega[vi:vi + 3, vi:vi + 3] = -np.array([[0, -w[2], w[1]], [w[2], 0, -w[0]], [-w[1], w[0], 0]])
        return np.hstack([Omega, np.eye(nv)])


def _indices(cm, names):
    """Velocity indices of joint or coordinate names ("j1", "j1.q", "j1.q[0]", "j1.v")."""
    from ..assembly.assemble import held_velocities
    if not names:
        return []
    names = [names] if isinstance(names, str) else list(names)
    tangent = dict(zip(tangent_names(cm), cm.v_names))
    return [int(k) for k in held_velocities(cm, [tangent.get(n, n) for n in names], cm.q0.copy(), cm.v0.copy(),
                                             f"linearize(): {keyword('independent')}")]
