"""Large image and audio payloads stay in the event file until a page asks for them."""

import io
import os

import numpy as np
import pytest
from PIL import Image
from tensorboard.compat.proto import event_pb2, summary_pb2
from tensorboard.util import tensor_util

from lens.events.payload import FileRef
from lens.events.provider import DataProvider
from tests.events.loading_helpers import write_events


def _png(seed, size=48):
    pixels = (np.random.RandomState(seed).rand(size, size, 3) * 255).astype(np.uint8)
    out = io.BytesIO()
    Image.fromarray(pixels).save(out, format="PNG")
    return out.getvalue()


def _events():
    events = []
    for step in range(6):
        small, big = _png(step, 4), _png(step)
        legacy = summary_pb2.Summary.Value(tag="legacy", image=summary_pb2.Summary.Image(
            height=48, width=48, colorspace=3, encoded_image_string=big))
        tiny = summary_pb2.Summary.Value(tag="tiny", image=summary_pb2.Summary.Image(
            height=4, width=4, colorspace=3, encoded_image_string=small))
        tensor = summary_pb2.Summary.Value(tag="v2", tensor=tensor_util.make_tensor_proto(
            np.array([b"48", b"48", big, _png(step + 100)], dtype=object)))
        tensor.metadata.plugin_data.plugin_name = "images"
        clip = summary_pb2.Summary.Value(tag="clip", audio=summary_pb2.Summary.Audio(
            sample_rate=8000, num_channels=1, length_frames=2000,
            encoded_audio_string=b"RIFF" + bytes(range(256)) * 16, content_type="audio/wav"))
        events.append(event_pb2.Event(wall_time=100.0 + step, step=step, summary=summary_pb2.Summary(
            value=[legacy, tiny, tensor, clip])))
    return events


def _load(logdir, **kw):
    provider = DataProvider(logdir, reload_interval=0, **kw)
    provider.reload()
    return provider


def test_large_payloads_are_file_references_served_as_their_bytes(tmp_path):
    path = str(tmp_path / "logs" / "r" / "events.out.tfevents.1.x")
    write_events(path, _events())
    provider = _load(str(tmp_path / "logs"))
    blobs = provider._watcher.stores["r"].blobs
    kept = {tag: [img["encoded"] for _, _, imgs in blobs[(kind, tag)].items for img in imgs]
            for kind, tag in (("images", "legacy"), ("images", "tiny"), ("images", "v2"),
                              ("audio", "clip"))}
    assert all(isinstance(x, FileRef) for tag in ("legacy", "v2", "clip") for x in kept[tag])
    assert all(isinstance(x, bytes) for x in kept["tiny"])  # small ones stay in memory
    for step in range(6):
        imgs = [i for i in provider.images("r", "legacy") if i["step"] == step]
        assert imgs[0]["encoded"] == _png(step) and imgs[0]["content_type"] == "image/png"
        v2 = [i["encoded"] for i in provider.images("r", "v2") if i["step"] == step]
        assert v2 == [_png(step), _png(step + 100)]
    assert provider.images("r", "tiny")[0]["encoded"] == _png(0, 4)
    assert provider.audio("r", "clip")[0]["encoded"] == b"RIFF" + bytes(range(256)) * 16


def test_references_survive_a_warm_start(tmp_path):
    write_events(str(tmp_path / "logs" / "r" / "events.out.tfevents.1.x"), _events())
    logdir, cache = str(tmp_path / "logs"), str(tmp_path / "cache")
    cold = _load(logdir, cache_dir=cache)
    warm = _load(logdir, cache_dir=cache)
    assert warm._watcher.records_parsed == 0
    for tag in ("legacy", "v2", "tiny"):
        assert warm.images("r", tag) == cold.images("r", tag) == _load(logdir).images("r", tag)
    assert warm.audio("r", "clip") == cold.audio("r", "clip")


def test_a_file_changed_under_the_reference_is_refused(tmp_path):
    path = str(tmp_path / "logs" / "r" / "events.out.tfevents.1.x")
    write_events(path, _events())
    provider = _load(str(tmp_path / "logs"))
    with open(path, "r+b") as f:  # same size, other bytes in the middle
        f.seek(os.path.getsize(path) // 2)
        f.write(b"\xff" * 64)
    with pytest.raises(OSError, match="changed since it was read"):
        for tag in ("legacy", "v2"):
            provider.images("r", tag)
        provider.audio("r", "clip")
