"""lens's custom scalar and TF1-era hparams writers write the bytes TensorBoard's writers write
under TensorFlow 2.21 (recorded by fixtures/make_tf_summary_fixture.py)."""
import base64
import json
import os
import sys

import pytest

import lens as tf
from lens.plugins import custom_scalar
from lens.plugins.hparams import summary as hs
from lens.proto import hparams_api_pb2, hparams_plugin_data_pb2 as plugin_data_pb2, summary_pb2

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "fixtures"))
from make_tf_summary_fixture import START, experiment, layout  # noqa: E402

with open(os.path.join(HERE, "fixtures", "tf_summaries.json")) as _f:
    EXPECTED = {k: base64.b64decode(v) for k, v in json.load(_f).items()}


@pytest.fixture(autouse=True)
def fresh_graph():
    tf.reset_default_graph()
    yield
    tf.reset_default_graph()


def test_custom_scalar_op_and_pb_bytes():
    assert custom_scalar.pb(layout(custom_scalar.layout_pb2)).SerializeToString() == \
        EXPECTED["custom_scalar_pb"]
    with tf.Session() as sess:
        assert sess.run(custom_scalar.op(layout(custom_scalar.layout_pb2))) == \
            EXPECTED["custom_scalar_op"]


def test_tf1_hparams_protos_bytes():
    infos, metrics = experiment(hparams_api_pb2)
    assert hs.experiment_pb(infos, metrics, user="me", description="d",
                            time_created_secs=5.0).SerializeToString() == EXPECTED["experiment_pb"]
    # A map's entries may serialize in any order: compare the parsed messages.
    ours = hs.session_start_pb(START, model_uri="m", monitor_url="u", group_name="g",
                               start_time_secs=6.0)
    theirs = summary_pb2.Summary.FromString(EXPECTED["session_start_pb"])
    assert ours.value[0].tag == theirs.value[0].tag and \
        ours.value[0].tensor == theirs.value[0].tensor
    content = [plugin_data_pb2.HParamsPluginData.FromString(v.value[0].metadata.plugin_data.content)
               for v in (ours, theirs)]
    assert content[0] == content[1] and content[0].session_start_info.hparams["layers"] \
        .string_value == "[1, 2]"
    assert hs.session_end_pb(hs.STATUS_FAILURE, end_time_secs=7.0).SerializeToString() == \
        EXPECTED["session_end_pb"]
