"""Op-table row: BroadcastArgs (tf.broadcast_dynamic_shape) against NumPy's broadcasting."""
import numpy as np

from lens.ops.array_more import broadcast_dynamic_shape
from optable_lib import FIX, Row, custom

ROWS = [
    Row("BroadcastArgs", broadcast_dynamic_shape,
        lambda a, b: np.array(np.broadcast_shapes(tuple(a), tuple(b)), np.int32),
        [[FIX([2, 1, 3], np.int32), FIX([4, 3], np.int32)], [FIX([5], np.int32), FIX([1], np.int32)]], grad=False),
]


def _fingerprint_check():
    import json
    import pathlib

    import lens as tf
    from lens.ops.array_more import fingerprint
    want = json.loads((pathlib.Path(__file__).parent / "fixtures" / "fingerprint_tf.json").read_text())
    inputs = {"int32": np.array([[1, 2], [3, 4]], np.int32), "float64": np.array([0.5, -2.0], np.float64),
              "strings": np.array([b"abc", b"", b"hello world"], object),
              "string_rows": np.array([[b"ab", b"c"], [b"x", b"yz"]], object)}
    with tf.Graph().as_default(), tf.Session() as sess:
        for key, value in inputs.items():
            out = fingerprint(tf.constant(value))
            got = sess.run(out)
            assert got.dtype == np.uint8 and got.tolist() == want[key], "%s: %s vs TF %s" % (key, got, want[key])


ROWS.append(custom("Fingerprint", _fingerprint_check, label="Fingerprint vs TF"))
