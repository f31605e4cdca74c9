"""Send a real signal to ``sdcrisk assess`` while its attacks run (the Ctrl-C and SIGTERM tests)."""

from __future__ import annotations

import signal
import subprocess
import sys
import time


def signal_during_attacks(args: list[str], sig: int, *, sigint=signal.SIG_DFL, env=None, wait: float = 0.5,
                          before=lambda: None) -> tuple[int, str, float]:
    """Start ``python -m sdcrisk.cli assess *args`` with SIGINT at ``sigint`` (SIG_DFL: as at a
    terminal; a runner that starts the tests in the background passes it down ignored), send
    ``sig`` ``wait`` seconds after the attacks start (``before()`` just before), and return the
    exit status, the standard error and the seconds from the signal to the exit."""
    proc = subprocess.Popen([sys.executable, "-m", "sdcrisk.cli", "assess", *args], env=env,
                            stderr=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, sigint))
    lines = []
    for line in proc.stderr:  # wait until the attacks run
        lines.append(line)
        if "attack(s) on" in line:
            break
    time.sleep(wait)
    before()
    proc.send_signal(sig)
    t0 = time.perf_counter()
    try:
        _, rest = proc.communicate(timeout=30)
    finally:
        proc.kill()
    return proc.returncode, "".join(lines) + rest, time.perf_counter() - t0
