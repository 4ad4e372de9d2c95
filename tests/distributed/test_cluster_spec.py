"""tf.train.ClusterSpec: TF1's accessors over dict, list and ClusterDef forms (no Ray needed)."""
import pytest

import lens as tf

SPEC = {"ps": ["ps0:2222", "ps1:2222"], "worker": ["w0:2222", "w1:2222", "w2:2222"]}


def test_lists_round_trip_and_accessors():
    c = tf.train.ClusterSpec(SPEC)
    assert c.jobs == ["ps", "worker"]
    assert c.as_dict() == SPEC
    assert c.num_tasks("worker") == 3
    assert c.task_indices("ps") == [0, 1]
    assert c.task_address("worker", 2) == "w2:2222"
    assert c.job_tasks("ps") == ["ps0:2222", "ps1:2222"]
    assert bool(c) and not tf.train.ClusterSpec({})


def test_sparse_jobs_keep_their_indices():
    c = tf.train.ClusterSpec({"worker": {1: "w1:1", 3: "w3:1"}})
    assert c.as_dict() == {"worker": {1: "w1:1", 3: "w3:1"}}
    assert c.job_tasks("worker") == [None, "w1:1", None, "w3:1"]
    assert c.task_indices("worker") == [1, 3]
    assert c.num_tasks("worker") == 2


def test_cluster_def_round_trip_and_equality():
    c = tf.train.ClusterSpec(SPEC)
    cd = c.as_cluster_def()
    assert [j.name for j in cd.job] == ["ps", "worker"]
    assert dict(cd.job[1].tasks) == {0: "w0:2222", 1: "w1:2222", 2: "w2:2222"}
    assert tf.train.ClusterSpec(cd) == c
    assert tf.train.ClusterSpec(c) == c
    assert tf.train.ClusterSpec({"ps": ["a:1"]}) != c


def test_bad_specs_name_the_culprit():
    c = tf.train.ClusterSpec(SPEC)
    with pytest.raises(ValueError, match="No such job in cluster: 'chief'"):
        c.num_tasks("chief")
    with pytest.raises(ValueError, match="No task with index 7 in job 'worker'"):
        c.task_address("worker", 7)
    with pytest.raises(TypeError, match="must be a dictionary mapping one or more job names"):
        tf.train.ClusterSpec(["ps0:2222"])
    with pytest.raises(TypeError, match="must be a string 'host:port'"):
        tf.train.ClusterSpec({"ps": [2222]})


def test_server_arguments_are_checked_before_any_process_starts():
    with pytest.raises(ValueError, match="explicit `job_name`"):
        tf.train.Server(SPEC, start=False)
    with pytest.raises(ValueError, match="explicit `task_index`"):
        tf.train.Server(SPEC, job_name="worker", start=False)
    s = tf.train.Server({"local": ["localhost:4321"]}, start=False)
    assert s.target == "grpc://localhost:4321"


def test_bad_target_is_invalid_argument():
    with pytest.raises(tf.errors.InvalidArgumentError, match="No session factory registered.*'foo'"):
        tf.Session("foo")
