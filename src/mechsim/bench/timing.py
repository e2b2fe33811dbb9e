"""How the speed suite times: the best of repeats interleaved across what is compared, so that a load spike
hurts all alike."""
import time
import timeit

import numpy as np


def best_us(statements, repeats, min_time):
    """µs per call of each timeit statement: ``statements`` maps a label to (stmt, globals). The
    loop count of each is calibrated so that one repeat takes at least ``min_time`` s; the repeats
    are interleaved across statements (so a load spike hurts all alike) and the best is kept."""
    timers, numbers, best = {}, {}, {}
    for label, (stmt, env) in statements.items():
        timer = timeit.Timer(stmt, globals=env)
        timer.timeit(3)                                                   # warm (JIT, caches)
        number = 1
        while True:
            elapsed = timer.timeit(number)
            if elapsed >= min_time:
                break
            number = max(number * 2, int(number * min_time / max(elapsed, 1e-9) * 1.1))
        timers[label], numbers[label], best[label] = timer, number, elapsed / number
    for _ in range(max(repeats - 1, 0)):
        for label, timer in timers.items():
            best[label] = min(best[label], timer.timeit(numbers[label]) / numbers[label])
    return {label: value * 1e6 for label, value in best.items()}


def best_seconds(functions, repeats):
    """Best wall time (s) of each of ``functions`` (label -> callable) over ``repeats`` interleaved
    rounds; returns ({label: seconds}, {label: last return value})."""
    best, values = {k: np.inf for k in functions}, {}
    for _ in range(repeats):
        for label, function in functions.items():
            start = time.perf_counter()
            values[label] = function()
            best[label] = min(best[label], time.perf_counter() - start)
    return best, values
