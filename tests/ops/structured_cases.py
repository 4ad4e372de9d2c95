"""Programs over sparse and structured values, written once against the TF1 API and run twice: by
fixtures/make_structured_fixtures.py under TensorFlow (recording structured_tf.json) and by
test_structured_vs_tf.py under lens. Each case builds its fetches in a fresh graph."""
import numpy as np

IND = [[2, 0], [0, 1], [1, 2], [0, 0]]      # not row-major on purpose
VALS = [1.5, -2.0, 3.0, 0.5]
B_IND = [[0, 1], [1, 1], [2, 2]]


def _sp(tf, vals=None, ind=IND, shape=(3, 3)):
    return tf.SparseTensor(ind, tf.constant(VALS if vals is None else vals, tf.float64), list(shape))


def sparse_forward(tf, extra):
    a = _sp(tf)
    b = tf.SparseTensor(B_IND, tf.constant([4.0, -1.0, 2.5], tf.float64), [3, 3])
    dense = tf.constant(np.arange(9.0).reshape(3, 3))
    col = tf.SparseTensor([[1, 0]], tf.constant([9.0], tf.float64), [3, 1])
    return {
        "reorder": tf.sparse.reorder(a), "to_dense": tf.sparse.to_dense(tf.sparse.reorder(a)),
        "reduce_sum_1": tf.sparse.reduce_sum(a, 1), "reduce_sum_keep": tf.sparse.reduce_sum(a, 0, keepdims=True),
        "reduce_sum_all": tf.sparse.reduce_sum(a), "reduce_max_0": tf.sparse.reduce_max(a, 0),
        "reduce_max_empty": tf.sparse.reduce_max(tf.SparseTensor([[0, 0]], tf.constant([-2.0]), [2, 2]), 1),
        "matmul": tf.sparse.sparse_dense_matmul(a, dense),
        "matmul_adj": tf.sparse.sparse_dense_matmul(a, dense, adjoint_a=True, adjoint_b=True),
        "add_sparse": tf.sparse.add(a, b), "add_threshold": tf.sparse.add(a, b, threshold=2.0),
        "add_dense": tf.sparse.add(a, dense),
        "concat_1": tf.sparse.concat(1, [a, col]),
        "concat_expand": tf.sparse.concat(0, [a, col], expand_nonconcat_dim=True),
        "slice": tf.sparse.slice(a, [0, 1], [2, 5]),
        "split": tf.sparse.split(sp_input=a, num_split=2, axis=1),
        "transpose": tf.sparse.transpose(a), "softmax": tf.sparse.softmax(a),
        "maximum": tf.sparse.maximum(a, b), "minimum": tf.sparse.minimum(a, b),
        "fill_empty_rows": tf.sparse.fill_empty_rows(tf.SparseTensor([[0, 1], [2, 0]], tf.constant([1.0, 2.0]),
                                                                     [4, 3]), -1.0),
        "retain": tf.sparse.retain(a, [True, False, True, True]),
        "reshape": tf.sparse.reshape(a, [9, -1]),
        "to_indicator": tf.sparse.to_indicator(tf.SparseTensor([[0, 0], [0, 1], [1, 0]],
                                                               tf.constant([3, 1, 0], tf.int64), [2, 2]), 4),
        "from_dense": tf.sparse.from_dense(tf.constant([[0, 3], [4, 0]])),
        "expand_dims": tf.sparse.expand_dims(a, 0), "eye": tf.sparse.eye(2, 3),
        "reset_shape": tf.sparse.reset_shape(a),
    }


def sparse_gradients(tf, extra):
    v = tf.constant(VALS, tf.float64)
    w = tf.constant(np.arange(6.0).reshape(3, 2) / 4.0)
    a = tf.SparseTensor(IND, v, [3, 3])
    b = tf.SparseTensor(B_IND, tf.constant([4.0, -1.0, 2.5], tf.float64), [3, 3])
    weights = tf.constant(np.linspace(0.5, 2.0, 9).reshape(3, 3))
    loss = (tf.reduce_sum(tf.sparse.sparse_dense_matmul(a, w) ** 2)
            + tf.reduce_sum(tf.sparse.reduce_sum(a, 1) * tf.constant([1.0, 2.0, 3.0], tf.float64))
            + tf.reduce_sum(tf.sparse.add(a, b).values ** 2)
            + tf.reduce_sum(tf.sparse.add(a, weights) * weights)
            + tf.reduce_sum(tf.sparse.softmax(a).values * tf.constant([1.0, 2.0, 3.0, 4.0], tf.float64))
            + tf.reduce_sum(tf.sparse.slice(a, [0, 0], [2, 2]).values ** 3)
            + tf.reduce_sum(tf.sparse.reorder(a).values * tf.constant([1.0, 2.0, 3.0, 4.0], tf.float64))
            + tf.reduce_sum(tf.sparse.fill_empty_rows(tf.SparseTensor([[0, 1], [2, 0]], v[:2], [4, 3]),
                                                      v[3])[0].values ** 2)
            + tf.reduce_sum(tf.sparse.to_dense(tf.sparse.reorder(a)) * weights))
    gv, gw = tf.gradients(loss, [v, w])
    return {"loss": loss, "d_values": gv, "d_dense": gw}


def sets_and_bits(tf, extra):
    a = tf.constant([[1, 2, 2], [4, 5, 6]], tf.int32)
    b = tf.constant([[2, 3, 9], [6, 6, 6]], tf.int32)
    sb = tf.SparseTensor([[0, 0], [0, 1], [1, 0]], tf.constant([2, 3, 6], tf.int32), [2, 3])
    x = tf.constant([[5, -3, 0], [127, -128, 9]], tf.int8)
    y = tf.constant([[3, 2, 7], [1, 9, 2]], tf.int8)
    u = tf.constant([250, 3, 1], tf.uint8)
    return {
        "intersection": tf.sets.intersection(a, b), "union": tf.sets.union(a, sb),
        "difference": tf.sets.difference(a, b), "difference_ba": tf.sets.difference(a, b, aminusb=False),
        "sparse_minus_dense": tf.sets.difference(sb, a), "sparse_sparse": tf.sets.intersection(sb, sb),
        "size": tf.sets.size(tf.SparseTensor([[0, 0], [0, 1], [1, 0]], tf.constant([4, 4, 1], tf.int64), [3, 2])),
        "and": tf.bitwise.bitwise_and(x, y), "or": tf.bitwise.bitwise_or(x, y), "xor": tf.bitwise.bitwise_xor(x, y),
        "invert": tf.bitwise.invert(x), "invert_u": tf.bitwise.invert(u),
        "left": tf.bitwise.left_shift(x, y), "right": tf.bitwise.right_shift(x, y),
    }


def lookups(tf, extra):
    lk = extra["contrib_lookup"]
    ids = lk.index_table_from_tensor(["x", "y", "z"], num_oov_buckets=4)
    ints = lk.index_table_from_tensor(tf.constant([10, 20, 30], tf.int64), num_oov_buckets=2, dtype=tf.int64)
    names = lk.index_to_string_table_from_tensor(["x", "y"], default_value="?")
    table = tf.lookup.StaticHashTable(tf.lookup.KeyValueTensorInitializer(["a", "b"], [1.5, -2.0]), 0.25)
    words = ["x", "unknown", "z", "tensorflow", "lens", "", "y"]
    return {"ids": ids.lookup(tf.constant(words)), "ids_size": ids.size(),
            "ints": ints.lookup(tf.constant([30, 7, 10, 99], tf.int64)),
            "names": names.lookup(tf.constant([1, 0, 7], tf.int64)),
            "floats": table.lookup(tf.constant(["b", "c", "a"])), "sparse_ids": ids.lookup(
                tf.SparseTensor([[0, 0], [1, 3]], tf.constant(["z", "zz"]), [2, 4]))}


def tensor_arrays(tf, extra):
    x = tf.constant(np.linspace(-1.0, 1.0, 15).reshape(5, 3))
    w = tf.constant(np.linspace(-0.5, 0.5, 9).reshape(3, 3))
    inputs = tf.TensorArray(tf.float64, size=5).unstack(x)

    def body(t, h, out):
        h = tf.tanh(inputs.read(t) + tf.reshape(tf.matmul(tf.expand_dims(h, 0), w), [3]))
        return t + 1, h, out.write(t, h)
    _, _, out = tf.while_loop(lambda t, h, out: t < 5, body,
                              (0, tf.zeros([3], tf.float64), tf.TensorArray(tf.float64, size=5)))
    seq = out.stack()
    parts = tf.TensorArray(tf.float64, size=2, clear_after_read=False, infer_shape=False).split(
        tf.reshape(x, [15]), [4, 11])
    mapped = tf.map_fn(lambda r: tf.reduce_sum(r ** 2), x)
    scanned = tf.scan(lambda acc, r: acc * 0.5 + r, x)
    loss = (tf.reduce_sum(seq * tf.constant([1.0, -1.0, 2.0], tf.float64)) + tf.reduce_sum(parts.concat() ** 2)
            + tf.reduce_sum(parts.read(1)) + tf.reduce_sum(mapped) + tf.reduce_sum(scanned ** 2))
    gx, gw = tf.gradients(loss, [x, w])
    return {"seq": seq, "concat": parts.concat(), "mapped": mapped, "scanned": scanned, "loss": loss,
            "d_x": gx, "d_w": gw}


def embeddings(tf, extra):
    params = tf.constant(np.arange(12.0).reshape(6, 2) / 3.0)
    ind = [[0, 0], [0, 1], [1, 0], [2, 0], [2, 1], [2, 2]]
    sp_ids = tf.SparseTensor(ind, tf.constant([1, 3, 5, 0, 0, 2], tf.int64), [3, 3])
    sp_w = tf.SparseTensor(ind, tf.constant([2.0, 1.0, 0.5, 1.0, 2.0, 3.0], tf.float64), [3, 3])
    outs = {}
    for combiner in ("sum", "mean", "sqrtn"):
        outs["plain_" + combiner] = tf.nn.embedding_lookup_sparse(params, sp_ids, None, combiner=combiner)
        outs["weighted_" + combiner] = tf.nn.embedding_lookup_sparse(params, sp_ids, sp_w, combiner=combiner)
    safe_ids = tf.SparseTensor([[0, 0, 0], [1, 1, 0], [1, 1, 1]], tf.constant([1, -1, 4], tf.int64), [2, 2, 2])
    outs["safe"] = tf.nn.safe_embedding_lookup_sparse(params, safe_ids)
    outs["safe_default"] = tf.nn.safe_embedding_lookup_sparse(params, safe_ids, default_id=2)
    loss = sum(tf.reduce_sum(o * float(k + 1)) for k, o in enumerate(outs.values()))
    loss = loss + tf.reduce_sum(tf.gather(params, [4, 4, 1]) ** 2)
    outs["d_params"] = tf.convert_to_tensor(tf.gradients(loss, params)[0])
    return outs


def optimizer_steps(tf, extra):
    """Three sparse steps of each optimizer on an embedding table (row 2 is never touched)."""
    outs = {}
    makers = {"sgd": lambda: tf.train.GradientDescentOptimizer(0.1),
              "momentum": lambda: tf.train.MomentumOptimizer(0.1, 0.9),
              "nesterov": lambda: tf.train.MomentumOptimizer(0.1, 0.9, use_nesterov=True),
              "adagrad": lambda: tf.train.AdagradOptimizer(0.1), "adadelta": lambda: tf.train.AdadeltaOptimizer(1.0),
              "adam": lambda: tf.train.AdamOptimizer(0.1),
              "rmsprop": lambda: tf.train.RMSPropOptimizer(0.1, momentum=0.5),
              "centered": lambda: tf.train.RMSPropOptimizer(0.1, centered=True),
              "ftrl": lambda: tf.train.FtrlOptimizer(0.1, l1_regularization_strength=0.01)}
    ids = [[0, 3, 3], [1, 3, 4], [0, 0, 4]]
    for name, make in makers.items():
        with tf.variable_scope(name):
            emb = tf.get_variable("emb", initializer=tf.constant(np.arange(10.0).reshape(5, 2) / 10.0))
            step = tf.placeholder(tf.int32, [])
            rows = tf.nn.embedding_lookup(emb, tf.gather(tf.constant(ids), step))
            train = make().minimize(tf.reduce_sum(tf.square(rows - 1.0)))
        outs[name] = (emb, train, step)
    return {"_train": outs, "_steps": len(ids)}


def errors(tf, extra):
    """Programs that must fail: name -> builder of the fetch (the JSON records where and how TF fails)."""
    def ta():
        return tf.TensorArray(tf.float32, size=2).write(0, 1.0)

    def table():
        return tf.lookup.StaticHashTable(tf.lookup.KeyValueTensorInitializer(["a"], [1]), -1)
    return {
        "sparse_add_static_shapes": lambda: tf.sparse.add(tf.SparseTensor([[0, 0]], [1.0], [2, 2]),
                                                          tf.SparseTensor([[0, 0]], [1.0], [3, 2])).values,
        "sparse_add_run_shapes": lambda: tf.sparse.add(
            tf.SparseTensor([[0, 0]], [1.0], tf.constant([2, 2], tf.int64) + 0),
            tf.SparseTensor([[0, 0]], [1.0], tf.constant([3, 2], tf.int64) + 0)).values,
        "sparse_reorder_dense": lambda: tf.sparse.reorder(tf.constant([1.0])),
        "ta_unwritten": lambda: ta().read(1), "ta_twice": lambda: ta().write(0, 2.0).flow,
        "ta_past_end": lambda: ta().write(2, 2.0).flow,
        "ta_wrong_dtype": lambda: ta().write(1, tf.constant(1)).flow,
        "table_uninitialized": lambda: table().lookup(tf.constant(["a"])),
        "table_key_dtype": lambda: table().lookup(tf.constant([1])),
        "sets_mismatch": lambda: tf.sets.intersection(tf.constant([[1, 2]]), tf.constant([[1], [2]]) + 0).values,
        "bitwise_float": lambda: tf.bitwise.bitwise_and(tf.constant(1.0), tf.constant(2.0)),
    }


def sparse_math(tf, extra):
    v = tf.constant(VALS, tf.float64)
    a = tf.SparseTensor(sorted(IND), v, [3, 3])
    row = tf.constant([[1.0, -2.0, 4.0]], tf.float64)
    data = tf.constant(np.linspace(-1.0, 2.0, 8).reshape(4, 2))
    idx, seg = [0, 3, 3, 1, 2], [0, 0, 2, 2, 3]
    outs = {"mul": a * row, "div": a / tf.constant(2.0, tf.float64),
            "seg_sum": tf.sparse.segment_sum(data, idx, seg),
            "seg_mean": tf.sparse.segment_mean(data, idx, seg, num_segments=5),
            "seg_sqrt_n": tf.sparse.segment_sqrt_n(data, idx, seg)}
    loss = (tf.reduce_sum((a * row).values * tf.constant([1.0, 2.0, 3.0, 4.0], tf.float64))
            + tf.reduce_sum((a / row).values ** 2) + tf.reduce_sum(outs["seg_mean"] ** 2)
            + tf.reduce_sum(outs["seg_sqrt_n"] * 3.0) + tf.reduce_sum(outs["seg_sum"] ** 3))
    dv, drow, ddata = tf.gradients(loss, [v, row, data])
    outs.update({"d_values": dv, "d_row": drow, "d_data": ddata})
    return outs


def variable_updates(tf, extra):
    v = tf.Variable(np.arange(8.0).reshape(4, 2), name="v")
    w = tf.Variable(np.zeros((2, 3)), name="w")
    ops = [tf.scatter_add(v, [0, 2, 0], np.ones((3, 2))), tf.scatter_mul(v, [1], [[2.0, 3.0]]),
           tf.scatter_max(v, [3], [[0.0, 100.0]]), tf.scatter_nd_sub(v, [[2, 1]], [5.0]),
           v.scatter_sub(tf.IndexedSlices(tf.constant([[1.0, 1.0]], tf.float64), tf.constant([3]))),
           tf.batch_scatter_update(w, [[0, 2], [1, 0]], [[1.0, 2.0], [3.0, 4.0]])]
    return {"_ops": ops, "_vars": [v, w]}




def value_json(v):
    """A fetched value as JSON-able data (SparseTensorValue as a dict of its parts)."""
    if hasattr(v, "indices") and hasattr(v, "dense_shape") and hasattr(v, "values"):
        return {"indices": value_json(v.indices), "values": value_json(v.values),
                "dense_shape": value_json(v.dense_shape)}
    if isinstance(v, (list, tuple)):
        return [value_json(x) for x in v]
    a = np.asarray(v)
    if a.dtype.kind in "SO":
        return {"str": [x.decode("utf-8", "replace") if isinstance(x, bytes) else str(x) for x in a.ravel().tolist()],
                "shape": list(a.shape)}
    return {"dtype": a.dtype.name, "shape": list(a.shape),
            "data": [None if np.isnan(x) else x for x in a.astype(np.float64).ravel().tolist()]}


def run_case(tf, extra, case):
    """Build case in a fresh graph and run it: name -> JSON-able value."""
    with tf.Graph().as_default():
        fetches = case(tf, extra)
        with tf.Session() as sess:
            sess.run(tf.tables_initializer())
            return {k: value_json(v) for k, v in sess.run(fetches).items()}


def run_optimizers(tf, extra):
    """Final tables after the optimizer_steps program."""
    with tf.Graph().as_default():
        built = optimizer_steps(tf, extra)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            for k in range(built["_steps"]):
                for emb, train, step in built["_train"].values():
                    sess.run(train, {step: k})
            return {name: value_json(sess.run(emb)) for name, (emb, _, _) in built["_train"].items()}


def run_variable_updates(tf, extra):
    """The variables after running the variable_updates ops once each, in order."""
    with tf.Graph().as_default():
        built = variable_updates(tf, extra)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            for op in built["_ops"]:
                sess.run(op)
            return [value_json(x) for x in sess.run(built["_vars"])]


def run_errors(tf, extra):
    """Where ('build' or 'run') and with which exception class each failing program fails."""
    out = {}
    for name, build in errors(tf, extra).items():
        with tf.Graph().as_default():
            try:
                fetch = build()
            except Exception as e:  # noqa: BLE001 - the class is what is recorded
                out[name] = ["build", type(e).__name__]
                continue
            with tf.Session() as sess:
                try:
                    sess.run(fetch)
                    out[name] = None
                except Exception as e:  # noqa: BLE001
                    out[name] = ["run", type(e).__name__]
    return out


def sparse_misc(tf, extra):
    a = tf.SparseTensor(sorted(IND) + [[2, 2]], tf.constant(VALS + [-4.0], tf.float64), [3, 4])
    ids = tf.SparseTensor([[0, 0], [0, 1], [1, 0]], tf.constant([3, 1, 0], tf.int64), [2, 2])
    vals = tf.SparseTensor([[0, 0], [0, 1], [1, 0]], tf.constant([0.5, 1.5, -1.0]), [2, 2])
    x = tf.constant(np.linspace(-1.0, 1.0, 6).reshape(2, 3), tf.float32)
    y = tf.constant(np.linspace(0.0, 2.0, 12).reshape(3, 4), tf.float32)
    slices = tf.IndexedSlices(tf.constant([[1.0], [2.0], [3.0]]), tf.constant([4, 7, 9]), tf.constant([10, 1]))
    masked = tf.sparse_mask(slices, [7])
    prod = tf.sparse_matmul(x, y, a_is_sparse=True)
    gx = tf.gradients(tf.reduce_sum(prod ** 2), x)[0]
    return {"sum_sparse_1": tf.sparse.reduce_sum_sparse(a, 1), "max_sparse_0": tf.sparse.reduce_max_sparse(a, 0),
            "sum_sparse_all": tf.sparse.reduce_sum_sparse(a),
            "sum_sparse_keep": tf.sparse.reduce_sum_sparse(a, 1, keepdims=True),
            "merge": tf.sparse_merge(ids, vals, 4), "mask_values": masked.values, "mask_indices": masked.indices,
            "matmul": prod, "d_matmul": gx}




def sparse_serialization(tf, extra):
    a = tf.SparseTensor([[0, 1, 0], [0, 2, 1], [2, 0, 0]], tf.constant([1.5, -2.0, 3.0]), [3, 4, 2])
    rows = tf.serialize_many_sparse(a)
    one = tf.serialize_sparse(tf.SparseTensor([[1]], tf.constant([7], tf.int64), [5]))
    back = tf.deserialize_many_sparse(rows, tf.float32)
    words = tf.deserialize_many_sparse(tf.stack([tf.serialize_sparse(
        tf.SparseTensor([[0]], tf.constant(["x"]), [1])), tf.serialize_sparse(
        tf.SparseTensor([[1], [2]], tf.constant(["y", "z"]), [3]))]), tf.string, rank=2)
    return {"back": back, "words": words, "n_rows": tf.shape(rows), "one_shape": tf.shape(one),
            "sum": tf.sparse.reduce_sum(back)}


def mutable_tables(tf, extra):
    words = tf.lookup.experimental.MutableHashTable(tf.string, tf.int64, -1)
    vecs = tf.lookup.experimental.MutableHashTable(tf.int64, tf.float32, [0.0, 0.0])
    dense = tf.lookup.experimental.DenseHashTable(tf.int64, tf.int64, -1, empty_key=0, deleted_key=-1)
    ins = tf.group(words.insert(["a", "b", "c"], tf.constant([1, 2, 3], tf.int64)),
                   vecs.insert(tf.constant([5, 6], tf.int64), [[1.0, 2.0], [3.0, 4.0]]),
                   dense.insert(tf.constant([3, 4], tf.int64), tf.constant([30, 40], tf.int64)))
    with tf.control_dependencies([ins]):
        rm = tf.group(words.remove(tf.constant(["b", "zz"])), dense.remove(tf.constant([4], tf.int64)))
    with tf.control_dependencies([rm]):
        return {"words": words.lookup(["a", "b", "c"]), "size": words.size() + 0,
                "vecs": vecs.lookup(tf.constant([6, 7], tf.int64)),
                "dense": dense.lookup(tf.constant([3, 4], tf.int64))}


def segments_and_scatter_extremes(tf, extra):
    data = tf.constant(np.array([[1.0, 2.0], [0.0, 3.0], [4.0, -1.0], [2.0, 0.5], [0.0, 0.0]]))
    ids = tf.constant([0, 2, 0, -1, 2])
    t = tf.constant(np.array([[1.0, 5.0], [2.0, 2.0], [0.0, -3.0]]))
    upd = tf.constant(np.array([3.0, 2.0, -5.0]))
    where = [[0, 0], [1, 1], [2, 1]]
    outs = {"mean": tf.math.unsorted_segment_mean(data, ids, 4),
            "sqrt_n": tf.math.unsorted_segment_sqrt_n(data, ids, 4),
            "prod": tf.math.unsorted_segment_prod(data, ids, 4),
            "max": tf.tensor_scatter_nd_max(t, where, upd), "min": tf.tensor_scatter_nd_min(t, where, upd)}
    w = tf.constant(np.arange(1.0, 9.0).reshape(4, 2))
    loss = (tf.reduce_sum(outs["mean"] * w) + tf.reduce_sum(outs["sqrt_n"] ** 2)
            + tf.reduce_sum(outs["prod"] * w) + tf.reduce_sum(outs["max"] * w[:3]) + tf.reduce_sum(outs["min"] ** 2))
    d_data, d_t, d_upd = tf.gradients(loss, [data, t, upd])
    outs.update({"d_data": d_data, "d_t": d_t, "d_upd": d_upd})
    return outs


def sparse_features(tf, extra):
    def example(ix, vals, ids):
        ex = tf.train.Example()
        ex.features.feature["ix"].int64_list.value.extend(ix)
        ex.features.feature["val"].float_list.value.extend(vals)
        ex.features.feature["ids"].int64_list.value.extend(ids)
        return ex.SerializeToString()
    batch = [example([3, 0], [1.5, 2.5], [7]), example([1], [7.0], []), example([], [], [1, 2])]
    spec = {"sp": tf.io.SparseFeature("ix", "val", tf.float32, 5),
            "sorted": tf.io.SparseFeature("ix", "val", tf.float32, 4, already_sorted=True),
            "ids": tf.io.VarLenFeature(tf.int64)}
    out = tf.parse_example(batch, spec)
    one = tf.parse_single_example(batch[0], {"sp": spec["sp"]})
    return {"sp": out["sp"], "sorted": out["sorted"], "ids": out["ids"], "keys": tf.constant(sorted(out)),
            "single": one["sp"]}


def crosses(tf, extra):
    a = tf.SparseTensor([[0, 0], [0, 1], [1, 0]], tf.constant(["a", "b", "c"]), [2, 2])
    b = tf.constant([["x", "y"], ["z", "w"]])
    c = tf.SparseTensor([[0, 0], [1, 0], [1, 1]], tf.constant([1, 2, 3], tf.int64), [2, 2])
    return {"cross": tf.sparse.cross([a, b, c]), "cross_dense_first": tf.sparse.cross([b, a]),
            "hashed": tf.sparse.cross_hashed([a, b, c], num_buckets=100),
            "hashed_raw": tf.sparse.cross_hashed([c, a]), "hashed_key": tf.sparse.cross_hashed([a], 7, hash_key=5)}


CASES = [sparse_forward, sparse_gradients, sets_and_bits, lookups, tensor_arrays, embeddings, sparse_math,
         sparse_misc, sparse_serialization, mutable_tables, segments_and_scatter_extremes, sparse_features,
         crosses]
