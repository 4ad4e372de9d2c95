"""`from lens.python.tools import inspect_checkpoint`: print a checkpoint's tensors, as TF1.15's tool.

    python -m lens.python.tools.inspect_checkpoint --file_name=run/model.ckpt-100 [--tensor_name=w] [--all_tensors]
"""
import argparse
import re
import sys

import numpy as np

from lens.training.checkpoint_reader import NewCheckpointReader

__all__ = ["print_tensors_in_checkpoint_file"]


def _count_total_params(reader, count_exclude_pattern=""):
    """Elements in every tensor whose name does not match count_exclude_pattern."""
    pattern = re.compile(count_exclude_pattern) if count_exclude_pattern else None
    return sum(int(np.prod(shape, dtype=np.int64)) for name, shape in reader.get_variable_to_shape_map().items()
               if pattern is None or not pattern.search(name))


def print_tensors_in_checkpoint_file(file_name, tensor_name, all_tensors, all_tensor_names=False,
                                     count_exclude_pattern=""):
    """Print one tensor, all of them (names and values), or the names, dtypes and shapes."""
    try:
        reader = NewCheckpointReader(file_name)
        if all_tensors or all_tensor_names:
            for key in sorted(reader.get_variable_to_shape_map()):
                print("tensor_name: ", key)
                if all_tensors:
                    print(reader.get_tensor(key))
        elif not tensor_name:
            print(reader.debug_string().decode("utf-8"))
        else:
            print("tensor_name: ", tensor_name)
            print(reader.get_tensor(tensor_name))
        print("# Total number of params: %d" % _count_total_params(reader, count_exclude_pattern))
    except Exception as e:  # as TF1's tool: report, never raise
        print(str(e))
        if any(ext in file_name for ext in (".index", ".meta", ".data")):
            print("It's likely that this is a V2 checkpoint and you need to provide the filename *prefix*.  "
                  "Try removing the '.' and extension.  Try: inspect checkpoint --file_name = %s"
                  % ".".join(file_name.split(".")[:-1]))


def main(argv=None):
    """Command line, with TF1's flag names."""
    ap = argparse.ArgumentParser(prog="python -m lens.python.tools.inspect_checkpoint", description=__doc__)
    ap.add_argument("--file_name", required=True, help="checkpoint prefix (no .index/.data)")
    ap.add_argument("--tensor_name", default="", help="one tensor to print")
    ap.add_argument("--all_tensors", action="store_true", help="print every tensor's value")
    ap.add_argument("--all_tensor_names", action="store_true", help="print every tensor's name")
    ap.add_argument("--count_exclude_pattern", default="", help="regex of names left out of the param count")
    args = ap.parse_args(argv)
    print_tensors_in_checkpoint_file(args.file_name, args.tensor_name, args.all_tensors, args.all_tensor_names,
                                     args.count_exclude_pattern)
    return 0


if __name__ == "__main__":
    sys.exit(main())
