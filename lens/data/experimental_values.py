"""Run-time values and op registrations behind tf.data.experimental's own dataset ops."""
import numpy as np

from lens.framework import errors
from lens.framework.registry import register_op
from lens.data import values as V
from lens.data.values import DatasetValue, _invalid

INFINITE = -1
UNKNOWN = -2


class Unbatch(DatasetValue):
    """Each element split along its first dimension into that many elements."""

    def __init__(self, inp):
        self.inp = inp

    def iterate(self):
        for e in self.inp.iterate():
            sizes = {np.shape(c)[0] if np.ndim(c) else None for c in e}
            if None in sizes or len(sizes) != 1:
                raise _invalid("unbatch() needs every component to have the same size in its first dimension, "
                               "got shapes %s" % [list(np.shape(c)) for c in e])
            for i in range(sizes.pop()):
                yield tuple(np.asarray(c[i]) for c in e)


class Scan(DatasetValue):
    """fn(state, element) -> (new state, output) threaded through the input."""

    def __init__(self, inp, fn, initial, n_state):
        self.inp, self.fn, self.initial, self.n_state = inp, fn, tuple(initial), n_state

    def iterate(self):
        state = self.initial
        for e in self.inp.iterate():
            out = self.fn(state + tuple(e))
            out = out if isinstance(out, tuple) else (out,)
            state, result = out[:self.n_state], out[self.n_state:]
            yield result


class TakeWhile(DatasetValue):
    """Elements up to (not including) the first for which pred is false."""

    def __init__(self, inp, pred):
        self.inp, self.pred = inp, pred

    def iterate(self):
        for e in self.inp.iterate():
            if not bool(np.asarray(self.pred(e)).reshape(-1)[0]):
                return
            yield e


class Unique(DatasetValue):
    """Each distinct element once, at its first occurrence."""

    def __init__(self, inp):
        self.inp = inp

    def iterate(self):
        seen = set()
        for e in self.inp.iterate():
            key = np.asarray(e[0]).item()
            if key not in seen:
                seen.add(key)
                yield e


class DirectedInterleave(DatasetValue):
    """Elements of datasets[i] for each index i of the selector; exhausted inputs are skipped."""

    def __init__(self, selector, datasets):
        self.selector, self.datasets = selector, datasets

    def iterate(self):
        its = [d.iterate() for d in self.datasets]
        live = [True] * len(its)
        for (i,) in self.selector.iterate():
            i = int(i)
            if not 0 <= i < len(its):
                raise _invalid("Selector index out of range: %d (there are %d datasets)" % (i, len(its)))
            if not live[i]:
                if not any(live):
                    return
                continue
            try:
                yield next(its[i])
            except StopIteration:
                live[i] = False
                if not any(live):
                    return


class RandomInts(DatasetValue):
    """Endless int64 pseudo-random numbers (a new stream each pass unless seeded)."""

    def __init__(self, seed, seed2):
        self.seeds = (int(seed), int(seed2))

    def iterate(self):
        rng = np.random.default_rng(list(self.seeds) if self.seeds != (0, 0) else None)
        while True:
            yield (np.int64(rng.integers(0, 2 ** 63 - 1)),)


def cardinality_of(value):
    """The number of elements of a dataset value, INFINITE (-1) or UNKNOWN (-2) when it cannot tell."""
    c = _cardinality(value)
    return UNKNOWN if c is None else c


def _cardinality(v):
    own = getattr(v, "cardinality", None)
    if callable(own):
        return own()
    t = type(v)
    if t is V.TensorSlices:
        return int(np.shape(v.components[0])[0]) if v.components else 0
    if t is V.Tensors:
        return 1
    if t is V.Range:
        return len(range(v.start, v.stop, v.step)) if hasattr(v, "start") else None
    if t in (V.Shuffle, V.Cache, Scan):     # TF1's map does not keep cardinality (UNKNOWN, as TF says)
        return _cardinality(v.inp)
    if t is V.Zip:
        sizes = [_cardinality(d) for d in v.inputs]
        known = [s for s in sizes if s is not None and s != INFINITE]
        if known:
            return min(known)
        return INFINITE if sizes and all(s == INFINITE for s in sizes) else None
    if t is V.Concatenate:
        a, b = _cardinality(v.first), _cardinality(v.second)
        if INFINITE in (a, b):
            return INFINITE
        return None if a is None or b is None else a + b
    if t is V.Repeat:
        n, count = _cardinality(v.inp), v.count
        if count < 0:
            return 0 if n == 0 else INFINITE
        return None if n is None else (INFINITE if n == INFINITE else n * count)
    if t is V.Take:
        n = _cardinality(v.inp)
        if v.count < 0:
            return n
        return v.count if n == INFINITE else (None if n is None else min(n, v.count))
    if t is V.Skip:
        n = _cardinality(v.inp)
        if n is None or n == INFINITE:
            return n
        return 0 if v.count < 0 else max(0, n - v.count)
    if t in (V.Batch, V.PaddedBatch):
        n = _cardinality(v.inp)
        if n is None or n == INFINITE:
            return n
        return n // v.size if v.drop else -(-n // v.size)
    if t is RandomInts:
        return INFINITE
    return None


def _fn(op, ctx):
    return op._attrs["_fn"].runner(ctx, op)


def _register(op_type, build, stateful=False):
    register_op(op_type, make=lambda op, ctx: lambda *args: build(op, ctx, *args), not_differentiable=True,
                shape=lambda op: [()], stateful=stateful)


_register("UnbatchDataset", lambda op, ctx, d: Unbatch(d))
_register("ScanDataset", lambda op, ctx, d, *init: Scan(d, _fn(op, ctx), init, op._attrs["_n_state"]))
_register("TakeWhileDataset", lambda op, ctx, d: TakeWhile(d, _fn(op, ctx)))
_register("UniqueDataset", lambda op, ctx, d: Unique(d))
_register("DirectedInterleaveDataset", lambda op, ctx, sel, *ds: DirectedInterleave(sel, ds))
_register("RandomDataset", lambda op, ctx, seed, seed2: RandomInts(seed, seed2))
register_op("DatasetCardinality", fn=lambda d: np.int64(cardinality_of(d)), not_differentiable=True,
            shape=lambda op: [()])


def _single_element(op, ctx):
    def run(dataset):
        it = iter(dataset.iterate())
        try:
            element = next(it)
        except StopIteration:
            raise errors.InvalidArgumentError(None, op, "Dataset was empty.") from None
        try:
            next(it)
        except StopIteration:
            return element[0] if len(element) == 1 else element
        raise errors.InvalidArgumentError(None, op, "Dataset had more than one element.")
    return run


register_op("DatasetToSingleElement", make=_single_element, not_differentiable=True, stateful=True)


def _to_tfrecord(op, ctx):
    def run(dataset, filename, compression):
        from lens.events.tfrecord import TFRecordWriter, TFRecordOptions
        name = np.asarray(filename, dtype=object)[()]
        comp = np.asarray(compression, dtype=object)[()]
        comp = comp.decode() if isinstance(comp, bytes) else str(comp)
        path = name.decode() if isinstance(name, bytes) else str(name)
        with TFRecordWriter(path, TFRecordOptions(comp or None)) as w:
            for element in dataset.iterate():
                w.write(bytes(np.asarray(element[0], dtype=object)[()]))
    return run


register_op("DatasetToTFRecord", make=_to_tfrecord, not_differentiable=True, stateful=True)
