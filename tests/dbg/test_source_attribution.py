"""User code in a folder named `lens` is user code: "defined at", `lp` and `ls` name it."""

import io
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

tf = pytest.importorskip("lens")
if not hasattr(tf, "Session"):
    pytest.skip("the lens engine facade is not available yet", allow_module_level=True)

from lens.framework import sources as _source  # noqa: E402
from lens import dbg as tf_debug  # noqa: E402

# A user script whose line 6 builds the op that fails at run time.
TRAIN = textwrap.dedent("""\
    import numpy as np
    import lens as tf

    def build():
        x = tf.placeholder(tf.float32, [None, None], name="x")
        y = tf.matmul(x, tf.ones([3, 2]), name="bad_matmul")
        return x, y
    """)
RUN = textwrap.dedent("""\
    x, y = build()
    with tf.Session() as sess:
        sess.run(y, {x: np.ones((2, 5), np.float32)})
    """)


def _user_script(tmp_path, body=""):
    """tmp_path/lens/train.py, the way a user's clone or project folder looks."""
    folder = tmp_path / "lens"
    folder.mkdir(exist_ok=True)
    script = folder / "train.py"
    script.write_text(TRAIN + body)
    return str(script)


def test_is_lens_file_goes_by_the_installed_package(tmp_path):
    package = os.path.dirname(os.path.realpath(tf.__file__))
    assert _source.is_lens_file(tf.__file__)
    assert _source.is_lens_file(os.path.join(package, "dbg", "profile.py"))
    assert not _source.is_lens_file(_user_script(tmp_path))
    assert not _source.is_lens_file(str(tmp_path / "lens" / "engine" / "plan.py"))
    assert not _source.is_lens_file(package + "_extra/x.py")  # a sibling that shares the prefix
    assert not _source.is_lens_file("<string>") and not _source.is_lens_file("")
    link = tmp_path / "linked.py"
    link.symlink_to(os.path.join(package, "dbg", "profile.py"))
    assert _source.is_lens_file(str(link))


def test_op_error_from_a_script_in_a_folder_named_lens(tmp_path):
    script = _user_script(tmp_path, RUN)
    env = dict(os.environ, PYTHONPATH=os.path.dirname(_source.PACKAGE_DIR))
    proc = subprocess.run([sys.executable, script], cwd=os.path.dirname(script), env=env,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode != 0
    assert "lens.errors.InvalidArgumentError" in proc.stderr
    assert "[[node bad_matmul (defined at %s:6) ]]" % script in proc.stderr
    trace = proc.stderr.split("Original stack trace for 'bad_matmul':")[1]
    assert 'File "%s", line 6, in build' % script in trace
    assert 'File "%s", line 8, in <module>' % script in trace
    assert _source.PACKAGE_DIR not in trace  # lens's own frames are left out


def test_profile_and_list_source_credit_a_script_in_a_folder_named_lens(tmp_path,
                                                                        monkeypatch, capsys):
    script = _user_script(tmp_path)
    scope = {}
    graph = tf.Graph()
    with graph.as_default():
        exec(compile(open(script).read(), script, "exec"), scope)
        x, y = scope["build"]()
    wrapped = tf_debug.LocalCLIDebugWrapperSession(tf.Session(graph=graph), ui_type="readline")
    monkeypatch.setattr(sys, "stdin", io.StringIO("run -p\nrun\n"))
    wrapped.run(y, {x: np.ones((2, 3), np.float32)})
    out = capsys.readouterr().out
    row = next(line for line in out.split("\n") if line.startswith("bad_matmul"))
    assert row.split()[1] == "MatMul" and row.endswith("%s:6(build)" % script)

    from lens.dbg.analyzer import DebugAnalyzer
    from lens.dbg.commands import CommandRegistry
    from lens.dbg.config import CLIConfig
    from lens.dbg.filters import FilterRegistry
    with tf.Session(graph=graph) as sess:
        dumping = tf_debug.DumpingDebugWrapperSession(sess, str(tmp_path / "root"))
        dumping.run(y, {x: np.ones((2, 3), np.float32)})
    dump = tf_debug.DebugDumpDir(dumping.last_run_dir)
    dump.set_python_graph(graph)
    registry = CommandRegistry()
    DebugAnalyzer(dump, FilterRegistry(), CLIConfig(path="")).register(registry)
    lines = registry.dispatch("ls").lines
    outside, library = lines.index("File(s) outside lens library:"), lines.index(
        "lens library file(s):")
    assert any(line.startswith(script) for line in lines[outside:library])
    assert not any(line.startswith(script) for line in lines[library:])
