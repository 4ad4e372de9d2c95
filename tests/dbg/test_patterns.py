"""Every regex a user hands the debugger goes through compile_regex: one clear error."""

import re

import numpy as np
import pytest

from lens.dbg.patterns import InvalidRegexError, compile_regex

tf = pytest.importorskip("lens")

DEEP = "(" * 5000


def test_compile_regex_errors_name_the_pattern_and_the_reason():
    assert compile_regex("a.*b").match("axxb")
    with pytest.raises(InvalidRegexError) as caught:
        compile_regex(DEEP, "--node_name_filter")
    message = str(caught.value)
    assert message == ('Invalid regular expression for --node_name_filter: "%s... '
                       '(5000 characters)": groups nested too deeply' % ("(" * 60))
    # Callers written for tfdbg catch re.error; lens code catches ValueError: both work.
    assert isinstance(caught.value, re.error) and isinstance(caught.value, ValueError)
    with pytest.raises(InvalidRegexError, match=r'"a\{99999999999\}": .*too large'):
        compile_regex("a{99999999999}")
    with pytest.raises(InvalidRegexError, match=r'^Invalid regular expression: "\[": '):
        compile_regex("[")


def test_api_entry_points_reject_bad_patterns_up_front(tmp_path):
    from lens import dbg as tf_debug
    from lens.dbg import debug_utils
    from lens.dbg.filters import FilterRegistry
    from lens.dbg.watch import FilterSink, Watch, WatchOptions
    from lens.proto import config_pb2
    graph = tf.Graph()
    with graph.as_default():
        tf.constant(np.ones(2, np.float32), name="c")
    with pytest.raises(InvalidRegexError, match="node_name_regex_allowlist"):
        debug_utils.watch_graph(config_pb2.RunOptions(), graph, debug_urls="file:///tmp/x",
                                node_name_regex_allowlist=DEEP)
    with pytest.raises(InvalidRegexError, match="op_type_regex_denylist"):
        debug_utils.watch_graph_with_denylists(config_pb2.RunOptions(), graph,
                                               debug_urls="file:///tmp/x",
                                               op_type_regex_denylist=DEEP)
    sink = FilterSink(tf_debug.has_inf_or_nan, lambda node: False)
    with pytest.raises(InvalidRegexError, match="tensor_dtype_regex_allowlist"):
        Watch(WatchOptions(tensor_dtype_regex_allowlist=DEEP), sink)
    with pytest.raises(InvalidRegexError, match="allowed_inf_nodes"):
        FilterRegistry().allow_nodes([DEEP])
    with pytest.raises(InvalidRegexError, match="thread_name_filter"):
        tf_debug.DumpingDebugWrapperSession(tf.Session(graph=graph), str(tmp_path / "r"),
                                            thread_name_filter=DEEP)
    with pytest.raises(InvalidRegexError, match="thread_name_filter"):
        tf_debug.LocalCLIDebugHook(ui_type="readline", thread_name_filter=DEEP)


def test_dump_find_rejects_a_bad_exclude_pattern(mlp_dump_dir):
    from lens.dbg.filters import has_inf_or_nan
    with pytest.raises(InvalidRegexError, match="exclude_node_names"):
        mlp_dump_dir.find(has_inf_or_nan, exclude_node_names=DEEP)
