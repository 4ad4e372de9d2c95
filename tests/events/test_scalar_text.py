"""Scalar JSON text (orjson with repr's layout) against json.dumps, on numbers of every kind."""

import json

import numpy as np
import pytest

from lens.events import scalar_text as S


def dumps(obj):
    """json.dumps as the routes wrote it, non-finite floats as TensorBoard's strings."""
    def clean(x):
        if isinstance(x, float) and not np.isfinite(x):
            return "NaN" if x != x else ("Infinity" if x > 0 else "-Infinity")
        if isinstance(x, list):
            return [clean(v) for v in x]
        if isinstance(x, dict):
            return {k: clean(v) for k, v in x.items()}
        return x
    return json.dumps(clean(obj), separators=(",", ":"))


def hard_series(seed, n):
    rng = np.random.default_rng(seed)
    with np.errstate(over="ignore"):
        walls = rng.standard_normal(n) * 10.0 ** rng.integers(-330, 310, n).astype(np.float64)
    values = (rng.standard_normal(n) * 10.0 ** rng.integers(-8, 20, n)).astype(np.float32)
    edges = [0.0, -0.0, 1e-4, 9.999999999999999e-05, -1e-4, 1e16, 9999999999999998.0, -1e16,
             5e-324, 1.7976931348623157e308, np.nan, np.inf, -np.inf, 0.1, 1e-05, 2.5e-07]
    walls[:len(edges)] = edges
    values = values.astype(np.float64)
    values[-len(edges):] = edges
    steps = rng.integers(-2 ** 63, 2 ** 63 - 1, n, dtype=np.int64)
    steps[:3] = [0, -2 ** 63, 2 ** 63 - 1]
    return steps, walls, values


@pytest.mark.parametrize("seed", range(3))
def test_every_layout_matches_json_dumps(seed):
    steps, walls, values = hard_series(seed, 4000)
    rows = [[w, s, v] for w, s, v in zip(walls.tolist(), steps.tolist(), values.tolist())]
    assert S.rows_json(steps, walls, values) == dumps(rows)
    assert S.objects_json(steps, walls, values) == dumps(
        [{"wallTime": w, "step": s, "value": v} for w, s, v in rows])
    assert S.columns_json(steps, walls, values) == dumps(
        {"wallTime": walls.tolist(), "step": steps.tolist(), "value": values.tolist()})


def test_orjson_path_is_taken_and_agrees_with_the_repr_path():
    assert S._fast(), "orjson is a dependency and must write repr's digits"
    steps, walls, values = hard_series(7, 2000)
    assert S._rows_bytes(steps, walls, values).decode() == S._rows_repr(steps, walls, values)
    assert S._objects_bytes(steps, walls, values).decode() == S._objects_repr(steps, walls, values)
    assert S._columns_bytes(steps, walls, values).decode() == S._columns_repr(steps, walls, values)


def test_empty_and_single_point():
    empty = (np.zeros(0, np.int64), np.zeros(0), np.zeros(0))
    assert (S.rows_json(*empty), S.objects_json(*empty)) == ("[]", "[]")
    assert S.columns_json(*empty) == '{"wallTime":[],"step":[],"value":[]}'
    one = (np.array([5], np.int64), np.array([1.5]), np.array([np.nan]))
    assert S.rows_json(*one) == '[[1.5,5,"NaN"]]'
