"""Run-time dataset values: what dataset ops compute; each can start fresh element iterators.

An element is a tuple of numpy arrays (the flattened components). Iteration is lazy and pulls
one element at a time, so infinite datasets (repeat()) and files larger than memory work.
"""
import numpy as np

from lens.framework import errors


def _invalid(msg):
    return errors.InvalidArgumentError(None, None, msg)


def scalar_int(value, what):
    """A Python int from a 0-d tensor value; InvalidArgumentError naming what otherwise."""
    arr = np.asarray(value)
    if arr.ndim != 0 or arr.dtype.kind not in "iu":
        raise _invalid("%s must be an integer scalar, got %r" % (what, value))
    return int(arr)


class DatasetValue:
    """Base: `iterate()` returns a new iterator over elements (tuples of numpy arrays)."""

    def iterate(self):
        raise NotImplementedError


class TensorSlices(DatasetValue):
    """Elements are the rows (first-dimension slices) of each component."""

    def __init__(self, components):
        if any(np.ndim(c) == 0 for c in components):
            raise _invalid("from_tensor_slices needs components of rank >= 1 to slice, got a scalar")
        sizes = {np.shape(c)[0] for c in components}
        if len(sizes) > 1:
            raise _invalid("Dimension 0 in all from_tensor_slices components must be equal, got "
                           "sizes %s; slice tensors with the same number of rows"
                           % [np.shape(c)[0] for c in components])
        self.components = [np.asarray(c) for c in components]
        self.size = sizes.pop()

    def iterate(self):
        comps = self.components
        # c[i, ...] keeps a 0-d ndarray for 1-d components (c[i] would be a numpy scalar).
        return (tuple(c[i, ...] for c in comps) for i in range(self.size))


class Tensors(DatasetValue):
    """A single element: the components themselves."""

    def __init__(self, components):
        self.components = tuple(np.asarray(c) for c in components)

    def iterate(self):
        return iter([self.components])


class Range(DatasetValue):
    """int64 scalars start, start+step, ... up to stop (exclusive)."""

    def __init__(self, start, stop, step):
        self.start, self.stop = scalar_int(start, "start"), scalar_int(stop, "stop")
        self.step = scalar_int(step, "step")
        if self.step == 0:
            raise _invalid("step must be a non-zero integer (Dataset.range got step=0)")

    def iterate(self):
        return ((np.array(i, dtype=np.int64),) for i in range(self.start, self.stop, self.step))


class Zip(DatasetValue):
    """Elements of several datasets side by side; ends with the shortest."""

    def __init__(self, inputs):
        self.inputs = inputs

    def iterate(self):
        its = [d.iterate() for d in self.inputs]
        while True:
            out = []
            for it in its:
                try:
                    out.extend(next(it))
                except StopIteration:
                    return
            yield tuple(out)


class Concatenate(DatasetValue):
    """All elements of the first dataset, then all of the second."""

    def __init__(self, first, second):
        self.first, self.second = first, second

    def iterate(self):
        yield from self.first.iterate()
        yield from self.second.iterate()


class Map(DatasetValue):
    """fn applied to each element (fn: tuple of arrays -> tuple of arrays)."""

    def __init__(self, inp, fn):
        self.inp, self.fn = inp, fn

    def iterate(self):
        return _MapIterator(self.inp.iterate(), self.fn)


class _MapIterator:
    """fn over an iterator; unlike a generator it stays usable after fn raises (ignore_errors skips on)."""

    def __init__(self, it, fn):
        self.it, self.fn = it, fn

    def __iter__(self):
        return self

    def __next__(self):
        return self.fn(next(self.it))


class Filter(DatasetValue):
    """The elements for which pred(element) is true."""

    def __init__(self, inp, pred):
        self.inp, self.pred = inp, pred

    def iterate(self):
        pred = self.pred
        return (e for e in self.inp.iterate() if bool(pred(e)[0]))


def _stack(elements, k):
    """Stack component k of the elements; InvalidArgumentError when their shapes differ."""
    first = np.shape(elements[0][k])
    for j, e in enumerate(elements):
        if np.shape(e[k]) != first:
            raise _invalid("Cannot batch tensors with different shapes in component %d. First element "
                           "had shape %s and element %d had shape %s. Use padded_batch() for "
                           "variable-length elements." % (k, list(first), j, list(np.shape(e[k]))))
    return np.stack([e[k] for e in elements])


def _chunks(it, size, drop_remainder):
    """Lists of up to size consecutive elements (only full ones when drop_remainder)."""
    while True:
        chunk = []
        for e in it:
            chunk.append(e)
            if len(chunk) == size:
                break
        if not chunk or (drop_remainder and len(chunk) < size):
            return
        yield chunk
        if len(chunk) < size:
            return


class Batch(DatasetValue):
    """Consecutive elements stacked along a new first dimension."""

    def __init__(self, inp, batch_size, drop_remainder):
        self.inp = inp
        self.size = scalar_int(batch_size, "batch_size")
        if self.size <= 0:
            raise _invalid("batch_size must be greater than zero, got %d" % self.size)
        self.drop = bool(np.asarray(drop_remainder))

    def iterate(self):
        rows = _row_source(self.inp)
        if rows is not None:
            # Fast path: gather whole batches of rows at once instead of stacking elements.
            comps = self.inp.components if isinstance(self.inp, TensorSlices) else self.inp.inp.components
            for chunk in _chunks(rows, self.size, self.drop):
                idx = np.fromiter(chunk, dtype=np.intp, count=len(chunk))
                yield tuple(c[idx] for c in comps)
            return
        for chunk in _chunks(self.inp.iterate(), self.size, self.drop):
            yield tuple(_stack(chunk, k) for k in range(len(chunk[0])))


def _row_source(ds):
    """An iterator of row numbers when ds is TensorSlices (or a shuffle of one), else None."""
    if isinstance(ds, TensorSlices):
        return iter(range(ds.size))
    if isinstance(ds, Shuffle):
        return ds.row_indices()
    return None


class PaddedBatch(DatasetValue):
    """Like Batch, padding each component up to its padded shape (-1: the longest in the batch)."""

    def __init__(self, inp, batch_size, padded_shapes, padding_values, drop_remainder):
        self.inp = inp
        self.size = scalar_int(batch_size, "batch_size")
        if self.size <= 0:
            raise _invalid("batch_size must be greater than zero, got %d" % self.size)
        self.shapes = [np.asarray(s, dtype=np.int64).reshape(-1) for s in padded_shapes]
        self.values = padding_values
        self.drop = bool(np.asarray(drop_remainder))

    def iterate(self):
        for chunk in _chunks(self.inp.iterate(), self.size, self.drop):
            yield tuple(self._pad(chunk, k) for k in range(len(chunk[0])))

    def _pad(self, chunk, k):
        want = self.shapes[k]
        shapes = np.array([np.shape(e[k]) for e in chunk], dtype=np.int64).reshape(len(chunk), -1)
        if shapes.shape[1] != len(want):
            raise _invalid("padded_shapes[%d] has rank %d but component %d has rank %d"
                           % (k, len(want), k, shapes.shape[1]))
        longest = shapes.max(axis=0) if len(chunk) else np.zeros(len(want), np.int64)
        target = np.where(want < 0, longest, want)
        too_big = np.nonzero((shapes > target).any(axis=1))[0]
        if too_big.size:
            raise _invalid("Attempted to pad to a smaller size than the input element: component %d "
                           "of element %d has shape %s, padded shape is %s"
                           % (k, too_big[0], shapes[too_big[0]].tolist(), target.tolist()))
        first = np.asarray(chunk[0][k])
        out = np.full((len(chunk),) + tuple(int(d) for d in target), self.values[k], dtype=first.dtype)
        for j, e in enumerate(chunk):
            v = np.asarray(e[k])
            out[(j,) + tuple(slice(0, d) for d in v.shape)] = v
        return out


class Shuffle(DatasetValue):
    """TF's buffered shuffle: fill a buffer, emit a random entry, refill its slot."""

    def __init__(self, inp, buffer_size, rng_for_iteration):
        self.inp = inp
        self.buffer_size = scalar_int(buffer_size, "buffer_size")
        if self.buffer_size <= 0:
            raise _invalid("buffer_size must be greater than zero, got %d" % self.buffer_size)
        self.rng_for_iteration = rng_for_iteration

    def iterate(self):
        return _buffered_shuffle(self.inp.iterate(), self.buffer_size, self.rng_for_iteration())

    def row_indices(self):
        """Shuffled row numbers when the input is a TensorSlices (same draws as iterate())."""
        if not isinstance(self.inp, TensorSlices):
            return None
        return _buffered_shuffle(iter(range(self.inp.size)), self.buffer_size, self.rng_for_iteration())


def _buffered_shuffle(it, buffer_size, rng):
    """Fill a buffer, emit a random entry, refill its slot from the input."""
    buf = []
    for e in it:
        buf.append(e)
        if len(buf) == buffer_size:
            break
    # Uniforms are drawn in blocks: one Generator call per element would dominate the cost.
    draws, pos = (), 0
    while buf:
        if pos == len(draws):
            draws, pos = rng.random(256).tolist(), 0
        i = int(draws[pos] * len(buf))
        pos += 1
        out = buf[i]
        try:
            buf[i] = next(it)
        except StopIteration:
            buf[i] = buf[-1]
            buf.pop()
        yield out


class Repeat(DatasetValue):
    """The input dataset count times (count -1: forever); each pass is a fresh iteration."""

    def __init__(self, inp, count):
        self.inp, self.count = inp, scalar_int(count, "count")

    def iterate(self):
        n = 0
        while self.count < 0 or n < self.count:
            produced = False
            for e in self.inp.iterate():
                produced = True
                yield e
            if not produced:
                return  # an empty input repeated forever is still empty
            n += 1


class Take(DatasetValue):
    """At most count elements (count -1: all)."""

    def __init__(self, inp, count):
        self.inp, self.count = inp, scalar_int(count, "count")

    def iterate(self):
        if self.count < 0:
            return self.inp.iterate()
        return (e for _, e in zip(range(self.count), self.inp.iterate()))


class Skip(DatasetValue):
    """All but the first count elements (count -1: skip everything)."""

    def __init__(self, inp, count):
        self.inp, self.count = inp, scalar_int(count, "count")

    def iterate(self):
        it = self.inp.iterate()
        n = 0
        for e in it:
            if self.count >= 0 and n >= self.count:
                yield e
            n += 1


class Cache(DatasetValue):
    """Remembers the elements of the first complete pass; later passes replay them."""

    def __init__(self, inp):
        self.inp, self.cached = inp, None

    def iterate(self):
        if self.cached is not None:
            yield from self.cached
            return
        seen = []
        for e in self.inp.iterate():
            seen.append(e)
            yield e
        self.cached = seen


class FlatMap(DatasetValue):
    """fn maps each element to a dataset; their elements follow one another."""

    def __init__(self, inp, fn):
        self.inp, self.fn = inp, fn

    def iterate(self):
        for e in self.inp.iterate():
            yield from self.fn(e).iterate()


class Interleave(DatasetValue):
    """fn maps elements to datasets; cycle_length of them are read block_length at a time."""

    def __init__(self, inp, fn, cycle_length, block_length):
        self.inp, self.fn = inp, fn
        self.cycle = scalar_int(cycle_length, "cycle_length")
        self.block = scalar_int(block_length, "block_length")
        if self.cycle <= 0 or self.block <= 0:
            raise _invalid("cycle_length and block_length must be positive, got %d and %d"
                           % (self.cycle, self.block))

    def iterate(self):
        # TF's order: visit slots round robin; an empty slot opens the next input element in
        # place; an exhausted one is closed and the cycle moves on.
        src = self.inp.iterate()
        slots = [None] * self.cycle
        open_count, end_of_input, i = 0, False, 0
        while not end_of_input or open_count:
            if slots[i] is not None:
                taken = 0
                for e in slots[i]:
                    yield e
                    taken += 1
                    if taken == self.block:
                        break
                else:
                    slots[i] = None
                    open_count -= 1
                i = (i + 1) % self.cycle
            elif not end_of_input:
                try:
                    slots[i] = iter(self.fn(next(src)).iterate())
                    open_count += 1
                except StopIteration:
                    end_of_input = True
            else:
                i = (i + 1) % self.cycle
