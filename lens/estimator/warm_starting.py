"""tf.estimator.WarmStartSettings: start training from another model's checkpoint.

The chosen variables are restored from ckpt_to_initialize_from by a Saver the scaffold runs
in place of their initializers, so a model_dir that already has its own checkpoint restores
that instead (as TF1's warm start does)."""
import collections
import os
import re

from lens.framework.graph import GraphKeys, get_collection
from lens.training import saver as saver_lib
from lens.training.monitored_scaffold import Scaffold

__all__ = ["WarmStartSettings", "VocabInfo"]


class VocabInfo(collections.namedtuple("VocabInfo", ["new_vocab", "new_vocab_size", "num_oov_buckets",
                                                     "old_vocab", "old_vocab_size", "backup_initializer",
                                                     "axis"])):
    """Vocabulary remapping for warm-starting (not supported by lens)."""

    def __new__(cls, new_vocab, new_vocab_size, num_oov_buckets, old_vocab, old_vocab_size=-1,
                backup_initializer=None, axis=0):
        return super().__new__(cls, new_vocab, new_vocab_size, num_oov_buckets, old_vocab,
                               old_vocab_size, backup_initializer, axis)


class WarmStartSettings(collections.namedtuple("WarmStartSettings", [
        "ckpt_to_initialize_from", "vars_to_warm_start", "var_name_to_vocab_info",
        "var_name_to_prev_var_name"])):
    """Which checkpoint, which variables (regex over trainables by default), and renames."""

    def __new__(cls, ckpt_to_initialize_from, vars_to_warm_start=".*", var_name_to_vocab_info=None,
                var_name_to_prev_var_name=None):
        if not ckpt_to_initialize_from:
            raise ValueError("`ckpt_to_initialize_from` MUST be set in WarmStartSettings")
        return super().__new__(cls, ckpt_to_initialize_from, vars_to_warm_start,
                               var_name_to_vocab_info or {}, var_name_to_prev_var_name or {})


def _variables_to_warm_start(spec):
    if spec is None:
        return []
    if isinstance(spec, str):
        return [v for v in get_collection(GraphKeys.TRAINABLE_VARIABLES) if re.match(spec, v.op.name)]
    chosen = []
    for item in spec:
        if isinstance(item, str):
            chosen.extend(v for v in get_collection(GraphKeys.GLOBAL_VARIABLES)
                          if re.match(item, v.op.name) and v not in chosen)
        else:
            chosen.append(item)
    return chosen


def _checkpoint_path(ckpt):
    if os.path.isdir(ckpt):
        path = saver_lib.latest_checkpoint(ckpt)
        if not path:
            raise ValueError("No checkpoint found in warm-start directory {}".format(ckpt))
        return path
    return ckpt


def warm_start_scaffold(scaffold, settings):
    """A Scaffold whose init_fn restores the warm-started variables from the settings' checkpoint."""
    if settings.var_name_to_vocab_info:
        raise NotImplementedError("WarmStartSettings.var_name_to_vocab_info (vocabulary remapping) is not "
                                  "supported by lens")
    path = _checkpoint_path(settings.ckpt_to_initialize_from)
    in_ckpt = dict(saver_lib.list_variables(path))
    var_list = {}
    for var in _variables_to_warm_start(settings.vars_to_warm_start):
        name = var.op.name
        prev = settings.var_name_to_prev_var_name.get(name, name)
        if prev not in in_ckpt:
            raise ValueError("Tensor {} is not found in {} checkpoint (warm-starting variable {}); map it "
                             "with var_name_to_prev_var_name or leave it out of vars_to_warm_start".format(
                                 prev, path, name))
        if list(in_ckpt[prev]) != var.shape.as_list():
            raise ValueError("Shape of variable {} ({}) doesn't match with shape of tensor {} ({}) from "
                             "checkpoint reader.".format(name, var.shape.as_list(), prev, list(in_ckpt[prev])))
        var_list[prev] = var
    if not var_list:
        return scaffold
    restorer = saver_lib.Saver(var_list=var_list, name="warm_start")
    user_init_fn = scaffold._user_init_fn

    def init_fn(scaffold_, session):
        if user_init_fn is not None:
            user_init_fn(scaffold_, session)
        restorer.restore(session, path)
    return Scaffold(copy_from_scaffold=scaffold, init_fn=init_fn)
