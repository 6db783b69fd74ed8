# Copyright 2026 The spark-hbase-sql developers
# SPDX-License-Identifier: Apache-2.0

# Licensed to the Apache Software Foundation (ASF) under one or more
# contributor license agreements.  See the NOTICE file distributed with
# this work for additional information regarding copyright ownership.
# The ASF licenses this file to You under the Apache License, Version 2.0
# (the "License"); you may not use this file except in compliance with
# the License.  You may obtain a copy of the License at
#
#    http://www.apache.org/licenses/LICENSE-2.0
#
# Unless required by applicable law or agreed to in writing, software
# distributed under the License is distributed on an "AS IS" BASIS,
# WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
# See the License for the specific language governing permissions and
# limitations under the License.

"""The Python package's layers, read from its source (no HBase, no JVM): each module imports only
modules of its own layer or of layers below, no imports go round in a cycle, none is made inside a
function to dodge one, and no module is over 400 lines."""

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "python" / "pyspark_hbase"
MAX_LINES = 400

# Lowest first. A module imports modules of its own layer or of layers before it.
LAYERS = {
    "paths and jars": ["_paths", "logs", "hbase_jars"],
    "processes": ["daemons", "readiness", "site_files"],
    "the local HBase": ["local_conf", "local_state", "local"],
    "sessions and launchers": [
        "metrics",
        "session",
        "__init__",
        "spark_catalog",
        "spark_cli",
        "spark_server",
        "thriftserver",
        "connect",
        "demo",
    ],
    "the CLI": ["cli_options", "cli_servers", "cli", "__main__"],
}
LAYER_OF = {module: rank for rank, modules in enumerate(LAYERS.values()) for module in modules}
LAYER_NAMES = list(LAYERS)


def modules() -> dict[str, Path]:
    return {
        str(p.relative_to(PACKAGE).with_suffix("")).replace("/", "."): p
        for p in sorted(PACKAGE.rglob("*.py"))
        if "__pycache__" not in p.parts
    }


def _imported(node: ast.AST, module: str, known: set[str]) -> list[str]:
    """The modules of the package that an import statement imports ("__init__" for the package's own names)."""
    if isinstance(node, ast.Import):
        names = [a.name for a in node.names if a.name == "pyspark_hbase" or a.name.startswith("pyspark_hbase.")]
        return [n.removeprefix("pyspark_hbase").lstrip(".") or "__init__" for n in names]
    if not isinstance(node, ast.ImportFrom):
        return []
    if node.level:
        package = module.split(".")[:-1] if module != "__init__" else []
        base = ".".join(package[: len(package) - (node.level - 1)] + ([node.module] if node.module else []))
    elif node.module == "pyspark_hbase" or (node.module or "").startswith("pyspark_hbase."):
        base = node.module.removeprefix("pyspark_hbase").lstrip(".")
    else:
        return []
    found = []
    for alias in node.names:
        sub = f"{base}.{alias.name}" if base else alias.name
        found.append(sub if sub in known else (base or "__init__"))
    return found


def imports(function_level: bool) -> dict[str, set[str]]:
    """module -> the package's modules it imports at module level (or, with `function_level`, inside functions)."""
    known = set(modules())
    graph = {}
    for module, path in modules().items():
        tree = ast.parse(path.read_text())
        inside = set()
        for fn in ast.walk(tree):
            if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
                inside |= {id(n) for n in ast.walk(fn) if n is not fn}
        graph[module] = {
            target
            for node in ast.walk(tree)
            if (id(node) in inside) == function_level
            for target in _imported(node, module, known)
            if target != module
        }
    return graph


def test_every_module_has_a_layer():
    assert sorted(set(modules()) - set(LAYER_OF)) == [], f"add them to LAYERS in {Path(__file__).name}"
    assert sorted(set(LAYER_OF) - set(modules())) == [], "LAYERS names modules that are gone"


def test_each_module_imports_only_its_layer_and_those_below():
    wrong = [
        f"{module} ({LAYER_NAMES[LAYER_OF[module]]}) imports {target} ({LAYER_NAMES[LAYER_OF[target]]})"
        for module, targets in imports(function_level=False).items()
        for target in sorted(targets)
        if LAYER_OF.get(target, -1) > LAYER_OF.get(module, -1)
    ]
    assert wrong == []


def test_no_import_cycle():
    graph = imports(function_level=False)
    cycles = []
    state: dict[str, int] = {}  # 1: on the current path, 2: done

    def visit(module: str, path: list[str]) -> None:
        state[module] = 1
        for target in sorted(graph.get(module, ())):
            if state.get(target) == 1:
                cycles.append(" -> ".join(path[path.index(target) :] + [module, target]))
            elif target not in state:
                visit(target, path + [module])
        state[module] = 2

    for module in sorted(graph):
        if module not in state:
            visit(module, [])
    assert cycles == []


def test_no_module_of_the_package_is_imported_inside_a_function():
    assert {m: sorted(t) for m, t in imports(function_level=True).items() if t} == {}


def test_an_import_inside_a_function_says_why_in_a_comment_above_it():
    unexplained = []
    for module, path in modules().items():
        lines = path.read_text().splitlines()
        for fn in ast.walk(ast.parse("\n".join(lines))):
            if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
                for node in ast.walk(fn):
                    if isinstance(node, (ast.Import, ast.ImportFrom)):
                        above = lines[node.lineno - 2].strip() if node.lineno > 1 else ""
                        if not above.startswith("#"):
                            unexplained.append(f"{module}:{node.lineno}: {lines[node.lineno - 1].strip()}")
    assert unexplained == []


def test_the_shipped_package_never_imports_the_test_helpers():
    offending = [
        module
        for module, path in modules().items()
        for node in ast.walk(ast.parse(path.read_text()))
        if isinstance(node, (ast.Import, ast.ImportFrom))
        and any(
            (name or "").startswith("pyspark_hbase_testing")
            for name in ([a.name for a in node.names] if isinstance(node, ast.Import) else [node.module])
        )
    ]
    assert offending == []


@pytest.mark.parametrize("module", sorted(modules()))
def test_no_module_is_over_400_lines(module):
    lines = len(modules()[module].read_text().splitlines())
    assert lines <= MAX_LINES, f"{module} has {lines} lines"


def test_the_checks_see_a_cycle_and_a_function_level_import(tmp_path, monkeypatch):
    # The checks themselves, on a package made for it: a -> b -> a at module level, c imports a in a function.
    package = tmp_path / "pyspark_hbase"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "a.py").write_text("from pyspark_hbase import b\n")
    (package / "b.py").write_text("from . import a\n")
    (package / "c.py").write_text("def f():\n    from pyspark_hbase.a import x\n")
    monkeypatch.setattr(__import__(__name__), "PACKAGE", package)
    assert imports(function_level=False) == {"__init__": set(), "a": {"b"}, "b": {"a"}, "c": set()}
    assert imports(function_level=True)["c"] == {"a"}
