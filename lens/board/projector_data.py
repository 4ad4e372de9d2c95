"""The projector's data: each run's projector_config.pbtxt completed with its checkpoint's 2D
tensors (as TensorBoard's projector plugin does), tensors from checkpoints or tensor_path files,
and what went wrong per run or embedding (a missing checkpoint, tensor, or metadata rows that do
not match the tensor's) so that one bad item does not hide the rest."""

import os

import numpy as np
from google.protobuf import text_format

from lens.events.checkpoints.bundle import BundleIndex, CheckpointError, latest_checkpoint
from lens.proto.projector_config_pb2 import ProjectorConfig

PROJECTOR_FILENAME = "projector_config.pbtxt"
ASSETS_DIR = os.path.join("plugins", "projector")


class ProjectorError(ValueError):
    """A request the projector cannot answer; the message is TensorBoard's (a 400)."""


def asset_path(fpath, config_fpath):
    """fpath resolved against the config's directory; it must stay inside that directory."""
    config_dir = os.path.realpath(os.path.dirname(os.path.expanduser(config_fpath)))
    candidate = os.path.expanduser(fpath)
    if not os.path.isabs(candidate):
        candidate = os.path.join(config_dir, candidate)
    candidate = os.path.realpath(candidate)
    if os.path.commonpath([config_dir, candidate]) != config_dir:
        raise ProjectorError('Asset path "%s" resolves outside the config directory' % fpath)
    return candidate


def read_tensor_file(fpath, shape):
    """A tensor_path file: TSV rows of floats, or raw float32 when it is not text (needs shape)."""
    try:
        with open(fpath, encoding="utf-8") as f:
            rows = [list(map(float, line.rstrip("\n").split("\t"))) for line in f if line.rstrip("\n")]
        return np.array(rows, dtype=np.float32)
    except UnicodeDecodeError:
        if len(shape) != 2:
            raise ProjectorError("Tensor must be 2D, got shape %s (set tensor_shape for a binary "
                                 "tensor_path)" % list(shape)) from None
        return np.fromfile(fpath, dtype=np.float32).reshape(list(shape))


def _canonical(name):
    return name if ":" in name else name + ":0"


def find_embedding(config, name):
    """The EmbeddingInfo of a tensor name (':0' optional), or None."""
    for info in config.embeddings:
        if _canonical(info.tensor_name) == _canonical(name):
            return info
    return None


def _find_checkpoint(directory):
    return latest_checkpoint(directory) or latest_checkpoint(os.path.join(directory, os.pardir))


def _logdir_of(assets_dir):
    marker = os.sep + ASSETS_DIR + os.sep
    return os.path.abspath(os.path.join(assets_dir, os.pardir, os.pardir)) \
        if marker in assets_dir + os.sep else assets_dir


class Run:
    """One run's completed config, where it was read from, its checkpoint and its problems."""

    def __init__(self, config, config_fpath):
        self.config = config
        self.config_fpath = config_fpath
        self.reader = None
        self.errors = []                      # [{'tensor': name or None, 'error': message}]
        self.tensors = {}
        self.projections = {}                 # (name, method, dims) -> (points, variance)

    def checkpoint(self):
        if self.reader is None and self.config.model_checkpoint_path:
            self.reader = BundleIndex(self.config.model_checkpoint_path)
        return self.reader

    def tensor(self, name):
        """The float32 [N, D] tensor named name (ProjectorError with TensorBoard's message)."""
        if name in self.tensors:
            return self.tensors[name]
        info = find_embedding(self.config, name)
        if info is not None and info.tensor_path:
            fpath = asset_path(info.tensor_path, self.config_fpath)
            if not os.path.exists(fpath):
                raise ProjectorError('Tensor file "%s" does not exist' % fpath)
            tensor = read_tensor_file(fpath, info.tensor_shape)
        else:
            reader = None
            try:
                reader = self.checkpoint()
            except CheckpointError:
                pass
            if reader is None or not reader.has_tensor(name):
                raise ProjectorError('Tensor "%s" not found in checkpoint dir "%s"'
                                     % (name, self.config.model_checkpoint_path))
            try:
                tensor = reader.get_tensor(name)
            except CheckpointError as e:
                raise ProjectorError(str(e)) from None
        tensor = np.ascontiguousarray(tensor, dtype=np.float32)
        self.tensors[name] = tensor
        return tensor


def _read_config(path):
    config = ProjectorConfig()
    if os.path.exists(path):
        with open(path, encoding="utf-8") as f:
            text_format.Parse(f.read(), config)
    return config


def _candidates(run_dirs):
    pairs = list(run_dirs.items())
    for run, directory in list(pairs):
        assets = os.path.join(directory, ASSETS_DIR)
        if os.path.exists(os.path.join(assets, PROJECTOR_FILENAME)):
            pairs.append((run, os.path.abspath(assets)))
    return pairs


def load_runs(run_dirs):
    """(runs, problems): {run: Run} for runs with embeddings, and {run: message} for runs whose
    config names a checkpoint that is not there or cannot be read."""
    runs, problems = {}, {}
    for run, directory in _candidates(run_dirs):
        config_fpath = os.path.join(directory, PROJECTOR_FILENAME)
        try:
            config = _read_config(config_fpath)
        except (text_format.ParseError, UnicodeDecodeError) as e:
            problems[run] = "%s does not parse as a ProjectorConfig: %s" % (config_fpath, e)
            continue
        has_files = False
        for info in config.embeddings:
            if info.tensor_path:
                info.tensor_name = info.tensor_name or os.path.basename(info.tensor_path)
                has_files = True
                break
        if not config.model_checkpoint_path:
            ckpt = _find_checkpoint(_logdir_of(directory))
            if not ckpt and not has_files:
                continue
            if ckpt:
                config.model_checkpoint_path = ckpt
        if config.model_checkpoint_path and not _has_files(config.model_checkpoint_path):
            problems[run] = ('Checkpoint file "%s" not found (named by %s): save the model there or fix '
                             'model_checkpoint_path' % (config.model_checkpoint_path, config_fpath))
            continue
        runs[run] = Run(config, config_fpath)
    for run, entry in list(runs.items()):
        _complete(run, entry, problems)
        if not entry.config.embeddings:
            del runs[run]
    return runs, problems


def _has_files(prefix):
    directory, base = os.path.split(prefix)
    try:
        return any(name.startswith(base) for name in os.listdir(directory or "."))
    except OSError:
        return False


def _complete(run, entry, problems):
    """Fill in tensor shapes and the checkpoint's 2D tensors; note the embeddings' problems."""
    config = entry.config
    for info in config.embeddings:
        if info.tensor_name.endswith(":0"):
            info.tensor_name = info.tensor_name[:-2]
        if info.tensor_path:
            try:
                tensor = entry.tensor(info.tensor_name)
            except (ProjectorError, OSError, ValueError) as e:
                entry.errors.append({"tensor": info.tensor_name, "error": str(e)})
                continue
            if not info.tensor_shape:
                info.tensor_shape.extend(tensor.shape)
    try:
        reader = entry.checkpoint()
    except CheckpointError as e:
        problems[run] = "checkpoint %s cannot be read: %s" % (config.model_checkpoint_path, e)
        reader = None
    if reader is not None:
        special = None
        if config.embeddings and not config.embeddings[0].tensor_name:
            special = config.embeddings[0]
            config.embeddings.remove(special)
        for name, shape in reader.variable_to_shape_map().items():
            if len(shape) != 2 or ".OPTIMIZER_SLOT" in name:
                continue
            info = find_embedding(config, name)
            if info is None:
                info = config.embeddings.add(tensor_name=name)
                if special is not None:
                    info.metadata_path = special.metadata_path
                    info.bookmarks_path = special.bookmarks_path
            if not info.tensor_shape:
                info.tensor_shape.extend(shape)
    for info in config.embeddings:
        if not info.tensor_path and (reader is None or not reader.has_tensor(info.tensor_name)):
            entry.errors.append({"tensor": info.tensor_name, "error": 'Tensor "%s" not found in checkpoint '
                                 '"%s"' % (info.tensor_name, config.model_checkpoint_path)})
        elif info.metadata_path and info.tensor_shape:
            _check_metadata(entry, info)


def _check_metadata(entry, info):
    try:
        fpath = asset_path(info.metadata_path, entry.config_fpath)
        with open(fpath, encoding="utf-8") as f:
            lines = [line for line in f]
    except (ProjectorError, OSError, UnicodeDecodeError) as e:
        entry.errors.append({"tensor": info.tensor_name, "error": "metadata %s cannot be read: %s"
                             % (info.metadata_path, e)})
        return
    header = 1 if lines and "\t" in lines[0] else 0
    rows = len(lines) - header
    if rows != info.tensor_shape[0]:
        entry.errors.append({"tensor": info.tensor_name, "error": "metadata %s has %d rows but tensor %s has %d "
                             "points: write one metadata row per point (plus a header row when there are "
                             "several columns)" % (info.metadata_path, rows, info.tensor_name,
                                                   info.tensor_shape[0])})
