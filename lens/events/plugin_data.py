"""The provider's reads for plugin dashboards (PR curves, custom scalars, hparams): tags by
plugin with their metadata content, tensor series, and each scalar series' last point.

DataProvider mixes this in; it relies on the provider's `_lock`, `_store` and `_watcher`."""

import os

import numpy as np

from lens.events.fsio import filesystem

# Blob kinds the store keeps plugin tensors under (see RunStore._tensor).
_TENSOR_KINDS = ("pr_curves", "tensors")


class PluginDataMixin:
    """Plugin-agnostic reads: TensorBoard's list_tensors / read_tensors / read_last_scalars."""

    def plugin_tags(self, plugin):
        """{run: {tag: {'displayName', 'description', 'content': bytes}}} for every tag whose
        first metadata names `plugin` and that holds data (runs without such tags omitted)."""
        out = {}
        with self._lock:
            for run, store in sorted(self._watcher.stores.items()):
                entry = {}
                for tag, meta in store.metadata.items():
                    if meta.plugin_data.plugin_name != plugin:
                        continue
                    if not any((kind, tag) in store.blobs for kind in _TENSOR_KINDS) and \
                            tag not in store.scalars:
                        continue
                    entry[tag] = {"displayName": meta.display_name,
                                  "description": meta.summary_description,
                                  "content": bytes(meta.plugin_data.content)}
                if entry:
                    out[run] = dict(sorted(entry.items()))
        return out

    def tensors(self, run, tag):
        """[(wall_time, step, numpy array)] of a plugin tensor tag in step order."""
        with self._lock:
            store = self._store(run)
            kind = "pr_curves" if ("pr_curves", tag) in store.blobs else "tensors"
            items = self._blob(run, kind, tag)  # raises the provider's NotFound
        return [(wall, step, array) for step, wall, array in items]

    def run_dirs(self):
        """{run: local directory} for runs on the local filesystem, plus '.' for each plain logdir
        (plugins that read files beside the event files: the projector's config and checkpoints)."""
        out = {}
        with self._lock:
            runs = sorted(self._watcher.stores)
        for prefix, fs, root in self._watcher.roots:
            if fs is not filesystem(root)[0] or not os.path.isdir(root):
                continue
            if prefix is None:
                out.update({run: os.path.normpath(os.path.join(root, run)) for run in runs})
                out.setdefault(".", root)
            else:
                out.update({run: os.path.join(root, run[len(prefix) + 1:]) if run != prefix else root
                            for run in runs if run == prefix or run.startswith(prefix + "/")})
        return out

    def last_scalars(self, runs=None):
        """{run: {tag: (wall_time, step, value)}}: the last point (highest step) of every scalar
        tag of the given runs (all runs by default)."""
        out = {}
        with self._lock:
            stores = self._watcher.stores
            for run in (sorted(stores) if runs is None else runs):
                store = stores.get(run)
                if store is None:
                    continue
                entry = {}
                for tag, series in store.scalars.items():
                    if not series.n or not (series.simple or store.plugin_of(tag) == "scalars"):
                        continue
                    steps, walls, values = series.arrays()
                    entry[tag] = (float(walls[-1]), int(steps[-1]), float(values[-1]))
                if entry:
                    out[run] = entry
        return out


def text_scalar(array):
    """The single bytes value of a rank-0 string tensor (e.g. a custom scalar layout)."""
    flat = list(np.asarray(array, dtype=object).reshape(-1))
    if len(flat) != 1:
        raise ValueError("expected one string value, got %d" % len(flat))
    value = flat[0]
    return value if isinstance(value, bytes) else str(value).encode("utf-8")
