"""The projector and mesh requests replayed on TensorBoard and lens (fixtures/projector_logdir)."""

P = "/data/plugin/projector"
M = "/data/plugin/mesh"


def requests():
    """Every route, good and bad arguments; answers are compared by status and body."""
    urls = [P + "/runs", "/data/plugins_listing", M + "/tags"]
    for run in ("words", "tf_ckpt", "files", "bad_rows", "missing_ckpt", "nope"):
        urls.append(P + "/info?run=" + run)
    urls.append(P + "/info")
    tensors = [("words", "word_embedding"), ("words", "word_embedding:0"), ("words", "dense/kernel"),
               ("words", "missing/tensor"), ("tf_ckpt", "tf_embedding"), ("tf_ckpt", "tf_embedding_f64"),
               ("files", "vectors.tsv"), ("files", "binary"), ("bad_rows", "vectors")]
    for run, name in tensors:
        urls.append(P + "/tensor?run=%s&name=%s" % (run, name))
    urls += [P + "/tensor?run=words&name=word_embedding&num_rows=3", P + "/tensor?run=words&name=word_embedding&num_rows=x",
             P + "/tensor?run=words", P + "/tensor?run=nope&name=x"]
    for run, name in (("words", "word_embedding"), ("files", "vectors.tsv"), ("bad_rows", "vectors"),
                      ("tf_ckpt", "tf_embedding")):
        urls.append(P + "/metadata?run=%s&name=%s" % (run, name))
    urls += [P + "/metadata?run=words&name=word_embedding&num_rows=2", P + "/metadata?run=words&name=word_embedding&num_rows=0",
             P + "/bookmarks?run=words&name=word_embedding", P + "/bookmarks?run=files&name=binary",
             P + "/sprite_image?run=words&name=word_embedding", P + "/sprite_image?run=files&name=binary"]
    for tag in ("tetra", "broken", "cloud", "nothing"):
        urls.append(M + "/meshes?run=mesh&tag=" + tag)
    for tag, kind, step in (("tetra", "VERTEX", 0), ("tetra", "VERTEX", 1), ("tetra", "FACE", 1),
                            ("tetra", "COLOR", 0), ("cloud", "COLOR", 0), ("cloud", "FACE", 0),
                            ("tetra", "VERTEX", 7), ("tetra", "NORMAL", 0)):
        urls.append(M + "/data?run=mesh&tag=%s&content_type=%s&sample=0&step=%d" % (tag, kind, step))
    return urls
