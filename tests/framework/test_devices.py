"""Device specs, scope merging, placement (colocation, soft placement, errors) and the placement log."""
import numpy as np
import pytest

import lens as tf
from lens.framework.devices import DeviceSpec, merge_device_strings

CPU = "/job:localhost/replica:0/task:0/device:CPU:%d"


def _placed(sess, *tensors_or_ops):
    sess._place()
    out = []
    for x in tensors_or_ops:
        op = x if isinstance(x, tf.Operation) else x.op
        out.append(sess._device_of(op))
    return out


@pytest.mark.parametrize("text, canonical, fields", [
    ("/cpu:0", "/device:CPU:0", (None, None, None, "CPU", 0)),
    ("/device:GPU:1", "/device:GPU:1", (None, None, None, "GPU", 1)),
    ("/job:ps/replica:2/task:3/device:CPU:4", "/job:ps/replica:2/task:3/device:CPU:4", ("ps", 2, 3, "CPU", 4)),
    ("/job:worker/task:1", "/job:worker/task:1", ("worker", None, 3 - 2, None, None)),
    ("gpu:*", "/device:GPU:*", (None, None, None, "GPU", None)),
    ("/job:localhost/device:XLA_CPU:0", "/job:localhost/device:XLA_CPU:0", ("localhost", None, None, "XLA_CPU", 0)),
    ("", "", (None,) * 5),
])
def test_device_spec_parses_every_tf1_form(text, canonical, fields):
    spec = DeviceSpec.from_string(text)
    assert spec.to_string() == canonical
    assert (spec.job, spec.replica, spec.task, spec.device_type, spec.device_index) == fields


@pytest.mark.parametrize("bad, words", [("/foo:1", "Unknown attribute: 'foo'"),
                                        ("/cpu:0/gpu:0", "multiple device types"),
                                        ("/task:x", "must be an integer")])
def test_bad_device_specs_name_the_problem(bad, words):
    with pytest.raises(ValueError, match=words):
        DeviceSpec.from_string(bad)


def test_merge_inner_fields_override_outer_ones():
    assert merge_device_strings("/job:ps/task:1", "/gpu:0") == "/job:ps/task:1/device:GPU:0"
    assert merge_device_strings("/job:ps/device:CPU:0", "/job:worker") == "/job:worker/device:CPU:0"
    assert merge_device_strings("/cpu:0", "") == "/device:CPU:0"
    merged = DeviceSpec(job="a", device_type="CPU").make_merged_spec(DeviceSpec(device_type="GPU"))
    assert merged.to_string() == "/job:a/device:GPU:*"


def test_nested_scopes_functions_and_none_reset():
    with tf.device("/job:localhost"):
        with tf.device("/cpu:1"):
            a = tf.constant(1.0, name="a")
        with tf.device(lambda op: "/device:CPU:2" if op.type == "Mul" else ""):
            b = a * 2.0
        with tf.device(None):
            c = tf.constant(3.0, name="c")
    assert a.op.device == "/job:localhost/device:CPU:1"
    assert b.op.device == "/device:CPU:2"
    assert c.op.device == ""
    assert tf.DeviceSpec is DeviceSpec


def test_default_placement_is_the_full_cpu0_name():
    x = tf.placeholder(tf.float32, [2])
    y = x + 1.0
    with tf.Session() as sess:
        assert _placed(sess, x, y) == [CPU % 0, CPU % 0]
        assert [d.name for d in sess.list_devices()] == [CPU % 0]
        assert sess.list_devices()[0].device_type == "CPU"


def test_pinned_ops_run_on_their_cpu_and_values_are_right():
    x = tf.placeholder(tf.float32, [3])
    with tf.device("/cpu:1"):
        y = x * 3.0
    z = y + 1.0
    with tf.Session(config=tf.ConfigProto(device_count={"CPU": 2})) as sess:
        assert np.allclose(sess.run(z, {x: [1, 2, 3]}), [4, 7, 10])
        assert _placed(sess, y, z) == [CPU % 1, CPU % 0]
        assert [d.name for d in sess.list_devices()] == [CPU % 0, CPU % 1]


def test_variable_ops_colocate_with_the_variable():
    with tf.device("/cpu:1"):
        v = tf.Variable(tf.zeros([2]), name="v")
    # Created outside the scope, but a reference input ties them to v's device.
    inc = tf.assign_add(v, [1.0, 1.0])
    with tf.colocate_with(v.op):
        snap = tf.identity(v, name="snap")
    with tf.Session(config=tf.ConfigProto(device_count={"CPU": 2})) as sess:
        sess.run(v.initializer)
        sess.run(inc)
        assert np.allclose(sess.run(snap), [1, 1])
        assert set(_placed(sess, v.op, v.initializer, v._snapshot, inc, snap)) == {CPU % 1}


def test_conflicting_colocation_is_an_error_naming_both_nodes():
    with tf.device("/cpu:1"):
        v = tf.Variable(1.0, name="v")
    a = tf.assign(v, 2.0, name="a")
    a.op._set_device("/device:CPU:0")  # as an imported GraphDef or a device function could do
    with tf.Session(config=tf.ConfigProto(device_count={"CPU": 2})) as sess:
        with pytest.raises(tf.errors.InvalidArgumentError, match=r"Cannot colocate nodes .*v.* and .*a.*incompatible ids"):
            sess.run(a)


def test_missing_device_raises_tf1_error_unless_soft_placement():
    with tf.device("/device:GPU:0"):
        g = tf.constant(1.0, name="on_gpu")
    with tf.device("/cpu:5"):
        c = tf.constant(2.0, name="on_cpu5")
    total = g + c
    with tf.Session() as sess:
        with pytest.raises(tf.errors.InvalidArgumentError) as info:
            sess.run(total)
    msg = str(info.value)
    assert "Cannot assign a device for operation 'on_gpu': Operation was explicitly assigned to " \
           "/device:GPU:0 but available devices are [ %s ]" % (CPU % 0) in msg
    assert "allow_soft_placement" in msg
    cfg = tf.ConfigProto(allow_soft_placement=True, device_count={"CPU": 2})
    with tf.Session(config=cfg) as sess:
        assert sess.run(total) == 3.0
        assert _placed(sess, g, c) == [CPU % 0, CPU % 0]


def test_other_job_is_not_rescued_by_soft_placement():
    with tf.device("/job:ps/task:0"):
        c = tf.constant(1.0, name="ps_const")
    with tf.Session(config=tf.ConfigProto(allow_soft_placement=True)) as sess:
        with pytest.raises(tf.errors.InvalidArgumentError, match="/job:ps/task:0"):
            sess.run(c)


def test_log_device_placement_prints_tf1_lines(capsys):
    x = tf.placeholder(tf.float32, [], name="x")
    with tf.device("/cpu:1"):
        y = tf.multiply(x, 2.0, name="double")
    with tf.Session(config=tf.ConfigProto(log_device_placement=True, device_count={"CPU": 2})) as sess:
        sess.run(y, {x: 1.0})
        sess.run(y, {x: 2.0})
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "Device mapping: no known devices."
    assert "double: (Mul): %s" % (CPU % 1) in out
    assert "double/y: (Const): %s" % (CPU % 1) in out    # a generator goes with its only consumer
    assert sum(1 for line in out if line.startswith("double:")) == 1   # placed (and logged) once


def test_bad_config_values_are_clear_errors():
    with pytest.raises(TypeError, match="config must be a tf.ConfigProto"):
        tf.Session(config={"device_count": 2})
    with pytest.raises(ValueError, match=r"device_count\['CPU'\] is 0"):
        tf.Session(config=tf.ConfigProto(device_count={"CPU": 0})).list_devices()
