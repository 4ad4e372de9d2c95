"""The framework layer: dtypes, shapes, errors, the op registry, Graph/Operation/Tensor, conversion, GraphDefs, devices."""
