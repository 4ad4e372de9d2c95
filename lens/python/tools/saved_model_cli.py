"""`python -m lens.python.tools.saved_model_cli show|run`: TensorFlow's saved_model_cli on lens.

    show --dir D                                   the tag-sets
    show --dir D --tag_set serve                   the SignatureDef keys of one MetaGraphDef
    show --dir D --tag_set serve --signature_def K  one signature's inputs and outputs
    show --dir D --all                             every signature of every tag-set
    run  --dir D --tag_set serve --signature_def K --input_exprs 'x=[[1.0, 2.0, 3.0]]'
"""
import argparse
import ast
import sys

import numpy as np

from lens.proto import types_pb2
from lens.training.saved_model import loader

__all__ = ["main"]


def _meta_graphs(export_dir):
    return list(loader.read_saved_model(export_dir).meta_graphs)


def _tag_set(arg):
    return sorted(t.strip() for t in arg.split(",") if t.strip())


def _meta_for(export_dir, tag_set):
    metas = _meta_graphs(export_dir)
    for meta in metas:
        if sorted(meta.meta_info_def.tags) == tag_set:
            return meta
    raise RuntimeError("MetaGraphDef associated with tag-set %s could not be found in the SavedModel. Please use "
                       "one of the following tag-sets: %s"
                       % (",".join(tag_set), [",".join(sorted(m.meta_info_def.tags)) for m in metas]))


def _shape_text(info):
    if info.tensor_shape.unknown_rank:
        return "unknown_rank"
    dims = [d.size for d in info.tensor_shape.dim]
    return "(%s)" % (", ".join(str(d) for d in dims) + ("," if len(dims) == 1 else ""))


def _tensor_lines(kind, infos, indent):
    pad = " " * indent
    lines = []
    for key in sorted(infos):
        info = infos[key]
        lines.append("%s%s['%s'] tensor_info:" % (pad, kind, key))
        lines.append("%s    dtype: %s" % (pad, types_pb2.DataType.Name(info.dtype)))
        lines.append("%s    shape: %s" % (pad, _shape_text(info)))
        if info.WhichOneof("encoding") == "coo_sparse":
            lines.append("%s    name: %s" % (pad, info.coo_sparse.values_tensor_name))
        else:
            lines.append("%s    name: %s" % (pad, info.name))
    return lines


def signature_lines(sig, indent=0):
    """The inputs, outputs and method of one SignatureDef, as saved_model_cli prints them."""
    pad = " " * indent
    lines = [pad + "The given SavedModel SignatureDef contains the following input(s):"]
    lines += _tensor_lines("inputs", sig.inputs, indent + 2)
    lines.append(pad + "The given SavedModel SignatureDef contains the following output(s):")
    lines += _tensor_lines("outputs", sig.outputs, indent + 2)
    lines.append(pad + "Method name is: %s" % sig.method_name)
    return lines


def show(export_dir, tag_set=None, signature_def=None, show_all=False):
    """The text `saved_model_cli show` prints."""
    if show_all:
        out = []
        for meta in _meta_graphs(export_dir):
            tags = ",".join(sorted(meta.meta_info_def.tags))
            out.append("\nMetaGraphDef with tag-set: '%s' contains the following SignatureDefs:" % tags)
            for key in sorted(meta.signature_def):
                out.append("\nsignature_def['%s']:" % key)
                out += signature_lines(meta.signature_def[key], indent=2)
        return "\n".join(out)
    if tag_set is None:
        tags = [",".join(sorted(m.meta_info_def.tags)) for m in _meta_graphs(export_dir)]
        return "\n".join(["The given SavedModel contains the following tag-sets:"] + ["'%s'" % t for t in tags])
    meta = _meta_for(export_dir, _tag_set(tag_set))
    if signature_def is None:
        return "\n".join(["The given SavedModel MetaGraphDef contains SignatureDefs with the following keys:"]
                         + ['SignatureDef key: "%s"' % k for k in sorted(meta.signature_def)])
    if signature_def not in meta.signature_def:
        raise ValueError("Could not find signature \"%s\". Please choose from: %s"
                         % (signature_def, ", ".join(sorted(meta.signature_def))))
    return "\n".join(signature_lines(meta.signature_def[signature_def]))


def run(export_dir, tag_set, signature_def, input_exprs):
    """{output key: value} of running one signature on inputs given as Python literals ('x=[[1.0]]')."""
    import lens as tf
    feeds = {}
    for item in filter(None, (s.strip() for s in (input_exprs or "").split(";"))):
        key, _, expr = item.partition("=")
        feeds[key.strip()] = np.array(ast.literal_eval(expr.strip()))
    with tf.Graph().as_default(), tf.Session() as sess:
        meta = loader.load(sess, _tag_set(tag_set), export_dir)
        if signature_def not in meta.signature_def:
            raise ValueError("Could not find signature \"%s\". Please choose from: %s"
                             % (signature_def, ", ".join(sorted(meta.signature_def))))
        sig = meta.signature_def[signature_def]
        unknown = sorted(set(feeds) - set(sig.inputs))
        if unknown:
            raise ValueError('"%s" is not a valid input key. Please choose from %s'
                             % (unknown[0], ", ".join('"%s"' % k for k in sorted(sig.inputs))))
        keys = sorted(sig.outputs)
        values = sess.run([sig.outputs[k].name for k in keys], {sig.inputs[k].name: v for k, v in feeds.items()})
    return dict(zip(keys, values))


def main(argv=None):
    """Command line with saved_model_cli's subcommands and flag names."""
    ap = argparse.ArgumentParser(prog="python -m lens.python.tools.saved_model_cli", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="command", required=True)
    s = sub.add_parser("show", help="tag-sets, signatures and their tensors")
    s.add_argument("--dir", required=True)
    s.add_argument("--tag_set")
    s.add_argument("--signature_def")
    s.add_argument("--all", action="store_true")
    r = sub.add_parser("run", help="run one signature")
    r.add_argument("--dir", required=True)
    r.add_argument("--tag_set", required=True)
    r.add_argument("--signature_def", required=True)
    r.add_argument("--input_exprs", default="")
    args = ap.parse_args(argv)
    if args.command == "show":
        print(show(args.dir, args.tag_set, args.signature_def, args.all))
    else:
        for key, value in run(args.dir, args.tag_set, args.signature_def, args.input_exprs).items():
            print("Result for output key %s:\n%s" % (key, value))
    return 0


if __name__ == "__main__":
    sys.exit(main())
