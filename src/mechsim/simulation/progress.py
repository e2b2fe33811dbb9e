"""Progress bars for long runs: tqdm when installed, else a plain bar on stderr."""
import sys
import time


class Progress:
    """Call with the current time (or another ``quantity``, such as runs done); shows percent of
    [t0, t_end] done. ``close()`` when finished."""

    def __init__(self, t0, t_end, enabled, label="simulate", quantity="t"):
        self.t0, self.span, self.enabled, self.quantity = t0, max(t_end - t0, 1e-300), enabled, quantity
        self._bar, self._last = None, 0.0
        if enabled:
            try:
                from tqdm import tqdm
                self._bar = tqdm(total=100, desc=label, unit="%", leave=True,
                                 bar_format="{desc}: {percentage:3.0f}%|{bar}| " + quantity
                                 + "={postfix} [{elapsed}<{remaining}]")
            except ImportError:
                self._label = label

    def __call__(self, t):
        if not self.enabled:
            return
        done = 100.0 * (t - self.t0) / self.span
        if self._bar is not None:
            self._bar.n = round(done, 1)
            self._bar.set_postfix_str(f"{t:.4g}", refresh=False)
            self._bar.refresh()
        elif time.monotonic() - self._last > 0.2 or done >= 100:
            self._last = time.monotonic()
            filled = int(done // 4)
            sys.stderr.write(f"\r{self._label}: {done:5.1f}% |{'#' * filled}{'.' * (25 - filled)}| {self.quantity}={t:.4g}")
            sys.stderr.flush()

    def close(self):
        if not self.enabled:
            return
        if self._bar is not None:
            self._bar.close()
        else:
            sys.stderr.write("\n")
