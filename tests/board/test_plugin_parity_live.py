"""Live check: logs freshly written by lens.plugins' writers, read by TensorBoard 2.21 (in
process) and by lens, give the same answers on every plugin route (the recorded fixture can go
stale; this cannot)."""

import json
import os
import sys

import pytest

from conftest import load_provider
from lens.board.app import create_app
from plugin_parity_requests import PR, inferred_requests, main_requests
from tb_parity_compare import same_value
from tb_parity_harness import tensorboard_wsgi

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures"))
import make_plugin_logdir  # noqa: E402

from test_plugin_parity import MINE, _normalize  # noqa: E402


def _ask(client, request):
    if request["method"] == "POST":
        return client.post(request["url"], data=request["body"], content_type="application/json")
    return client.get(request["url"])


@pytest.mark.parametrize("layout", ["main", "inferred"])
def test_fresh_logs_answer_as_tensorboard(tmp_path, layout):
    from werkzeug.test import Client

    root = str(tmp_path)
    if layout == "main":
        make_plugin_logdir.write_pr(root)
        make_plugin_logdir.write_custom_scalars(root)
        make_plugin_logdir.write_experiment(root)
        make_plugin_logdir.write_sessions(root, "hp/")
    else:
        make_plugin_logdir.write_sessions(root, "")
    tb = Client(tensorboard_wsgi(root))
    lens = create_app(load_provider(root)).test_client()
    requests = main_requests(json.loads(tb.get(PR + "/tags").get_data())) \
        if layout == "main" else inferred_requests()
    for request in requests:
        theirs, ours = _ask(tb, request), _ask(lens, request)
        assert ours.status_code == theirs.status_code, request["url"]
        if theirs.status_code != 200:
            continue
        if theirs.mimetype != "application/json":
            assert ours.get_data(as_text=True) == theirs.get_data(as_text=True), request["url"]
            continue
        a, b = json.loads(ours.get_data()), json.loads(theirs.get_data())
        if request["url"] == "/data/plugins_listing":
            a, b = {k: a[k] for k in MINE}, {k: b[k] for k in MINE}
        same_value(_normalize(a), _normalize(b), request["url"])
