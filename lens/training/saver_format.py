"""lens's earlier checkpoint format (still read) and TF's `checkpoint` state file (read, write, latest).

Saver writes TensorFlow's tensor bundle (lens/training/bundle.py) since issue 14. Checkpoints written
before in the lens checkpoint format (version 1) still restore; `_write_data` keeps writing it for
tests of that. Saving to the prefix P (e.g. `/run/model.ckpt-100`) wrote:

* `P.npz`   -- the values: an uncompressed NumPy .npz archive, one array per saved tensor under the
               key given in the index (`t0`, `t1`, ...); string tensors are stored as fixed-width bytes
               arrays. Loaded with allow_pickle=False: a checkpoint never runs code.
* `P.index` -- UTF-8 JSON written after the data (its presence marks a complete checkpoint):
               {"format": "lens-checkpoint", "version": 1, "data_file": "<basename of P>.npz",
                "tensors": [{"name": <checkpoint name>, "key": "t0", "dtype": "float32",
                             "shape": [2, 3]}, ...]}
               Checkpoint names are the variables' op names (`dense/kernel`, `w/Adam`), or the
               keys of a var_list dict.
* `P.meta`  -- a binary MetaGraphDef (TensorFlow's field numbers) holding the GraphDef and the SaverDef.

Next to the checkpoints, the `checkpoint` file is TensorFlow's text-format CheckpointState:
    model_checkpoint_path: "model.ckpt-100"
    all_model_checkpoint_paths: "model.ckpt-90"
    all_model_checkpoint_paths: "model.ckpt-100"
    all_model_checkpoint_timestamps: 1700000000.5 ...
    last_preserved_timestamp: 1699999000.1
Every file is written to a temporary name and renamed, so a crash never leaves a torn checkpoint.
"""
import codecs
import json
import os
import numpy as np

from lens.framework import errors
from lens.framework import dtypes as _dt

__all__ = ["latest_checkpoint", "get_checkpoint_state", "update_checkpoint_state", "CheckpointState",
           "checkpoint_exists", "get_checkpoint_mtimes", "remove_checkpoint", "generate_checkpoint_state_proto"]

FORMAT, VERSION = "lens-checkpoint", 1


# ------------------------------------------------------------------ files
def _atomic_write(path, data):
    tmp = "%s.tmp%d" % (path, os.getpid())
    with open(tmp, "wb") as f:
        f.write(data if isinstance(data, bytes) else data.encode("utf-8"))
    os.replace(tmp, path)


def _write_data(prefix, named_values):
    """Write P.npz then P.index for {name: array}."""
    arrays, entries = {}, []
    for i, (name, value) in enumerate(named_values):
        arr = np.asarray(value)
        dtype = _dt.as_dtype(arr.dtype).name if arr.dtype.kind != "O" else "string"
        if dtype == "string":
            arr = np.array([x if isinstance(x, bytes) else str(x).encode() for x in arr.ravel()],
                           dtype=bytes).reshape(arr.shape)
        key = "t%d" % i
        arrays[key] = arr
        entries.append({"name": name, "key": key, "dtype": dtype, "shape": list(arr.shape)})
    tmp = "%s.npz.tmp%d" % (prefix, os.getpid())
    with open(tmp, "wb") as f:
        np.savez(f, **arrays)
    os.replace(tmp, prefix + ".npz")
    index = {"format": FORMAT, "version": VERSION, "data_file": os.path.basename(prefix) + ".npz",
             "tensors": entries}
    _atomic_write(prefix + ".index", json.dumps(index, indent=1))


def _read_index(prefix):
    """The parsed index of checkpoint prefix; ValueError when prefix is not a lens checkpoint."""
    if not os.path.exists(prefix + ".index"):
        raise ValueError("The passed save_path is not a valid checkpoint: %s. Pass the prefix given to "
                         "Saver.save (e.g. tf.train.latest_checkpoint(dir)), without .index/.npz." % prefix)
    try:
        with open(prefix + ".index", encoding="utf-8") as f:
            index = json.load(f)
    except ValueError as e:
        raise errors.DataLossError(None, None, "Checkpoint index %s.index is not valid JSON: %s" % (prefix, e))
    if index.get("format") != FORMAT or index.get("version") != VERSION:
        raise errors.DataLossError(None, None, "%s.index is not a lens checkpoint index version %d (format %r, "
                                   "version %r)" % (prefix, VERSION, index.get("format"), index.get("version")))
    return index


def _read_values(prefix, index, names):
    """{name: array} for names (all present in index) from the checkpoint's .npz."""
    by_name = {e["name"]: e for e in index["tensors"]}
    path = os.path.join(os.path.dirname(prefix), index["data_file"])
    try:
        with np.load(path, allow_pickle=False) as data:
            out = {}
            for n in names:
                arr = data[by_name[n]["key"]]
                out[n] = arr.astype(object) if by_name[n]["dtype"] == "string" else arr
            return out
    except (OSError, KeyError, ValueError) as e:
        raise errors.DataLossError(None, None, "Cannot read checkpoint data %s: %s" % (path, e))


def _marker_file(prefix):
    """The file whose presence marks a complete checkpoint: P.index (V2, lens), or a V1 file or shard."""
    import glob
    if os.path.exists(prefix + ".index"):
        return prefix + ".index"
    if os.path.isfile(prefix):
        return prefix
    shards = glob.glob(glob.escape(prefix) + "-[0-9][0-9][0-9][0-9][0-9]-of-[0-9][0-9][0-9][0-9][0-9]")
    return sorted(shards)[0] if shards else None


def checkpoint_exists(checkpoint_prefix):
    """True when a checkpoint with this prefix exists (V2 bundle, TensorFlow's V1 file, or lens's .npz)."""
    return _marker_file(os.fspath(checkpoint_prefix)) is not None


def get_checkpoint_mtimes(checkpoint_prefixes):
    """Modification times of the checkpoints that exist."""
    return [os.path.getmtime(_marker_file(p)) for p in checkpoint_prefixes if checkpoint_exists(p)]


def remove_checkpoint(checkpoint_prefix, checkpoint_format_version=None, meta_graph_suffix="meta"):
    """Delete the files of a checkpoint (missing files are ignored)."""
    import glob
    data = glob.glob(glob.escape(checkpoint_prefix) + ".data-?????-of-?????")
    for path in [checkpoint_prefix + ".index"] + data + [checkpoint_prefix + s for s in (".npz", "." + meta_graph_suffix)]:
        try:
            os.remove(path)
        except FileNotFoundError:
            pass


# ------------------------------------------------------------------ the `checkpoint` state file
class CheckpointState:
    """TensorFlow's CheckpointState message (the `checkpoint` file)."""

    def __init__(self, model_checkpoint_path="", all_model_checkpoint_paths=(),
                 all_model_checkpoint_timestamps=(), last_preserved_timestamp=0.0):
        self.model_checkpoint_path = model_checkpoint_path
        self.all_model_checkpoint_paths = list(all_model_checkpoint_paths)
        self.all_model_checkpoint_timestamps = list(all_model_checkpoint_timestamps)
        self.last_preserved_timestamp = last_preserved_timestamp

    def __str__(self):
        def q(s):
            return '"%s"' % codecs.escape_encode(s.encode("utf-8"))[0].decode("ascii").replace('"', '\\"')
        lines = ["model_checkpoint_path: " + q(self.model_checkpoint_path)]
        lines += ["all_model_checkpoint_paths: " + q(p) for p in self.all_model_checkpoint_paths]
        lines += ["all_model_checkpoint_timestamps: %r" % float(t) for t in self.all_model_checkpoint_timestamps]
        if self.last_preserved_timestamp:
            lines.append("last_preserved_timestamp: %r" % float(self.last_preserved_timestamp))
        return "\n".join(lines) + "\n"

    @classmethod
    def parse(cls, text, path="checkpoint"):
        """Parse the text format; ValueError naming the file and line on anything unexpected."""
        state = cls()
        for lineno, line in enumerate(text.splitlines(), 1):
            line = line.strip()
            if not line:
                continue
            key, sep, value = line.partition(":")
            value = value.strip()
            try:
                if key in ("model_checkpoint_path", "all_model_checkpoint_paths"):
                    if len(value) < 2 or value[0] != '"' or value[-1] != '"':
                        raise ValueError("expected a quoted string")
                    s = codecs.escape_decode(value[1:-1].encode("utf-8"))[0].decode("utf-8")
                    if key == "model_checkpoint_path":
                        state.model_checkpoint_path = s
                    else:
                        state.all_model_checkpoint_paths.append(s)
                elif key == "all_model_checkpoint_timestamps":
                    state.all_model_checkpoint_timestamps.append(float(value))
                elif key == "last_preserved_timestamp":
                    state.last_preserved_timestamp = float(value)
                else:
                    raise ValueError("unknown field %r" % key)
            except ValueError as e:
                raise ValueError("%s:%d: cannot parse %r as a CheckpointState line: %s. Fix or delete the file "
                                 "(Saver.save rewrites it)." % (path, lineno, line, e)) from None
        return state


def _state_path(checkpoint_dir, latest_filename):
    return os.path.join(checkpoint_dir, latest_filename or "checkpoint")


def generate_checkpoint_state_proto(save_dir, model_checkpoint_path, all_model_checkpoint_paths=None,
                                    all_model_checkpoint_timestamps=None, last_preserved_timestamp=None,
                                    save_relative_paths=False):
    """The CheckpointState `checkpoint` files hold; the model path is always the last of all paths."""
    paths = list(all_model_checkpoint_paths or [])
    if not paths or paths[-1] != model_checkpoint_path:
        paths.append(model_checkpoint_path)

    def rel(p):
        # As TF1: relative paths (or save_relative_paths) are written relative to save_dir.
        if save_relative_paths or not os.path.isabs(p):
            return os.path.relpath(p, save_dir) if os.path.isabs(p) == os.path.isabs(save_dir) else p
        return p
    return CheckpointState(rel(model_checkpoint_path), [rel(p) for p in paths],
                           all_model_checkpoint_timestamps or (), last_preserved_timestamp or 0.0)


def update_checkpoint_state(save_dir, model_checkpoint_path, all_model_checkpoint_paths=None,
                            latest_filename=None, all_model_checkpoint_timestamps=None,
                            last_preserved_timestamp=None, save_relative_paths=False):
    """Write the `checkpoint` file; the model path is always the last of all paths."""
    state = generate_checkpoint_state_proto(save_dir, model_checkpoint_path, all_model_checkpoint_paths,
                                            all_model_checkpoint_timestamps, last_preserved_timestamp,
                                            save_relative_paths)
    _atomic_write(_state_path(save_dir, latest_filename), str(state))


def get_checkpoint_state(checkpoint_dir, latest_filename=None):
    """The CheckpointState in checkpoint_dir (relative paths made relative to it), or None."""
    path = _state_path(checkpoint_dir, latest_filename)
    if not os.path.exists(path):
        return None
    with open(path, encoding="utf-8") as f:
        state = CheckpointState.parse(f.read(), path)
    if not state.model_checkpoint_path:
        raise ValueError("Invalid checkpoint state loaded from %s: no model_checkpoint_path" % path)

    def absolute(p):
        return p if os.path.isabs(p) else os.path.join(checkpoint_dir, p)
    state.model_checkpoint_path = absolute(state.model_checkpoint_path)
    state.all_model_checkpoint_paths = [absolute(p) for p in state.all_model_checkpoint_paths]
    return state


def latest_checkpoint(checkpoint_dir, latest_filename=None):
    """The prefix of the newest checkpoint in checkpoint_dir, or None when there is none."""
    state = get_checkpoint_state(checkpoint_dir, latest_filename)
    if state and checkpoint_exists(state.model_checkpoint_path):
        return state.model_checkpoint_path
    return None
