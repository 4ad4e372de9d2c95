"""Variable initializers: values, variances for known fans, orthogonality, configs, TF1 op names."""
import math

import numpy as np
import pytest

import lens as tf
from lens.ops import init_ops as I

N_ROWS, N_COLS = 400, 500       # 200k draws: tight statistics, still fast


def _run(t):
    with tf.Session() as sess:
        return sess.run(t)


def _close(value, expected, spread, n, sigmas=6):
    assert abs(value - expected) <= sigmas * spread / np.sqrt(n), (value, expected)


def _fans(shape):
    """Fans written out by hand for the shapes the tests use (dense and conv kernels)."""
    if len(shape) == 2:
        return shape[0], shape[1]
    if len(shape) == 4:   # [h, w, in, out]
        return shape[0] * shape[1] * shape[2], shape[0] * shape[1] * shape[3]
    raise AssertionError(shape)


# ------------------------------------------------------------------ constant-valued
def test_zeros_ones_values_and_dtypes():
    z = I.zeros_initializer()([2, 3])
    o = I.ones_initializer(dtype=tf.int32)([4])
    o64 = I.ones_initializer()([2], dtype=tf.float64)
    vz, vo, v64 = _run([z, o, o64])
    assert vz.dtype == np.float32 and vz.shape == (2, 3) and not vz.any()
    assert vo.dtype == np.int32 and vo.tolist() == [1, 1, 1, 1]
    assert v64.dtype == np.float64 and v64.tolist() == [1.0, 1.0]


def test_constant_initializer_fill_reshape_and_pad_rules():
    assert _run(I.constant_initializer(7)([2, 2])).tolist() == [[7, 7], [7, 7]]
    value = [0, 1, 2, 3, 4, 5, 6, 7]
    assert _run(I.constant_initializer(value)([2, 4])).tolist() == [[0, 1, 2, 3], [4, 5, 6, 7]]
    # Fewer values than elements: TF1 repeats the last value.
    assert _run(I.constant_initializer(value)([3, 4])).tolist() == [[0, 1, 2, 3], [4, 5, 6, 7], [7, 7, 7, 7]]
    arr = np.array([[1.5, 2.5]])
    out = _run(I.constant_initializer(arr)([2, 2], dtype=tf.float64))
    assert out.dtype == np.float64 and out.tolist() == [[1.5, 2.5], [2.5, 2.5]]
    assert _run(I.constant_initializer((1, 2))([2], dtype=tf.int64)).dtype == np.int64


def test_constant_initializer_errors():
    with pytest.raises(ValueError, match="Too many elements provided. Needed at most 6, but received 8"):
        I.constant_initializer(list(range(8)))([2, 3])
    with pytest.raises(TypeError, match=r"Expected Tensor's shape: \(3, 4\), got \(8,\)"):
        I.constant_initializer(list(range(8)), verify_shape=True)([3, 4])
    with pytest.raises(TypeError, match="Invalid type for initial value"):
        I.constant_initializer({"a": 1})
    with pytest.raises(ValueError, match="fully defined"):
        I.constant_initializer(1)([None, 2])


# ------------------------------------------------------------------ random
def test_random_normal_and_uniform_initializers():
    n = N_ROWS * N_COLS
    x = _run(I.random_normal_initializer(mean=1.0, stddev=0.5, seed=1)([N_ROWS, N_COLS]))
    assert x.dtype == np.float32 and x.shape == (N_ROWS, N_COLS)
    _close(x.mean(), 1.0, 0.5, n)
    _close(x.std(), 0.5, 0.5 / math.sqrt(2), n)
    t = _run(I.truncated_normal_initializer(mean=0.0, stddev=0.1, seed=2)([N_ROWS, N_COLS]))
    assert np.abs(t).max() <= 0.2 + 1e-7
    _close(t.std(), 0.1 * 0.87962566103423978, 0.1, n)
    u = _run(I.random_uniform_initializer(-0.3, 0.3, seed=3)([N_ROWS, N_COLS]))
    assert u.min() >= -0.3 and u.max() < 0.3
    _close(u.var(), 0.36 / 12, 0.36 / 12, n)
    ints = _run(I.random_uniform_initializer(0, 4, dtype=tf.int32)([1000]))
    assert ints.dtype == np.int32 and set(ints.tolist()) == {0, 1, 2, 3}


@pytest.mark.parametrize("shape", [[N_ROWS, N_COLS], [5, 5, 64, 128]])
@pytest.mark.parametrize("mode", ["fan_in", "fan_out", "fan_avg"])
@pytest.mark.parametrize("distribution", ["truncated_normal", "untruncated_normal", "uniform"])
def test_variance_scaling_variance_matches_fans(shape, mode, distribution):
    scale = 2.0
    fan_in, fan_out = _fans(shape)
    fan = {"fan_in": fan_in, "fan_out": fan_out, "fan_avg": (fan_in + fan_out) / 2}[mode]
    want_std = math.sqrt(scale / fan)
    x = _run(I.variance_scaling_initializer(scale, mode, distribution, seed=4)(shape)).ravel()
    assert x.dtype == np.float32
    _close(x.std(), want_std, want_std, x.size)
    if distribution == "uniform":
        assert np.abs(x).max() <= math.sqrt(3 * scale / fan)
    if distribution == "truncated_normal":
        # TF1 widens the stddev by 1/0.8796 so the truncated draw keeps the wanted variance.
        assert np.abs(x).max() <= 2 * want_std / 0.87962566103423978 + 1e-6
    if distribution == "untruncated_normal":
        assert np.abs(x).max() > 2.5 * want_std


def test_variance_scaling_small_shapes_and_errors():
    # Scalars and vectors: fan 1 and fan = length.
    assert _run(I.variance_scaling_initializer(distribution="uniform")([])).shape == ()
    v = _run(I.variance_scaling_initializer(scale=3.0, distribution="uniform")([10000]))
    assert np.abs(v).max() <= math.sqrt(3 * 3.0 / 10000)
    with pytest.raises(ValueError, match="scale"):
        I.variance_scaling_initializer(scale=0)
    with pytest.raises(ValueError, match="mode"):
        I.variance_scaling_initializer(mode="fan_sum")
    with pytest.raises(ValueError, match="distribution"):
        I.variance_scaling_initializer(distribution="cauchy")
    with pytest.raises(ValueError, match="floating point"):
        I.variance_scaling_initializer(dtype=tf.int32)
    # 'normal' is TF1's old spelling of 'truncated_normal'.
    x = _run(I.variance_scaling_initializer(distribution="normal", seed=1)([N_ROWS, N_COLS]))
    assert np.abs(x).max() <= 2 * math.sqrt(1 / N_ROWS) / 0.87962566103423978 + 1e-6


@pytest.mark.parametrize("shape", [[N_ROWS, N_COLS], [3, 3, 32, 64]])
def test_glorot_he_lecun(shape):
    fan_in, fan_out = _fans(shape)
    gu = _run(I.glorot_uniform_initializer(seed=1)(shape)).ravel()
    limit = math.sqrt(6 / (fan_in + fan_out))
    assert np.abs(gu).max() <= limit and np.abs(gu).max() > 0.99 * limit
    _close(gu.var(), limit ** 2 / 3, limit ** 2 / 3, gu.size)
    gn = _run(I.glorot_normal_initializer(seed=2)(shape)).ravel()
    _close(gn.std(), math.sqrt(2 / (fan_in + fan_out)), math.sqrt(2 / (fan_in + fan_out)), gn.size)
    he = _run(I.initializers.he_normal(seed=3)(shape)).ravel()
    _close(he.std(), math.sqrt(2 / fan_in), math.sqrt(2 / fan_in), he.size)
    hu = _run(I.initializers.he_uniform(seed=3)(shape)).ravel()
    assert np.abs(hu).max() <= math.sqrt(6 / fan_in)
    lu = _run(I.initializers.lecun_uniform(seed=3)(shape)).ravel()
    assert np.abs(lu).max() <= math.sqrt(3 / fan_in)
    ln = _run(I.initializers.lecun_normal(seed=3)(shape)).ravel()
    _close(ln.std(), math.sqrt(1 / fan_in), math.sqrt(1 / fan_in), ln.size)


def test_uniform_unit_scaling():
    x = _run(I.uniform_unit_scaling_initializer(factor=1.5, seed=1)([4, 5, 6]))
    limit = math.sqrt(3 / 20) * 1.5
    assert np.abs(x).max() <= limit and np.abs(x).max() > 0.8 * limit


# ------------------------------------------------------------------ orthogonal / identity
@pytest.mark.parametrize("shape", [[6, 6], [10, 4], [4, 10], [3, 3, 4, 8], [2, 9]])
def test_orthogonal_is_orthogonal(shape):
    q = _run(I.orthogonal_initializer(seed=1)(shape))
    assert q.shape == tuple(shape) and q.dtype == np.float32
    m = q.reshape(-1, shape[-1])
    rows, cols = m.shape
    gram = m.T @ m if rows >= cols else m @ m.T
    np.testing.assert_allclose(gram, np.eye(min(rows, cols)), atol=1e-5)


def test_orthogonal_gain_dtype_and_errors():
    q = _run(I.orthogonal_initializer(gain=3.0, dtype=tf.float64)([5, 5]))
    assert q.dtype == np.float64
    np.testing.assert_allclose(q.T @ q, 9 * np.eye(5), atol=1e-10)
    with pytest.raises(ValueError, match="at least two-dimensional"):
        I.orthogonal_initializer()([5])
    # Sign correction: across many draws the columns are not biased toward a sign of diag(R).
    diag = _run(I.orthogonal_initializer(seed=2)([400, 400])).diagonal()
    assert 0.3 < (diag > 0).mean() < 0.7


def test_identity_initializer():
    x = _run(I.identity_initializer(gain=2.0)([3, 4]))
    assert x.tolist() == (2 * np.eye(3, 4)).tolist()
    with pytest.raises(ValueError, match="2D"):
        I.identity_initializer()([3, 3, 3])


# ------------------------------------------------------------------ seeds, configs, variables
def test_seeded_initializer_repeats_across_sessions():
    t = I.glorot_uniform_initializer(seed=5)([3, 4])
    np.testing.assert_array_equal(_run(t), _run(t))
    free = I.glorot_uniform_initializer()([3, 4])
    assert not np.array_equal(_run(free), _run(free))


@pytest.mark.parametrize("init", [
    I.zeros_initializer(), I.ones_initializer(dtype=tf.float64), I.constant_initializer([1, 2]),
    I.random_normal_initializer(0.5, 2.0, seed=3), I.truncated_normal_initializer(stddev=0.2),
    I.random_uniform_initializer(-1, 2, seed=1), I.glorot_uniform_initializer(seed=1),
    I.glorot_normal_initializer(), I.variance_scaling_initializer(2.0, "fan_out", "uniform", seed=9),
    I.orthogonal_initializer(1.5, seed=2), I.identity_initializer(0.5), I.uniform_unit_scaling_initializer(2.0),
])
def test_get_config_round_trip(init):
    config = init.get_config()
    again = type(init).from_config(config)
    assert again.get_config() == config
    assert all(not isinstance(v, tf.DType) for v in config.values())   # dtype travels as its name


def test_known_configs():
    assert I.glorot_uniform_initializer(seed=1).get_config() == {"seed": 1, "dtype": "float32"}
    assert I.variance_scaling_initializer().get_config() == {
        "scale": 1.0, "mode": "fan_in", "distribution": "truncated_normal", "seed": None, "dtype": "float32"}
    assert I.random_normal_initializer().get_config() == {"mean": 0.0, "stddev": 1.0, "seed": None,
                                                          "dtype": "float32"}


def test_random_initializers_reject_int_dtypes():
    for make in (I.random_normal_initializer, I.truncated_normal_initializer, I.orthogonal_initializer,
                 I.glorot_uniform_initializer):
        with pytest.raises(ValueError, match="Expected floating point type"):
            make(dtype=tf.int32)


def test_use_through_variable_and_names():
    w = tf.Variable(I.glorot_uniform_initializer(seed=1)([3, 4]), name="w")
    b = tf.Variable(lambda: I.zeros_initializer()([4]), name="b")
    k = tf.Variable(lambda: I.random_uniform_initializer(-1, 1)([2]), name="k")
    names = {op.name for op in tf.get_default_graph().get_operations()}
    assert {"b/Initializer/zeros", "k/Initializer/random_uniform/RandomUniform",
            "k/Initializer/random_uniform/sub", "k/Initializer/random_uniform"} <= names
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        wv, bv, kv = sess.run([w, b, k])
    assert wv.shape == (3, 4) and np.abs(wv).max() <= math.sqrt(6 / 7)
    assert bv.tolist() == [0, 0, 0, 0] and kv.shape == (2,)


def test_get_variable_builds_tf1_initializer_names():
    if not hasattr(tf, "get_variable"):
        pytest.skip("tf.get_variable not in the facade yet")
    with tf.variable_scope("dense"):
        k = tf.get_variable("kernel", [3, 4])
        c = tf.get_variable("bias", [4], initializer=I.constant_initializer(0.5))
        o = tf.get_variable("rot", [4, 4], initializer=I.orthogonal_initializer())
    names = {op.name for op in tf.get_default_graph().get_operations()}
    assert {"dense/kernel/Initializer/random_uniform/RandomUniform", "dense/kernel/Initializer/random_uniform/max",
            "dense/bias/Initializer/Const", "dense/rot/Initializer/Qr"} <= names
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        kv, cv, ov = sess.run([k, c, o])
    assert np.abs(kv).max() <= math.sqrt(6 / 7) and cv.tolist() == [0.5] * 4
    np.testing.assert_allclose(ov.T @ ov, np.eye(4), atol=1e-5)


def test_initializers_namespace():
    ns = I.initializers
    assert isinstance(ns.zeros(), I.Zeros) and isinstance(ns.glorot_uniform(), I.GlorotUniform)
    assert isinstance(ns.variance_scaling(), I.VarianceScaling) and isinstance(ns.random_normal(), I.RandomNormal)
    assert ns.he_normal().get_config()["scale"] == 2.0
    assert not hasattr(ns, "keras")
    v = tf.Variable(ns.ones()([2]))
    with tf.Session() as sess:
        sess.run(ns.global_variables())
        assert sess.run(v).tolist() == [1, 1]


def test_qr_diag_ops_and_gradients():
    a = np.random.RandomState(0).randn(2, 5, 3).astype(np.float32)
    q, r = I.qr(a)
    assert q.shape.as_list() == [2, 5, 3] and r.shape.as_list() == [2, 3, 3]
    qv, rv = _run([q, r])
    np.testing.assert_allclose(qv @ rv, a, atol=1e-5)
    np.testing.assert_allclose(np.tril(rv[0], -1), 0, atol=1e-6)
    x = tf.placeholder(tf.float32, [3, 3])
    d = I.diag_part(x)
    y = tf.reduce_sum(d * tf.constant([1.0, 2.0, 3.0]))
    (g,) = tf.gradients(y, [x])
    m = np.arange(9, dtype=np.float32).reshape(3, 3)
    with tf.Session() as sess:
        dv, gv = sess.run([d, g], {x: m})
    assert dv.tolist() == [0, 4, 8] and gv.tolist() == np.diag([1.0, 2.0, 3.0]).tolist()
    dd = I.diag(tf.constant([[1.0, 2.0]]))
    assert dd.shape.as_list() == [1, 2, 1, 2]
    assert _run(I.diag_part(dd)).tolist() == [[1.0, 2.0]]
