"""Column layout of the flat arrays a CompiledModel hands to the kernels.

Every joint primitive is one tree node (Featherstone's "body" i with parent lambda(i));
intermediate primitives of a multi-primitive joint are massless nodes.
"""
from collections import namedtuple

# node_i columns
PARENT, PTYPE, QI, VI = 0, 1, 2, 3
NODE_I_COLS = 4
# node_f columns: primitive axis (node coords), helix pitch (m/rad), pose of the joint frame F
# in the parent node frame (rotation row-major, position), mass properties in node coords, the body's
# spatial inertia about the node's origin in node axes (6x6 row-major, RBDA eq. 2.63; the ABA's) and what makes
# the kernels' products sparse (compiled.py node_axes_columns): UNTURNED 1 where ROT_TREE is the identity, AXIS_K
# 1 + k where the axis is +-e_k (R, P, H), else 0 both (a row built without them: the general products)
AXIS, PITCH, ROT_TREE, POS_TREE, MASS, COM, ICOM, INERTIA, UNTURNED, AXIS_K = 0, 3, 4, 13, 16, 17, 20, 29, 65, 66
NODE_F_COLS = 67

# force elements: force_i = [code, a, b, slot] (the code: the kind's place in dynamics/forces.py FORCE_TABLE;
# a, b and the params in force_f: as the kind's force_rows give them, modeling/forces/, modeling/contacts.py)
FORCE_I_COLS = 4

# The public forward_dynamics passes the model to its kernel as two stacked tables, because every
# array crossing from Python into numba costs ~50 ns (SPEC §6):
#   model_i = [node_i; force_i]             (NODE_I_COLS == FORCE_I_COLS columns)
#   model_f = [node_f; force_f; globals]    (padded to a common width)
# The node rows come first, one per workspace block; the last row holds gravity and the force values u.
GRAVITY, FORCE_VALUES = 0, 3      # columns of model_f's last row

# constraint rows (one scalar equation each): con_i = [type, node_a, node_b], con_f = parameters in
# node coordinates: points PA (on a), PB (on b), directions DA (fixed in a), DB (fixed in b), EA (a
# second direction fixed in a), the constant C0 subtracted from the residual and a coefficient C1;
# ROW_COORD rows have no points: KA and KB are their coordinates' places within nodes a and b (a
# translation T has three).
# Contacts (dynamics/motion.py contact_geometry): a surface fixed in a — of the kind whose code is SURF
# (modeling/contacts/surfaces: a plane through PA with normal EA, a sphere of centre PA, or a cylinder about
# the axis EA through PA); of signed radius RS, > 0 with the shape outside it, < 0 inside (concave) — and a
# shape's point on b: centre PB, radius C1 and, for a disk, axis DB (modeling/contacts/shapes). ROW_CONTACT_GAP: the gap
# between the shape's point nearest the surface and the surface; ROW_CONTACT_SLIP: the slip along the
# surface's tangent TK (1 or 2: t1 = e x n / |e x n|, t2 = n x t1, e = DA fixed in a) of b's material
# point there (velocity level only: residual 0).
# ROW_POLY (modeling/constraints/polynomial_coupling.py): y - P(x - X0) - C0 with y and x linear combinations of
# coordinates and P(d) = a1 d + a2 d^2 + a3 d^3 + a4 d^4 (a1..a4 in POLY_A..POLY_A + 3); its row is wider than
# CON_F_COLS: from POLY_TERMS on, (q index, v index, coefficient) of the POLY_NY terms of y, then the POLY_NX of x.
ROW_POINT_DIR, ROW_PERP, ROW_DISTANCE, ROW_COORD, ROW_SCREW, ROW_CONTACT_GAP, ROW_CONTACT_SLIP, ROW_POLY = range(8)
ROW_TYPE, NODE_A, NODE_B = 0, 1, 2
SWITCHED_ROWS = ("limit", "lock", "contact")      # owners of rows held only in some modes (simulation/hybrid)
CON_I_COLS = 3
PA, PB, DA, DB, EA, C0, C1, SURF, RS, TK = 0, 3, 6, 9, 12, 15, 16, 17, 18, 19
KA, KB = PA, PB
CON_F_COLS = 20
POLY_A, POLY_X0, POLY_NY, POLY_NX, POLY_TERMS = 0, 4, 5, 6, CON_F_COLS

# cut joints' coordinates (cut_joints.py): cut_i = [node a (F's), node b (M's), first q and v index among the
# cut joints' coordinates, translations, revolute axes, 1 for a quaternion]; cut_f = F's axes (three columns of
# its rotation, one after the other) and origin in node a, M's likewise in node b, the translation axes and the
# revolute axes (up to three each, in F at q = 0), a unit vector perpendicular to the last revolute axis, the
# angle LAMBDA of a gimbal's third axis from its first about its second, the screw pitch (m/rad; 0: none) and
# the joint's q0 (the branch its angles and quaternion start on).
CUT_NODE_A, CUT_NODE_B, CUT_Q, CUT_V, CUT_TRANS, CUT_ROT, CUT_QUAT = range(7)
CUT_I_COLS = 7
CUT_FA, CUT_PA, CUT_MB, CUT_PB, CUT_TAXES, CUT_RAXES, CUT_EDGE, CUT_LAMBDA, CUT_PITCH, CUT_Q0 = \
    0, 9, 12, 21, 24, 33, 42, 45, 46, 47
CUT_F_COLS = 54

# The model as the kernels take it: these arrays (read-only, CompiledModel) and nq, as one tuple, ``model`` in every
# kernel's parameters; the constraint rows con_i, con_f; the expressions of t (expressions/language.py programs:
# time_ops, time_consts) that give force values (slot_span: each slot's span of the program, -1: none) and
# constraint targets (row_span); quat_q: the first q index of every quaternion.
ModelArrays = namedtuple("ModelArrays", "node_i node_f force_i force_f gravity quat_q con_i con_f "
                                        "time_ops time_consts slot_span row_span nq")
