"""The shape of the house (docs/ARCHITECTURE.md): dependencies point one
way in C as in Python, the cluster layer uses no private module, and the
trainers take the corpus resolved, asking nothing of it themselves."""

import ast
import os
import re

import pytest

import wv_engine

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PACKAGE = os.path.dirname(wv_engine.__file__)
CSRC = os.path.join(ROOT, "csrc")


def _include_graph(directory: str) -> dict[str, set[str]]:
    """module -> the modules whose headers it includes, a module being a
    .c file and its .h (one stem)."""
    graph: dict[str, set[str]] = {}
    for name in os.listdir(directory):
        stem, ext = os.path.splitext(name)
        if ext not in (".c", ".h"):
            continue
        with open(os.path.join(directory, name)) as f:
            included = re.findall(r'^#include "([^"]+)\.h"', f.read(), re.MULTILINE)
        graph.setdefault(stem, set()).update(m for m in included if m != stem)
    return graph


def _cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One cycle of the graph, or None."""
    state: dict[str, int] = {}  # 1: on the path, 2: done

    def visit(node: str, path: list[str]) -> list[str] | None:
        state[node] = 1
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                return path[path.index(nxt):] + [nxt]
            if nxt not in state:
                found = visit(nxt, path + [nxt])
                if found:
                    return found
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state:
            found = visit(node, [node])
            if found:
                return found
    return None


def test_the_cycle_finder_finds_a_planted_cycle():
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": set()}) == ["a", "b", "c", "a"]
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": set()}) is None


@pytest.mark.skipif(not os.path.isdir(CSRC), reason="the C sources are not beside the tests")
def test_no_c_module_includes_one_that_includes_it_back():
    assert _cycle(_include_graph(CSRC)) is None


def _imports(path: str) -> list[tuple[str, list[str]]]:
    """(module, names) of every import in a file, inside functions too,
    relative ones resolved against wv_engine's layout."""
    package = os.path.relpath(os.path.dirname(path), os.path.dirname(PACKAGE)).replace(os.sep, ".")
    found = []
    for node in ast.walk(ast.parse(open(path).read())):
        if isinstance(node, ast.ImportFrom):
            base = package.split(".")[: len(package.split(".")) - (node.level - 1)] if node.level else []
            module = ".".join(base + ([node.module] if node.module else []))
            found.append((module, [a.name for a in node.names]))
        elif isinstance(node, ast.Import):
            found += [(a.name, []) for a in node.names]
    return found


def test_the_cluster_layer_imports_no_private_module():
    cluster = os.path.join(PACKAGE, "cluster")
    for name in os.listdir(cluster):
        if name.endswith(".py"):
            for module, names in _imports(os.path.join(cluster, name)):
                parts = module.split(".") + [n for n in names if module == "wv_engine"]
                assert not any(p.startswith("_") and p != "__future__" for p in parts), (name, module, names)


def test_word2vec_takes_the_corpus_resolved_and_asks_it_nothing():
    asked = {"wv_engine.corpus", "wv_engine.files", "wv_engine.wordcount", "wv_engine.shards"}
    family = os.path.join(PACKAGE, "word2vec")
    for name in os.listdir(family):
        if name.endswith(".py"):
            for module, names in _imports(os.path.join(family, name)):
                if module in asked:
                    assert set(names) <= {"Corpus", "CorpusSource", "EncodedCorpus"}, (name, module, names)
