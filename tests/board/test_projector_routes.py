"""lens's own projector and mesh answers: per-item problems, projections (PCA against an SVD)."""

import os

import numpy as np
import pytest

from conftest import load_provider
from lens.board import projector_math
from lens.board.app import create_app

LOGDIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures", "projector_logdir")
P = "/data/plugin/projector"


@pytest.fixture(scope="module")
def client():
    return create_app(load_provider(LOGDIR)).test_client()


def test_problems_name_each_bad_item_and_the_rest_loads(client):
    got = client.get(P + "/problems").get_json()
    assert "nowhere.ckpt" in got["runs"]["missing_ckpt"] and "not found" in got["runs"]["missing_ckpt"]
    rows = got["embeddings"]["bad_rows"][0]
    assert rows["tensor"] == "vectors" and "3 rows but tensor vectors has 5 points" in rows["error"]
    assert [e["tensor"] for e in got["embeddings"]["words"]] == ["missing/tensor"]
    assert sorted(client.get(P + "/runs").get_json()) == ["bad_rows", "files", "tf_ckpt", "words"]
    assert len(client.get(P + "/tensor?run=bad_rows&name=vectors").get_data()) == 5 * 3 * 4


def test_mesh_faces_out_of_range_is_a_problem_of_that_mesh_only(client):
    broken = client.get("/data/plugin/mesh/problems?run=mesh&tag=broken").get_json()
    assert "faces index vertex 4, but the mesh has 4 vertices" in broken["0"]
    assert client.get("/data/plugin/mesh/problems?run=mesh&tag=tetra").get_json() == {}
    bad = client.get("/data/plugin/mesh/data?run=mesh&tag=tetra&content_type=VERTEX&sample=3")
    assert bad.status_code == 400 and "sample 3 is out of range" in bad.get_json()["error"]


def test_pca_matches_an_svd():
    x = np.random.RandomState(0).randn(200, 16) @ np.random.RandomState(1).randn(16, 16)
    points, variance = projector_math.pca(x, 3)
    centered = x - x.mean(axis=0)
    u, s, vt = np.linalg.svd(centered, full_matrices=False)
    reference = u[:, :3] * s[:3]
    np.testing.assert_allclose(np.abs(points), np.abs(reference), rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(variance, (s[:3] ** 2) / (s ** 2).sum(), rtol=1e-6)


def test_projection_route_and_optional_methods(client):
    got = client.get(P + "/projection?run=words&name=word_embedding&dims=2")
    points = np.frombuffer(got.get_data(), dtype="<f4").reshape(-1, 2)
    tensor = np.frombuffer(client.get(P + "/tensor?run=words&name=word_embedding").get_data(), "<f4")
    reference, variance = projector_math.pca(tensor.reshape(8, 5), 2)
    np.testing.assert_allclose(points, reference, rtol=1e-5)
    assert got.headers["X-Lens-Dims"] == "2"
    np.testing.assert_allclose([float(v) for v in got.headers["X-Lens-Variance"].split(",")], variance, rtol=1e-5)
    methods = client.get(P + "/methods").get_json()
    assert methods["pca"] is True
    if not methods["tsne"]:
        answer = client.get(P + "/projection?run=words&name=word_embedding&method=tsne")
        assert answer.status_code == 400 and "lens[projector]" in answer.get_json()["error"]
    assert client.get(P + "/projection?run=words&name=word_embedding&dims=5").status_code == 400


def test_sample_logs_enable_both_tabs():
    from lens.board.cli import sample_logdir
    listing = create_app(load_provider(sample_logdir())).test_client().get("/data/plugins_listing").get_json()
    assert listing["projector"]["enabled"] and listing["mesh"]["enabled"]


def test_tsne_separates_clusters_when_scikit_learn_is_installed():
    pytest.importorskip("sklearn")
    x = np.random.default_rng(0).normal(size=(60, 16)).astype(np.float32)
    x[:20] += 8
    points, variance = projector_math.project(x, "tsne", 2)
    assert points.shape == (60, 2) and variance is None
    gap = np.linalg.norm(points[:20].mean(0) - points[20:].mean(0))
    assert gap > 3 * max(points[:20].std(0).max(), points[20:].std(0).max())


def test_logdir_spec_runs_find_their_directories():
    from lens.events.provider import DataProvider
    spec = DataProvider({"exp": LOGDIR, "solo": os.path.join(LOGDIR, "words")}, reload_interval=0)
    spec.reload()
    assert spec.run_dirs()["solo"] == os.path.join(LOGDIR, "words")
    assert spec.run_dirs()["exp/files"] == os.path.join(LOGDIR, "files")
    client = create_app(spec).test_client()
    assert set(client.get(P + "/runs").get_json()) == {"exp/bad_rows", "exp/files", "exp/tf_ckpt", "exp/words",
                                                        "solo"}
    assert len(client.get(P + "/tensor?run=solo&name=word_embedding").get_data()) == 8 * 5 * 4
