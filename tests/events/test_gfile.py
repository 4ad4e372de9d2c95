"""tf.gfile / tf.io.gfile on local paths and fsspec URLs (memory://), against os and plain Python."""
import os
import uuid

import pytest

import lens as tf

G = tf.io.gfile


def roots(tmp_path):
    return [str(tmp_path), "memory://lens-%s" % uuid.uuid4().hex]


@pytest.mark.parametrize("kind", ["local", "memory"])
def test_files_and_directories(tmp_path, kind):
    root = roots(tmp_path)[kind == "memory"]
    d = G.join(root, "a", "b")
    G.makedirs(d)
    G.makedirs(d)                                          # no error when it exists
    assert G.isdir(d) and G.exists(d)
    f = G.join(d, "x.txt")
    with G.GFile(f, "w") as out:
        out.write("line1\nline2\n")
    with G.GFile(f, "r") as inp:
        assert inp.read() == "line1\nline2\n"
    with G.GFile(f, "rb") as inp:
        assert inp.readline() == b"line1\n" and inp.tell() == 6
        inp.seek(0)
        assert list(inp) == [b"line1\n", b"line2\n"]
    with G.GFile(f, "a") as out:
        out.write(b"line3")
    assert G.stat(f).length == 17 and not G.stat(f).is_directory and G.GFile(f).size() == 17
    G.copy(f, G.join(root, "a", "y.txt"))
    with pytest.raises(tf.errors.AlreadyExistsError):
        G.copy(f, G.join(root, "a", "y.txt"))
    G.copy(f, G.join(root, "a", "y.txt"), overwrite=True)
    G.rename(G.join(root, "a", "y.txt"), G.join(root, "a", "z.txt"))
    assert sorted(G.listdir(G.join(root, "a"))) == ["b", "z.txt"]
    assert G.glob(G.join(root, "a", "*.txt")) == [G.join(root, "a", "z.txt")]
    walked = [(p, sorted(ds), sorted(fs)) for p, ds, fs in G.walk(G.join(root, "a"))]
    assert walked == [(G.join(root, "a"), ["b"], ["z.txt"]), (d, [], ["x.txt"])]
    G.remove(G.join(root, "a", "z.txt"))
    assert not G.exists(G.join(root, "a", "z.txt"))
    with pytest.raises(tf.errors.NotFoundError):
        G.remove(G.join(root, "a", "z.txt"))
    G.rmtree(G.join(root, "a"))
    assert not G.exists(G.join(root, "a"))


def test_tf1_names_and_errors(tmp_path):
    p = str(tmp_path / "f.bin")
    with tf.gfile.Open(p, "wb") as f:
        f.write(b"\x00\x01")
    assert tf.gfile.Exists(p) and tf.gfile.FastGFile(p, "rb").read() == b"\x00\x01"
    assert tf.gfile.ListDirectory(str(tmp_path)) == os.listdir(str(tmp_path))
    assert tf.gfile.Glob(str(tmp_path / "*.bin")) == [p]
    tf.gfile.MkDir(str(tmp_path / "d"))
    tf.gfile.MkDir(str(tmp_path / "d"))                        # an existing path is fine (TF 2.21)
    with pytest.raises(tf.errors.NotFoundError):
        tf.gfile.MkDir(str(tmp_path / "no" / "parent"))
    assert [w[0] for w in tf.gfile.Walk(str(tmp_path), in_order=False)] == [str(tmp_path / "d"), str(tmp_path)]
    missing = tf.gfile.GFile(str(tmp_path / "missing"))       # opened lazily, as TF
    with pytest.raises(tf.errors.NotFoundError, match="missing"):
        missing.read()
    with pytest.raises(tf.errors.NotFoundError):
        tf.gfile.ListDirectory(str(tmp_path / "nope"))
    with pytest.raises(tf.errors.PermissionDeniedError):
        tf.gfile.GFile(p, "rb").write(b"x")
    tf.gfile.DeleteRecursively(str(tmp_path / "d"))
    assert not tf.gfile.IsDirectory(str(tmp_path / "d"))
    assert "memory" in G.get_registered_schemes()
