"""Live check against the installed TensorBoard on a longer logdir written during the test.

Forty Keras epochs put dozens of equal-length TF2 records in a row, the case that reaches the
reader's batched path; every run stays under TensorBoard's sampling limits (10 images, audio
clips and text steps, 51 histograms per series) so both sides serve every point.
"""

import importlib.util
import os

import pytest

from conftest import load_provider
from lens.board.app import create_app
from tb_parity_compare import check_answer
from tb_parity_harness import record, tensorboard_wsgi, wsgi_fetchers

_MAKER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures",
                      "make_tb_parity_logdir.py")


def _maker():
    spec = importlib.util.spec_from_file_location("make_tb_parity_logdir", _MAKER)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def long_logdir(tmp_path_factory):
    root = tmp_path_factory.mktemp("tb_parity_live")
    _maker().write_logdir(str(root), epochs=40, steps=5)
    return root


def test_every_route_answers_as_the_installed_tensorboard(long_logdir):
    get, post = wsgi_fetchers(tensorboard_wsgi(long_logdir))
    entries = record(get, post)
    scalars = next(e for e in entries
                   if e["url"].startswith("/data/plugin/scalars/scalars?run=train&tag=epoch_loss"))
    assert len(scalars["json"]) == 40  # TensorBoard itself read the whole long run
    lens = create_app(load_provider(long_logdir)).test_client()
    failures = []
    for entry in entries:
        try:
            check_answer(lens, entry)
        except AssertionError as exc:
            failures.append(str(exc).splitlines()[0][:300])
    assert not failures, "%d of %d answers differ:\n%s" % (len(failures), len(entries),
                                                           "\n".join(failures))
