"""Pure tests of the graph dashboard's model: hierarchy, series, embeddings, extraction,
structure templates, devices, edge labels, run-metadata stats, node info and attr limits."""

import pytest

from lens.board.graph_info import limit_attr_size, node_info
from lens.board.graph_model import GraphModel, output_shapes, parse_input
from lens.board.graph_model_edges import aggregate, shape_label
from lens.board.graph_stats import node_stats
from lens.proto import graph_pb2
from tests.board.graph_fixtures import (GraphBuilder, generated_graph, mlp_graph,
                                        run_metadata_for)


@pytest.fixture(scope="module")
def mlp():
    return GraphModel(mlp_graph())


def test_parse_input_forms():
    assert parse_input("a/b") == ("a/b", 0, False)
    assert parse_input("a/b:3") == ("a/b", 3, False)
    assert parse_input("^init") == ("init", -1, True)


def test_shape_labels_like_tensorboard():
    assert shape_label([-1, 784]) == "?×784"
    assert shape_label([]) == "scalar"
    assert shape_label(None) == "?"


def test_scopes_become_collapsed_metanodes_and_ops_that_are_scopes_are_renamed(mlp):
    root = mlp.nodes[""]
    assert root["children"][:6] == ["x", "labels", "layer1", "layer2", "loss", "gradients"]
    assert mlp.nodes["layer1"]["kind"] == "meta"
    # 'layer1/weights' is both an op and a scope: it becomes 'layer1/weights/(weights)'.
    assert "layer1/weights/(weights)" in mlp.nodes["layer1/weights"]["children"]
    assert mlp.nodes["layer1/weights/(weights)"]["name"] == "layer1/weights"
    assert mlp.resolve("layer1/weights") == "layer1/weights"          # the scope wins as path
    assert mlp.ops["layer1/weights"].path == "layer1/weights/(weights)"


def test_series_grouping_add_1_to_12(mlp):
    grads = mlp.nodes["gradients"]
    assert grads["children"] == ["gradients/Fill", "gradients/add_[1-12]"]
    series = mlp.nodes["gradients/add_[1-12]"]
    assert series["kind"] == "series" and series["label"] == "add_[1-12]"
    assert series["children"] == [f"gradients/add_{k}" for k in range(1, 13)]
    assert series["count"] == 12
    assert ["gradients/add_1", "gradients/add_2", 1, 0, "scalar", 1.0, [], []] in series["edges"]


def _chain(names, op="Add"):
    b = GraphBuilder()
    b.op("src", "Placeholder", shapes=((3,),))
    for n in names:
        b.op(n, op, ["src"], ((3,),))
    return GraphModel(b.graph)


def test_series_needs_five_consecutive_members():
    four = _chain([f"s/add_{k}" for k in range(1, 5)])
    assert not any(n["kind"] == "series" for n in four.nodes.values())
    split = _chain([f"s/add_{k}" for k in (1, 2, 3, 4, 5, 7, 8, 9)])
    assert split.nodes["s"]["children"] == ["s/add_[1-5]", "s/add_7", "s/add_8", "s/add_9"]
    mixed = GraphBuilder()
    for k in range(1, 7):   # same prefix but different op types never group
        mixed.op(f"m/op_{k}", "Add" if k % 2 else "Mul", shapes=((),))
    assert not any(n["kind"] == "series" for n in GraphModel(mixed.graph).nodes.values())


def test_constants_and_summaries_are_embedded(mlp):
    assert mlp.nodes["loss/Mean"]["embed_in"] == ["loss/Const"]
    assert mlp.nodes["loss/Const"]["embedded_in"] == "loss/Mean"
    assert "loss/Const" not in mlp.nodes["loss"]["children"]
    assert mlp.nodes["layer1/Relu"]["embed_out"] == ["layer1/activations/(activations)"]
    # The summary's own scope is emptied by embedding and is not drawn.
    assert mlp.nodes["layer1/activations"]["empty"]
    assert "layer1/activations" not in mlp.nodes["layer1"]["children"]
    # A constant with two consumers stays a node.
    b = GraphBuilder()
    b.op("c", "Const", shapes=((),))
    b.op("a", "Add", ["c", "c"], ((),))
    b.op("m", "Mul", ["c", "a"], ((),))
    assert "embedded_in" not in GraphModel(b.graph).nodes["c"]


def test_edges_are_aggregated_with_shape_labels_and_dotted_control(mlp):
    edges = {(e[0], e[1]): e for e in mlp.nodes[""]["edges"]}
    assert edges[("x", "layer1")] == ["x", "layer1", 1, 0, "?×784", 784.0, [], ["layer1/MatMul"]]
    assert edges[("loss", "gradients")][2:5] == [13, 0, "13 tensors"]
    assert edges[("layer1", "init")][2:4] == [0, 2]        # control only: drawn dotted
    # Without _output_shapes the size is unknown (thickness then follows the edge count).
    assert aggregate([("a", "b", False, False)]) == [["a", "b", 1, 0, "", None, [], []]]



def test_edges_name_the_ops_they_really_leave_and_reach(mlp):
    edges = {(e[0], e[1]): e for e in mlp.nodes[""]["edges"]}
    # Scope to scope: both ends name the inner ops, so the page can draw into the scope.
    assert edges[("layer1", "layer2")][6:] == [["layer1/Relu"], ["layer2/MatMul"]]
    assert edges[("layer1", "init")][6] == ["layer1/biases/Assign", "layer1/weights/Assign"]
    # An end that is an op itself lists nothing; a series end lists its member ops.
    assert edges[("x", "layer1")][6] == []
    assert sorted(edges[("loss", "gradients")][7])[:2] == ["gradients/Fill", "gradients/add_1"]
    inner = {(e[0], e[1]): e for e in mlp.nodes["gradients"]["edges"]}
    assert inner[("gradients/Fill", "gradients/add_[1-12]")][6:] == [[], ["gradients/add_1"]]

def test_high_degree_and_noop_sinks_are_extracted(mlp):
    assert mlp.nodes["init"]["extract"] == "out"
    assert mlp.nodes["train"]["extract"] == "out"
    assert "extract" not in mlp.nodes["layer1"]
    b = GraphBuilder()
    b.op("hub", "Placeholder", shapes=((),))
    for k in range(20):   # letters, not numbers, so the consumers do not form a series
        b.op("neg_" + chr(ord("a") + k), "Neg", ["hub"], ((),))
    model = GraphModel(b.graph)
    assert model.nodes["hub"]["extract"] == "out"
    small = GraphBuilder()
    small.op("init", "NoOp", shapes=())
    small.op("a", "Neg", shapes=((),))
    small.op("done", "NoOp", ["^a"], shapes=())
    assert not any("extract" in n for n in GraphModel(small.graph).nodes.values())


def test_same_structure_shares_a_template(mlp):
    t = mlp.nodes["layer1"]["template"]
    assert mlp.nodes["layer2"]["template"] == t
    assert mlp.nodes["layer1/weights"]["template"] == mlp.nodes["layer2/biases"]["template"]
    assert mlp.nodes["layer1/weights"]["template"] != t
    assert "template" not in mlp.nodes["loss"]


def test_device_proportions_per_metanode(mlp):
    cpu = "/job:localhost/replica:0/task:0/device:CPU:0"
    gpu = "/job:localhost/replica:0/task:0/device:GPU:0"
    assert mlp.nodes["layer1"]["devices"] == {gpu: 11, cpu: 2}   # summary + its tag on CPU
    assert mlp.nodes["layer2"]["devices"] == {cpu: 13}
    assert mlp.nodes[""]["count"] == len(mlp.ops) == 50
    assert mlp.to_json()["devices"] == ["", cpu, gpu]


def test_run_metadata_stats_join_and_sum():
    graph = mlp_graph()
    model = GraphModel(graph)
    stats = node_stats(model, run_metadata_for(graph))
    index = {n.name: i for i, n in enumerate(graph.node)}
    mm = stats["nodes"]["layer1/MatMul"]
    assert mm["compute_us"] == 10 * (index["layer1/MatMul"] + 1)
    assert mm["memory_bytes"] == 100 * (index["layer1/MatMul"] + 1)
    assert mm["outputs"] == [[index["layer1/MatMul"] + 1]]
    layer1 = [n for n in index if n.startswith("layer1/")]
    assert stats["nodes"]["layer1"]["compute_us"] == sum(10 * (index[n] + 1) for n in layer1)
    assert stats["nodes"][""]["memory_bytes"] == sum(100 * (i + 1) for i in index.values())
    assert stats["matched_ops"] == len(graph.node)
    # Metanodes count their measured ops per device (colour by device uses them).
    cpu = "/job:localhost/replica:0/task:0/device:CPU:0"
    assert stats["nodes"]["layer1"]["devices"] == {cpu: len(layer1)}
    assert stats["nodes"][""]["devices"] == {cpu: len(graph.node)}


def test_node_info_lists_inputs_outputs_with_shapes(mlp):
    info = node_info(mlp, "layer1/MatMul")
    assert info["op"] == "MatMul"
    assert [(i["name"], i["shape"]) for i in info["inputs"]] == \
        [("x", "?×784"), ("layer1/weights/read", "784×128")]
    assert [(o["name"], o["shape"]) for o in info["outputs"]] == [("layer1/add", "?×128")]
    assert {"key": "T", "value": "type: DT_FLOAT"} in info["attributes"]
    init = node_info(mlp, "init")
    assert all(i["control"] for i in init["inputs"]) and len(init["inputs"]) == 4
    scope = node_info(mlp, "layer2")
    assert scope["kind"] == "meta" and scope["count"] == 13
    assert ("layer1/Relu", "?×128") in [(i["name"], i["shape"]) for i in scope["inputs"]]
    with pytest.raises(KeyError, match="no node named 'nope'"):
        node_info(mlp, "nope")


def test_trace_inputs_follows_data_and_control(mlp):
    traced = set(mlp.trace_inputs("loss/Mean"))
    assert {"x", "labels", "layer2/MatMul", "layer1/weights/(weights)"} <= traced
    assert "gradients/Fill" not in traced
    assert "layer1/Relu" in set(mlp.trace_inputs("train"))    # through ^add_12 -> loss


def test_search_regex_and_error(mlp):
    assert mlp.search("MatMul$") == ["layer1/MatMul", "layer2/MatMul"]
    assert len(mlp.search(".", limit=5)) == 5
    with pytest.raises(ValueError, match="bad regex"):
        mlp.search("(")


def test_limit_attr_size_drops_and_lists_large_attrs():
    graph = mlp_graph()
    limit_attr_size(graph, 1024, "_too_large_attrs")
    big = next(n for n in graph.node if n.name == "big_const")
    assert "value" not in big.attr
    assert list(big.attr["_too_large_attrs"].list.s) == [b"value"]
    with pytest.raises(ValueError, match="must be > 0"):
        limit_attr_size(graph, 0, "k")
    with pytest.raises(ValueError, match="needs large_attrs_key"):
        limit_attr_size(graph, 10, None)


def test_duplicate_names_are_rejected_with_the_name():
    g = graph_pb2.GraphDef()
    g.node.add(name="a", op="NoOp")
    g.node.add(name="a", op="NoOp")
    with pytest.raises(ValueError, match="two nodes named 'a'"):
        GraphModel(g)


def test_long_chains_and_deep_scopes_do_not_recurse():
    b = GraphBuilder()
    prev = b.op("n0", "Placeholder", shapes=((),))
    for k in range(1, 3000):
        prev = b.op(f"n{k}", "Neg", [prev], ((),))   # a 3000-op chain in one scope
    deep = "/".join(f"s{k}" for k in range(400))
    b.op(f"{deep}/leaf", "Neg", [prev], ((),))
    model = GraphModel(b.graph)
    assert model.nodes[deep]["children"] == [f"{deep}/leaf"]
    assert len(model.trace_inputs(f"{deep}/leaf")) == 3000


def test_shapes_shared_between_ops_read_like_each_ops_own():
    memo = {}
    for nd in list(mlp_graph().node) + list(generated_graph(120).node):
        assert output_shapes(nd, memo) == output_shapes(nd)
    assert 0 < len(memo) < 20   # a few distinct shapes, shared


def test_building_leaves_the_garbage_collector_as_it_was():
    import gc

    GraphModel(mlp_graph())
    assert gc.isenabled()
    gc.disable()
    try:
        GraphModel(mlp_graph())
        assert not gc.isenabled()
    finally:
        gc.enable()
