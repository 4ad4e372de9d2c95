"""Estimator.export_saved_model: the PREDICT graph of a checkpoint as a SavedModel (TF1.15's layout:
`<export_dir_base>/<timestamp>/saved_model.pb` + `variables/`, written under a temporary name)."""
import os
import shutil
import time

from lens.estimator.export import PredictOutput, build_all_signature_defs
from lens.estimator.model_fn import ModeKeys
from lens.framework.graph import GraphKeys, get_collection
from lens.training import saver as saver_lib
from lens.training.monitored_scaffold import Scaffold
from lens.training.saved_model import signature_constants as sc
from lens.training.saved_model import tag_constants
from lens.training.saved_model.builder import SavedModelBuilder


def timestamped_export_dir(export_dir_base):
    """export_dir_base/<seconds since epoch> that does not exist yet (waits a second if taken)."""
    for _ in range(10):
        path = os.path.join(os.fspath(export_dir_base), str(int(time.time())))
        if not os.path.exists(path):
            return path
        time.sleep(1)
    raise RuntimeError("Failed to obtain a unique export directory name after 10 attempts.")


def export_saved_model(estimator, export_dir_base, serving_input_receiver_fn, assets_extra=None,
                       as_text=False, checkpoint_path=None):
    """Export the estimator's PREDICT graph with the checkpoint's variables; returns the dir as bytes."""
    if not serving_input_receiver_fn:
        raise ValueError("An input_receiver_fn must be defined.")
    checkpoint_path = checkpoint_path or estimator.latest_checkpoint()
    if not checkpoint_path:
        raise ValueError("Couldn't find trained model at {}.".format(estimator.model_dir))
    g = estimator._new_graph()
    with g.as_default():
        receiver = serving_input_receiver_fn()
        spec = estimator._call_model_fn(receiver.features, None, ModeKeys.PREDICT, estimator.config)
        outputs = spec.export_outputs
        if outputs is None:
            outputs = {sc.DEFAULT_SERVING_SIGNATURE_DEF_KEY: PredictOutput(spec.predictions)}
        signatures = build_all_signature_defs(receiver.receiver_tensors, outputs)
        export_dir = timestamped_export_dir(export_dir_base)
        from lens.client.session import Session
        with Session(graph=g, config=estimator.config.session_config) as sess:
            restorer = spec.scaffold.saver or saver_lib.Saver(sharded=True)
            restorer.restore(sess, checkpoint_path)
            local_init_op = spec.scaffold.local_init_op or Scaffold.default_local_init_op()
            builder = SavedModelBuilder(export_dir)
            builder.add_meta_graph_and_variables(
                sess, [tag_constants.SERVING], signature_def_map=signatures,
                assets_collection=get_collection(GraphKeys.ASSET_FILEPATHS), main_op=local_init_op,
                strip_default_attrs=True)
            builder.save(as_text)
    if assets_extra:
        extra_dir = os.path.join(export_dir, "assets.extra")
        for dest, source in assets_extra.items():
            target = os.path.join(extra_dir, dest)
            os.makedirs(os.path.dirname(target), exist_ok=True)
            shutil.copyfile(source, target)
    return os.fsencode(export_dir)
