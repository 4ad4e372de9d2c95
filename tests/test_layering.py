"""The package structure of ARCHITECTURE.md holds: no import cycles, no layer importing one above it."""
import os
import subprocess
import sys

import grimp
import pytest

import lens

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(lens.__file__)))
# The TF1 facade and the entry points sit on top of everything: only they may import `lens` itself.
TOP = ("lens", "lens.errors", "lens.cli", "lens.tf1", "lens.examples", "lens.python")


@pytest.fixture(scope="module")
def graph():
    return grimp.build_graph("lens", include_external_packages=False, cache_dir=None)


def _cycles(graph):
    """Strongly connected components (size > 1) of the module import graph (Tarjan, iterative)."""
    modules = sorted(graph.modules)
    edges = {m: sorted(graph.find_modules_directly_imported_by(m) - {m}) for m in modules}
    index, low, on_stack, stack, found = {}, {}, set(), [], []
    for root in modules:
        if root in index:
            continue
        work = [(root, 0)]
        while work:
            node, i = work.pop()
            if i == 0:
                index[node] = low[node] = len(index)
                stack.append(node)
                on_stack.add(node)
            if i < len(edges[node]):
                work.append((node, i + 1))
                nxt = edges[node][i]
                if nxt not in index:
                    work.append((nxt, 0))
                elif nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
                continue
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
    return found


def test_no_import_cycles(graph):
    assert _cycles(graph) == []


def test_cycle_finder_sees_a_cycle():
    # The check above must be able to fail: a two-module cycle is reported.
    fake = grimp.ImportGraph()
    for name in ("pkg", "pkg.a", "pkg.b", "pkg.c"):
        fake.add_module(name)
    fake.add_import(importer="pkg.a", imported="pkg.b")
    fake.add_import(importer="pkg.b", imported="pkg.a")
    fake.add_import(importer="pkg.c", imported="pkg.a")
    assert _cycles(fake) == [["pkg.a", "pkg.b"]]


def test_only_the_facade_imports_lens_itself(graph):
    importers = {m for m in graph.find_modules_that_directly_import("lens")}
    assert sorted(m for m in importers if not m.startswith(TOP)) == []


def test_lint_imports_contracts_hold():
    # The same check CI runs: the layers and the board's independence from the engine.
    lint = os.path.join(os.path.dirname(sys.executable), "lint-imports")
    out = subprocess.run([lint, "--no-cache"], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-2000:]
    assert "0 broken" in out.stdout
