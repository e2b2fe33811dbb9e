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
