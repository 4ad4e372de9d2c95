"""`import lens` is light: the TF1 facade (every op family, the client, the libraries) loads on first use of a tf name."""
import pkgutil
import subprocess
import sys
import textwrap

import lens
from lens.tf1 import facade


def _run(code):
    """Run code in a fresh interpreter; its stdout."""
    done = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_board_cli_does_not_import_the_engine_and_tf_names_still_work():
    out = _run("""
        import sys
        import lens.board.cli, lens.errors, lens.proto.graph_pb2, lens.events
        heavy = [m for m in ("lens.ops.all", "lens.tf1.facade", "lens.client.session") if m in sys.modules]
        assert heavy == [], heavy
        assert lens.errors.NotFoundError.__name__ == "NotFoundError" and "lens.tf1.facade" not in sys.modules
        import lens as tf
        with tf.Session() as sess:
            sys.stdout.write("%d %s\\n" % (sess.run(tf.constant(1) + 2), "lens.ops.all" in sys.modules))
    """)
    assert out.split() == ["3", "True"]


def test_a_namespace_named_like_a_subpackage_stays_the_facade_namespace():
    out = _run("""
        import sys
        import lens.layers                      # the subpackage first: the import system sets lens.layers to it
        import lens as tf
        first = tf.layers                       # reading the TF1 name loads the facade
        from lens.tf1 import facade
        import lens.layers
        import lens.losses
        same = first is facade.layers and tf.layers is first and tf.losses is facade.losses
        sys.stdout.write("%s %s\\n" % (same, type(first).__name__))
    """)
    assert out.split() == ["True", "LazyNamespace"]
    out = _run("""
        import sys
        import lens as tf
        before = tf.metrics
        import lens.metrics
        from lens import layers
        from lens.tf1 import facade
        sys.stdout.write("%s %s\\n" % (tf.metrics is before is facade.metrics, layers is facade.layers))
    """)
    assert out.split() == ["True", "True"]


def test_unregistered_op_types_load_the_facade_for_lower_layer_programs():
    # Graph import without any tf.* name (a Ray task, the debugger, a script on the framework layer).
    out = _run("""
        import sys
        from lens.framework.graph import Graph
        from lens.framework.importer import import_graph_def
        from lens.proto import graph_pb2
        gd = graph_pb2.GraphDef()
        node = gd.node.add(name="ckpt", op="ShardedFilename")
        for name in ("basename", "shard", "num_shards"):
            node.input.append(name)
        for name, op in (("basename", "Placeholder"), ("shard", "Placeholder"), ("num_shards", "Placeholder")):
            gd.node.add(name=name, op=op).attr["dtype"].type = 7 if name == "basename" else 3
        with Graph().as_default() as g:
            import_graph_def(gd, name="")
        sys.stdout.write("%s %s\\n" % (g.get_operation_by_name("ckpt").type, "lens.ops.all" in sys.modules))
    """)
    assert out.split() == ["ShardedFilename", "True"]


def test_shadowed_names_are_the_facade_names_that_are_lens_subpackages():
    subpackages = {m.name for m in pkgutil.iter_modules(lens.__path__)}
    shadowed = {n for n in facade.__all__ if n in subpackages and getattr(facade, n) is not sys.modules.get("lens." + n)}
    assert shadowed == set(lens._SHADOWED)


def test_every_facade_name_is_a_lens_name():
    assert lens.__all__ == facade.__all__
    # as before the facade was lazy, a later first import of a subpackage the facade never loads
    # (lens.estimator, lens.contrib, ...) makes the import system bind the package under its name
    differ = [n for n in facade.__all__ if getattr(lens, n) is not getattr(facade, n)
              and getattr(lens, n) is not sys.modules.get("lens." + n)]
    assert differ == []
    assert set(facade.__all__) <= set(dir(lens))
    assert callable(lens.load_ipython_extension)
