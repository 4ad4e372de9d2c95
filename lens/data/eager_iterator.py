"""Iterating a dataset while executing eagerly: `for x in dataset` and tf.contrib.eager.Iterator."""
from lens.framework import errors
from lens.framework import eager
from lens.framework.convert import convert_to_tensor
from lens.data import structure as nest


class EagerIterator:
    """Yields a dataset's elements as eager tensors (TF's eager iterator; `tfe.Iterator`)."""

    def __init__(self, dataset):
        if not eager.executing_eagerly():
            raise RuntimeError("tf.contrib.eager.Iterator can only be used when eager execution is enabled; "
                               "in graph mode use dataset.make_one_shot_iterator().")
        # The dataset op already ran: its variant tensor holds the dataset object itself.
        self._elements = iter(eager.value_of(dataset._variant_tensor).iterate())
        self._types = dataset.output_types
        self._shapes = dataset.output_shapes
        self._classes = dataset.output_classes

    output_types = property(lambda self: self._types, doc="Structure of component DTypes.")
    output_shapes = property(lambda self: self._shapes, doc="Structure of component TensorShapes.")
    output_classes = property(lambda self: self._classes, doc="Structure of component classes.")

    def __iter__(self):
        return self

    def __next__(self):
        element = next(self._elements)
        flat_types = nest.flatten(self._types)
        if len(flat_types) == 1 and not isinstance(element, tuple):
            element = (element,)
        tensors = [convert_to_tensor(v, dtype=dt) for v, dt in zip(element, flat_types)]
        return nest.pack_as(self._types, tensors)

    def next(self):
        """The next element (StopIteration at the end)."""
        return self.__next__()

    def get_next(self, name=None):
        """The next element; OutOfRangeError at the end (as TF's)."""
        try:
            return self.__next__()
        except StopIteration:
            raise errors.OutOfRangeError(None, None, "End of sequence") from None


Iterator = EagerIterator
