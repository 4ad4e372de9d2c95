"""tf.estimator.inputs: numpy_input_fn and pandas_input_fn (TF1.15's arguments and checks).

TF1 fed these through queues; lens builds the same batches with tf.data (slices, an optional
shuffle buffer of queue_capacity, num_epochs repeats, then batches that may be short at the end
when num_epochs is set, as dequeue_up_to gives them)."""
import collections

import numpy as np

from lens.data.dataset import Dataset

__all__ = ["numpy_input_fn", "pandas_input_fn"]

_TARGET_KEY = "__target_key__"
_DIRECT_KEY = "__direct_np_input__"


def _check_shuffle(shuffle):
    if not isinstance(shuffle, bool):
        raise ValueError("shuffle must be provided and explicitly set as boolean (it is recommended to "
                         "set it as True for training); got {}".format(shuffle))


def _unique_target_key(features):
    key = _TARGET_KEY
    while key in features:
        key += "_n"
    return key


def _features_dict(x):
    if isinstance(x, dict):
        if not x:
            raise ValueError("x cannot be an empty dict")
        return collections.OrderedDict(sorted((k, np.asarray(v)) for k, v in x.items()))
    if isinstance(x, np.ndarray):
        if x.size == 0:
            raise ValueError("x cannot be an empty array")
        return collections.OrderedDict([(_DIRECT_KEY, x)])
    raise TypeError("x must be a dict or array; got {}".format(type(x).__name__))


def _batches(data, batch_size, num_epochs, shuffle, queue_capacity, seed):
    ds = Dataset.from_tensor_slices(dict(data))
    if shuffle:
        ds = ds.shuffle(queue_capacity, seed=seed)
    ds = ds.repeat(num_epochs)
    # Endless input gives only full batches (dequeue_many); a finite one ends with a short batch.
    ds = ds.batch(batch_size, drop_remainder=num_epochs is None)
    return ds.make_one_shot_iterator().get_next()


def numpy_input_fn(x, y=None, batch_size=128, num_epochs=1, shuffle=None, queue_capacity=1000,
                   num_threads=1):
    """An input_fn yielding (features, target) batches from dicts of NumPy arrays (or arrays)."""
    _check_shuffle(shuffle)

    def input_fn():
        data = _features_dict(x)
        feature_keys = list(data)
        if y is None:
            target_keys = None
        elif isinstance(y, dict):
            if not y:
                raise ValueError("y cannot be empty dict, use None instead.")
            ordered_y = collections.OrderedDict(sorted((k, np.asarray(v)) for k, v in y.items()))
            target_keys = list(ordered_y)
            duplicates = set(feature_keys) & set(target_keys)
            if duplicates:
                raise ValueError("{} duplicate keys are found in both x and y: {}".format(
                    len(duplicates), duplicates))
            data.update(ordered_y)
        else:
            target_keys = _unique_target_key(data)
            data[target_keys] = np.asarray(y)
        if len({v.shape[0] for v in data.values()}) != 1:
            shapes_x = {k: data[k].shape for k in feature_keys}
            if target_keys is None:
                shape_y = None
            elif isinstance(target_keys, str):
                shape_y = np.asarray(y).shape
            else:
                shape_y = {k: data[k].shape for k in target_keys}
            raise ValueError("Length of tensors in x and y is mismatched. All elements in x and y must "
                             "have the same length.\nShapes in x: {}\nShapes in y: {}\n".format(
                                 shapes_x, shape_y))
        batch = _batches(data, batch_size, num_epochs, shuffle, queue_capacity, None)
        features = batch[_DIRECT_KEY] if isinstance(x, np.ndarray) else \
            {k: batch[k] for k in feature_keys}
        if target_keys is None:
            return features
        if isinstance(target_keys, str):
            return features, batch[target_keys]
        return features, {k: batch[k] for k in target_keys}
    return input_fn


def pandas_input_fn(x, y=None, batch_size=128, num_epochs=1, shuffle=None, queue_capacity=1000,
                    num_threads=1, target_column="target"):
    """An input_fn over a pandas DataFrame (and an optional Series of targets)."""
    try:
        import pandas as pd
    except ImportError as e:
        raise TypeError("pandas_input_fn should not be called without pandas installed") from e
    _check_shuffle(shuffle)
    x = x.copy()
    if y is not None:
        if target_column in x:
            raise ValueError("Cannot use name %s for target column: DataFrame already has a column with "
                             "that name: %s" % (target_column, x.columns))
        if not np.array_equal(x.index, y.index):
            raise ValueError("Index for x and y are mismatched.\nIndex for x: %s\nIndex for y: %s\n"
                             % (x.index, y.index))
        if isinstance(y, pd.DataFrame):
            y_columns = [(c, "%s_%s" % (target_column, c)) for c in list(y)]
            target_column = [v for _, v in y_columns]
            x[target_column] = y
        else:
            x[target_column] = y
    data = {k: x[k].values for k in x.columns}

    def input_fn():
        batch = _batches(collections.OrderedDict(sorted(data.items())), batch_size, num_epochs,
                         shuffle, queue_capacity, None)
        if y is None:
            return batch
        if isinstance(target_column, list):
            target = {k: batch.pop(k) for k in target_column}
        else:
            target = batch.pop(target_column)
        return batch, target
    return input_fn
