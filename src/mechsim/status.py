"""Status codes the compiled kernels and integrators return, and what they mean.

A kernel returns OK, a failure code below, or (the tree kernels) the index >= 0 of the node
whose joint-space inertia is singular. Codes are plain integers so that compiled code can
return them; ``describe`` turns one into a sentence for an error message.
"""
OK = -1              # success
WRONG_SIZE = -2      # aba_packed: q, v, tau or qdd does not have the model's length
SINGULAR = -3        # the constraint equations could not be solved (no finite multipliers)
NOT_CONVERGED = -4   # the position constraints could not be satisfied by projection
FRICTION_LOOP = -5   # a joint friction from the load and the load it makes do not converge together
PARTNER_STOPPED = -6  # a co-simulation's other subsystem stopped (distributed/shared_memory.py)
OUT_OF_STEP = -7     # a co-simulation's subsystems reached an exchange at different times
LOG_FULL = -8        # a co-simulation's exchange log is full (more exchanges than its steps allow)

PAUSED = -1000       # an integrator's step budget or output buffer is spent: call it again to resume
NON_FINITE = -1001   # the state (or a stage value) stays non-finite however small the step
STEP_TOO_SMALL = -1002   # the step size fell below 10 ulp(t)
EVENT = -1003        # an event condition changed sign inside the last step: locate it
STEP_FAILED = -1004  # a scipy solver could not take a step for another reason (its message says why)
UNHANDLED = -1005    # an event's action cannot run compiled: the caller hands the event to Python

MESSAGES = {
    OK: "the solver reached the end of the integration interval",
    WRONG_SIZE: "q, v or tau does not have the model's length",
    SINGULAR: "the constraint equations could not be solved (singular configuration)",
    NOT_CONVERGED: "constraint violation beyond tolerance: projection did not converge",
    FRICTION_LOOP: "a joint friction from the load (mu=, radius=) and the load it makes do not converge together: "
                   "mu times the pin radius is too large against the joint's lever arms (the joint self-locks)",
    PARTNER_STOPPED: "another subsystem of the co-simulation stopped",
    OUT_OF_STEP: "the subsystems of the co-simulation are out of step (an exchange at different times)",
    LOG_FULL: "more exchanges than the co-simulation's steps allow (its exchange log is full)",
    PAUSED: "paused",
    NON_FINITE: "the state became non-finite",
    STEP_TOO_SMALL: "required step size is less than spacing between numbers",
    EVENT: "an event condition changed sign",
    STEP_FAILED: "the solver could not take a step",
    UNHANDLED: "an event's action runs in Python",
}


def describe(status):
    """A sentence for a status code (a node index: a singular mass matrix at that node)."""
    if status >= 0:
        return f"singular mass matrix at tree node {status}"
    return MESSAGES.get(status, f"kernel status {status}")
