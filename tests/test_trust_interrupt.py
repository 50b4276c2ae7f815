"""Issue 27 §2: Ctrl-C during a fit is a KeyboardInterrupt, with the interpreter usable
after.  A signal that arrives while a compiled kernel runs surfaced as numba's
``SystemError: ... returned a result with an exception set`` (4 of 6 tries in uboost),
the KeyboardInterrupt buried at the end of its chain of causes.

Not covered: a signal that lands while numba compiles a kernel (the first fit of a
fresh install, before its cache is written); once in a fresh-clone run the process then
neither stopped nor finished within 120 s.  The subprocess test therefore warms every
kernel first."""
import signal
import subprocess
import sys
import textwrap
import time

import numpy as np
import pandas as pd
import pytest

import ubreg

# a signal sent to a fit after a delay: under pytest-xdist (make test: -n auto --dist
# loadgroup) the timed tests run one after another on one worker
pytestmark = pytest.mark.xdist_group("timing")


def _kernel_interrupted(*args, **kwargs):
    try:
        raise KeyboardInterrupt
    except KeyboardInterrupt as exc:
        raise SystemError("CPUDispatcher(<function grow_newton>) returned a result with "
                          "an exception set") from exc


@pytest.fixture
def data():
    rng = np.random.default_rng(0)
    d = pd.DataFrame({"x": rng.normal(size=300), "z": rng.normal(size=300)})
    d["y"] = (d.x + rng.normal(size=300) > 0).astype(int)
    return d


def test_an_interrupted_kernel_is_a_keyboard_interrupt(data, monkeypatch):
    import ubreg.trees._newton_grower as grower
    for driver in ("grow_newton", "grow_newton_serial"):    # large trees, small trees
        monkeypatch.setattr(grower, driver, _kernel_interrupted)
    with pytest.raises(KeyboardInterrupt):
        ubreg.fit("y ~ x + z", data, method="uboost", mstop=5)


def test_other_system_errors_are_not_rewritten(data, monkeypatch):
    import ubreg.trees._newton_grower as grower

    def broken(*args, **kwargs):
        raise SystemError("a real one")
    for driver in ("grow_newton", "grow_newton_serial"):
        monkeypatch.setattr(grower, driver, broken)
    with pytest.raises(SystemError, match="a real one"):
        ubreg.fit("y ~ x + z", data, method="uboost", mstop=5)


_SCRIPT = textwrap.dedent("""
    import numpy as np, pandas as pd, ubreg
    rng = np.random.default_rng(0)
    n = 200_000
    d = pd.DataFrame(rng.normal(size=(n, 10)), columns=[f"x{i}" for i in range(10)])
    d["y"] = (d.x0 + rng.normal(size=n) > 0).astype(int)
    # every kernel the long fit runs is compiled (or loaded from the cache) first: a signal
    # that lands while numba compiles is another case (see the note in the module docstring)
    ubreg.fit("y ~ .", d, method="uboost", mstop=2)
    print("ready", flush=True)
    try:
        ubreg.fit("y ~ .", d, method="uboost", mstop=100000)
        print("finished", flush=True)
    except KeyboardInterrupt:
        print("interrupted", flush=True)
    except BaseException as exc:
        print("raised", type(exc).__name__, flush=True)
    ubreg.fit("y ~ x0", d.head(500), method="uboost", mstop=3)
    print("usable", flush=True)
""")


def _user_sigint():
    """In the child, before Python starts: SIGINT as in a user's terminal session (its
    default action, unblocked), whatever the test process inherited or changed; Python
    leaves an ignored SIGINT ignored, and the child inherits the parent's disposition."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})


@pytest.mark.slow
def test_ctrl_c_during_a_uboost_fit(tmp_path):
    script = tmp_path / "fit.py"
    script.write_text(_SCRIPT)
    for delay in (0.5, 0.9, 1.3):
        proc = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT, text=True, preexec_fn=_user_sigint)
        assert proc.stdout is not None
        line = proc.stdout.readline()
        while line and "ready" not in line:
            line = proc.stdout.readline()
        time.sleep(delay)
        proc.send_signal(signal.SIGINT)
        try:
            out, _ = proc.communicate(timeout=120)
        finally:
            proc.kill()             # never leave a fit of 10⁵ rounds running after the test
            proc.wait()
        assert "interrupted" in out and "usable" in out, out
