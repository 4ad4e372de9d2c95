"""tf.estimator.Exporter, LatestExporter and FinalExporter: SavedModels from train_and_evaluate."""
import os
import shutil

__all__ = ["Exporter", "LatestExporter", "FinalExporter"]


class Exporter:
    """Exports a model after an evaluation; export() returns the export path (or None)."""

    @property
    def name(self):
        raise NotImplementedError

    def export(self, estimator, export_path, checkpoint_path, eval_result, is_the_final_export):
        raise NotImplementedError


class _SavedModelExporter(Exporter):
    def __init__(self, name, serving_input_receiver_fn, assets_extra=None, as_text=False):
        if not name:
            raise ValueError("`name` must be specified.")
        self._name, self._receiver_fn = name, serving_input_receiver_fn
        self._assets_extra, self._as_text = assets_extra, as_text

    name = property(lambda self: self._name)

    def _export(self, estimator, export_path, checkpoint_path):
        return estimator.export_saved_model(export_path, self._receiver_fn, assets_extra=self._assets_extra,
                                            as_text=self._as_text, checkpoint_path=checkpoint_path)


class FinalExporter(_SavedModelExporter):
    """Exports only after the final evaluation."""

    def export(self, estimator, export_path, checkpoint_path, eval_result, is_the_final_export):
        if not is_the_final_export:
            return None
        return self._export(estimator, export_path, checkpoint_path)


class LatestExporter(_SavedModelExporter):
    """Exports after every evaluation and keeps the newest exports_to_keep exports."""

    def __init__(self, name, serving_input_receiver_fn, assets_extra=None, as_text=False, exports_to_keep=5):
        super().__init__(name, serving_input_receiver_fn, assets_extra, as_text)
        if exports_to_keep is not None and exports_to_keep <= 0:
            raise ValueError("`exports_to_keep`, if provided, must be a positive number. Got %s" % exports_to_keep)
        self._exports_to_keep = exports_to_keep

    def export(self, estimator, export_path, checkpoint_path, eval_result, is_the_final_export):
        result = self._export(estimator, export_path, checkpoint_path)
        if self._exports_to_keep is not None:
            stamps = sorted(int(n) for n in os.listdir(export_path) if n.isdigit())
            for stamp in stamps[:-self._exports_to_keep]:
                shutil.rmtree(os.path.join(export_path, str(stamp)), ignore_errors=True)
        return result
