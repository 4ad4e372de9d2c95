"""tf.data.Iterator: one-shot, initializable, reinitializable and feedable (string handle) iterators."""
from lens.framework import dtypes as _dt
from lens.framework.convert import convert_to_tensor
from lens.data import structure as nest
from lens.data.ops import RESOURCE
from lens.framework.graph import Tensor, get_default_graph
from lens.framework.tensor_shape import as_shape


def _attrs(types, shapes, shared_name=""):
    return {"container": "", "shared_name": shared_name or "",
            "output_types": nest.flatten(types), "output_shapes": nest.flatten(shapes)}


class Iterator:
    """Gets elements of a dataset one `get_next()` run at a time (TF1's tf.data.Iterator)."""

    def __init__(self, iterator_resource, initializer, output_types, output_shapes, output_classes=None):
        self._iterator_resource = iterator_resource
        self._initializer = initializer
        self._types = output_types
        self._shapes = output_shapes
        self._classes = output_classes or nest.map_structure(lambda _: Tensor, output_types)

    # ---------------------------------------------------------------- construction
    @staticmethod
    def from_structure(output_types, output_shapes=None, shared_name=None, output_classes=None):
        """An iterator not bound to a dataset: bind one with make_initializer(dataset)."""
        types = nest.normalize_types(output_types)
        shapes = nest.normalize_shapes(output_shapes, types)
        g = get_default_graph()
        op = g._create_op("IteratorV2", [], [RESOURCE], _attrs(types, shapes, shared_name), "IteratorV2",
                          shapes=[[]], frames_skip=3)
        return Iterator(op._outputs[0], None, types, shapes, output_classes)

    @staticmethod
    def from_string_handle(string_handle, output_types, output_shapes=None, output_classes=None):
        """An iterator that reads from whichever iterator the fed string handle names."""
        types = nest.normalize_types(output_types)
        shapes = nest.normalize_shapes(output_shapes, types)
        handle = convert_to_tensor(string_handle, dtype=_dt.string)
        if not handle.shape.is_compatible_with([]):
            raise ValueError("string_handle must be a scalar string tensor, got shape %s" % handle.shape)
        op = handle.graph._create_op("IteratorFromStringHandleV2", [handle], [RESOURCE],
                                     {"output_types": nest.flatten(types),
                                      "output_shapes": nest.flatten(shapes)},
                                     "IteratorFromStringHandleV2", shapes=[[]], frames_skip=3)
        return Iterator(op._outputs[0], None, types, shapes, output_classes)

    # ---------------------------------------------------------------- API
    @property
    def initializer(self):
        """The op that (re)starts this iterator at the beginning of its dataset."""
        if self._initializer is None:
            raise ValueError("Iterator does not have an initializer. (One-shot iterators and "
                             "iterators from string handles start by themselves; iterators from "
                             "from_structure() get one per dataset with make_initializer(dataset).)")
        return self._initializer

    output_types = property(lambda self: self._types, doc="Structure of component DTypes.")
    output_shapes = property(lambda self: self._shapes, doc="Structure of component TensorShapes.")
    output_classes = property(lambda self: self._classes, doc="Structure of component classes.")

    def make_initializer(self, dataset, name=None):
        """An op that points this iterator at the start of dataset (same structure and types)."""
        nest.assert_same_structure(self._types, dataset.output_types,
                                   "make_initializer(): the dataset's structure differs from the iterator's")
        want_t, got_t = nest.flatten(self._types), nest.flatten(dataset.output_types)
        if want_t != got_t:
            raise TypeError("Expected output types %r but got dataset with output types %r."
                            % (self._types, dataset.output_types))
        want_s, got_s = nest.flatten(self._shapes), nest.flatten(dataset.output_shapes)
        if not all(as_shape(w).is_compatible_with(s) for w, s in zip(want_s, got_s)):
            raise TypeError("Expected output shapes compatible with %r but got dataset with output "
                            "shapes %r." % (self._shapes, dataset.output_shapes))
        g = self._iterator_resource.graph
        with g.as_default(), g.name_scope(name or "make_initializer") as scope:
            return g._create_op("MakeIterator", [dataset._variant_tensor, self._iterator_resource], [],
                                None, scope, frames_skip=3)

    def get_next(self, name=None):
        """Tensors of the next element (nested like output_types); OutOfRangeError at the end."""
        g = self._iterator_resource.graph
        flat_t, flat_s = nest.flatten(self._types), nest.flatten(self._shapes)
        op = g._create_op("IteratorGetNext", [self._iterator_resource], flat_t,
                          {"output_types": flat_t, "output_shapes": flat_s}, name or "IteratorGetNext",
                          shapes=flat_s, frames_skip=3)
        return nest.pack_as(self._types, op._outputs)

    def string_handle(self, name=None):
        """A scalar string tensor naming this iterator, to feed into from_string_handle()."""
        g = self._iterator_resource.graph
        op = g._create_op("IteratorToStringHandle", [self._iterator_resource], [_dt.string], None,
                          name or "IteratorToStringHandle", shapes=[[]], frames_skip=3)
        return op._outputs[0]

    def __iter__(self):
        raise RuntimeError("Iterator.__iter__() is only supported when eager execution is enabled; "
                           "in graph mode run iterator.get_next() in a session loop until "
                           "tf.errors.OutOfRangeError.")
