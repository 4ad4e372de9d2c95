"""Measured peers: runs TensorFlow's side of a bench row in a subprocess (bench/peer_tf.py).

The Python used is $LENS_BENCH_TF_PYTHON when set, else this one if it can import tensorflow
(`pip install -e '.[bench]'`). Without one, a row's peer says "TF not installed" instead of a
number. Results are cached per process, so rows of one module share one TensorFlow start.
"""
import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ENV_VAR = "LENS_BENCH_TF_PYTHON"
MISSING = "TF not installed"
HOW = "set %s to a Python with tensorflow, or pip install -e '.[bench]'" % ENV_VAR
_cache = {}


def tf_python():
    """Path of a Python that has TensorFlow, or None."""
    chosen = os.environ.get(ENV_VAR)
    if chosen:
        return chosen if os.path.exists(chosen) else None
    return sys.executable if importlib.util.find_spec("tensorflow") is not None else None


def tensorflow(cases, quick=False, timeout=900):
    """{case: seconds or an explanatory string} for TensorFlow's side of each case."""
    todo = [c for c in cases if (c, quick) not in _cache]
    python = tf_python()
    if todo and python is None:
        for c in todo:
            _cache[c, quick] = MISSING
    elif todo:
        env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3", TF_USE_LEGACY_KERAS="1", PYTHONWARNINGS="ignore")
        args = [python, str(HERE / "peer_tf.py")] + todo + (["--quick"] if quick else [])
        print("  TensorFlow side (%s): %s ..." % (python, ", ".join(todo)), file=sys.stderr, flush=True)
        err = "no answer"
        try:
            done = subprocess.run(args, capture_output=True, text=True, timeout=timeout, env=env)
            lines = done.stdout.strip().splitlines()
            answer = json.loads(lines[-1]) if lines else {}
            err = (done.stderr.strip().splitlines() or [err])[-1]
        except (subprocess.TimeoutExpired, ValueError, OSError) as e:
            answer = {"error": type(e).__name__}
        version = answer.get("tensorflow", "")
        for c in todo:
            got = answer.get(c) or {}
            if "value" in got:
                _cache[c, quick] = got["value"]
                _cache["version"] = version
            else:
                _cache[c, quick] = "TF failed: %s" % (got.get("error") or answer.get("error") or err)[:80]
    return {c: _cache[c, quick] for c in cases}


def tf_name():
    """The peer's label for the table: TensorFlow and its version when it ran."""
    v = _cache.get("version")
    return "TensorFlow %s" % v if v else "TensorFlow"


def scaled(value, factor):
    """A measured value times factor (seconds -> ms, us); strings (not installed, failed) pass."""
    return value * factor if isinstance(value, (int, float)) else value


class Stepper:
    """TensorFlow's training step of a case kept ready in a subprocess (peer_tf.py --serve):
    rounds(n) runs n steps there and returns the seconds, so the lens side can time its rounds
    in turn with TensorFlow's. `missing` says why there is none (then rounds is not usable)."""

    def __init__(self, case, quick=False):
        self.proc, self.missing = None, None
        python = tf_python()
        if python is None:
            self.missing = MISSING
            return
        env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3", TF_USE_LEGACY_KERAS="1", PYTHONWARNINGS="ignore")
        args = [python, str(HERE / "peer_tf.py"), case, "--serve"] + (["--quick"] if quick else [])
        print("  TensorFlow side (%s): %s, served ..." % (python, case), file=sys.stderr, flush=True)
        self.proc = subprocess.Popen(args, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL, text=True, env=env)
        first = self.proc.stdout.readline().split()
        if first[:1] != ["ready"]:
            self.close()
            self.missing = "TF failed to start %s" % case
        else:
            _cache["version"] = first[1] if len(first) > 1 else ""

    def rounds(self, n):
        """Seconds TensorFlow took for n more steps."""
        self.proc.stdin.write("%d\n" % n)
        self.proc.stdin.flush()
        return float(self.proc.stdout.readline())

    def close(self):
        """Stop the subprocess."""
        if self.proc is not None:
            self.proc.stdin.close()
            self.proc.wait(timeout=60)
            self.proc = None
