"""The public TF1 eager examples (TensorFlow-Examples' eager API basics, linear and logistic regression
with tf.contrib.eager, an MLP with tf.GradientTape) run unchanged as programs, shortened and on
synthetic MNIST: one fresh process runs them in turn (eager mode is switched on at program start)."""
import re
import subprocess
import sys
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).parent / "examples"
NAMES = ["basic_eager_api", "linear_regression_eager_api", "logistic_regression_eager_api", "mlp_gradient_tape"]
_RUNNER = """
import runpy, sys
sys.path.insert(0, %r)
for name in %r:
    print("=== " + name, flush=True)
    runpy.run_path(%r + "/" + name + ".py", run_name="__main__")
"""


@pytest.fixture(scope="module")
def outputs():
    code = _RUNNER % (str(EXAMPLES), NAMES, str(EXAMPLES))
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300,
                          cwd=str(EXAMPLES))
    assert proc.returncode == 0, proc.stderr[-3000:]
    parts = re.split(r"^=== (\w+)\n", proc.stdout, flags=re.M)[1:]
    return dict(zip(parts[::2], parts[1::2]))


def _floats(text, label):
    return [float(m) for m in re.findall(label + r"\s*([-\d.]+)", text)]


def test_basic_eager_api(outputs):
    out = outputs["basic_eager_api"]
    assert "a + b = 5" in out and "a * b = 6" in out
    assert "a * b = tf.Tensor(\n[[11.  1.]\n [ 3.  0.]], shape=(2, 2), dtype=float32)" in out
    assert out.count("tf.Tensor(") == 7 and out.rstrip().endswith("tf.Tensor(0.0, shape=(), dtype=float32)")


def test_linear_regression_learns(outputs):
    costs = _floats(outputs["linear_regression_eager_api"], "cost=")
    assert len(costs) == 12 and costs[-1] < costs[0]
    # Gradient descent on a convex quadratic with a small step: the cost never goes up.
    assert all(a >= b - 1e-7 for a, b in zip(costs[1:], costs[2:]))


def test_logistic_regression_learns(outputs):
    out = outputs["logistic_regression_eager_api"]
    losses = _floats(out, "loss=")
    assert losses[0] == pytest.approx(2.302585, abs=1e-5)    # log(10): zero weights
    assert losses[-1] < 0.75 * losses[0]
    assert _floats(out, "Testset Accuracy:")[0] > 0.5


def test_mlp_with_gradient_tape_learns(outputs):
    out = outputs["mlp_gradient_tape"]
    losses = _floats(out, "loss=")
    assert losses[-1] < 0.5 * losses[0]
    assert _floats(out, "Testset Accuracy:")[0] > 0.5
