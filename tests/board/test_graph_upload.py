"""POST /data/plugin/graphs/upload: a .pb or .pbtxt GraphDef viewed without a logdir."""

from google.protobuf import text_format

from tests.board.graph_fixtures import mlp_graph


def upload(client, data, name):
    return client.post(f"/data/plugin/graphs/upload?name={name}", data=data,
                       content_type="application/octet-stream")


def test_binary_and_text_graphs_answer_like_a_run_graph(client):
    from tensorboard.compat.proto import graph_pb2 as tb_graph_pb2

    graph = mlp_graph()
    data = graph.SerializeToString()
    text = text_format.MessageToString(tb_graph_pb2.GraphDef.FromString(data)).encode()
    binary = upload(client, data, "model.pb").get_json()
    textual = upload(client, text, "model.pbtxt").get_json()
    assert binary["num_ops"] == textual["num_ops"] == len(graph.node)
    assert binary["name"] == "model.pb"
    for answer in (binary, textual):
        h = client.get(f"/data/plugin/graphs/hierarchy?upload={answer['upload']}").get_json()
        assert {"layer1", "layer2", "loss"} <= set(h["nodes"][""]["children"])
        part = client.get(f"/data/plugin/graphs/hierarchy?upload={answer['upload']}"
                          "&scope=layer1").get_json()
        assert part["scopes"][0] == "layer1" and part["nodes"]["layer1/MatMul"]["op"] == "MatMul"
        node = client.get(f"/data/plugin/graphs/node?upload={answer['upload']}"
                          "&name=layer1/MatMul").get_json()
        assert node["op"] == "MatMul"
        hits = client.get(f"/data/plugin/graphs/search?upload={answer['upload']}"
                          "&regex=MatMul").get_json()["hits"]
        assert hits == ["layer1/MatMul", "layer2/MatMul"]
    # A multipart form upload (as an HTML form would send it) works too.
    import io
    form = client.post("/data/plugin/graphs/upload",
                       data={"file": (io.BytesIO(data), "form.pb")},
                       content_type="multipart/form-data").get_json()
    assert form["name"] == "form.pb" and form["upload"] == binary["upload"]


def test_bad_uploads_say_what_is_wrong(client):
    response = upload(client, b"\xff\xfe junk", "junk.pb")
    assert response.status_code == 400
    assert "'junk.pb' is neither a binary GraphDef" in response.get_json()["error"]
    response = upload(client, b"", "empty.pb")
    assert response.status_code == 400 and "empty" in response.get_json()["error"]
    response = client.get("/data/plugin/graphs/hierarchy?upload=0123456789abcdef")
    assert response.status_code == 404
    assert "upload the file again" in response.get_json()["error"]
