# Copyright 2026 The spark-hbase-sql developers
# SPDX-License-Identifier: Apache-2.0

"""The benchmark harness's layout, without HBase: every benchmark module and the harness import, no benchmark imports
another, no module is over 400 lines, only harness/platform.py imports pyspark_hbase, the differential run's
verdict tells a statistical floor from a wrong answer, and the test_time run gives CPU to the spec or module that
took it."""

import ast
import importlib
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest

BENCHMARKS = Path(__file__).resolve().parent.parent / "benchmarks"
MAX_LINES = 400


@pytest.fixture(autouse=True)
def benchmarks_on_path(monkeypatch):
    monkeypatch.syspath_prepend(str(BENCHMARKS))


def python_files():
    return sorted(p for d in ("harness", "suites") for p in (BENCHMARKS / d).rglob("*.py"))


def module_name(path):
    parts = path.relative_to(BENCHMARKS).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def benchmark_of(module):
    """suites.phoenix.measure -> phoenix; suites.skipscan -> skipscan; harness.x -> None."""
    parts = module.split(".")
    return parts[1] if parts[0] == "suites" and len(parts) > 1 else None


def imported_modules(path):
    """Every module the file imports, absolute (relative imports resolved against its package)."""
    package = module_name(path) if path.name == "__init__.py" else module_name(path).rpartition(".")[0]
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found += [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = package.split(".")[: len(package.split(".")) - node.level + 1] if node.level else []
            module = ".".join([*base, node.module] if node.module else base)
            found += [module] + [f"{module}.{a.name}" for a in node.names]
    return found


def test_no_python_file_is_left_at_the_top_of_benchmarks():
    assert sorted(p.name for p in BENCHMARKS.glob("*.py")) == []


@pytest.mark.parametrize("path", python_files(), ids=lambda p: str(p.relative_to(BENCHMARKS)))
def test_module_imports(path):
    name = module_name(path)
    if name.endswith("__main__"):
        return  # runs its benchmark when imported; its imports are checked below
    importlib.import_module(name)


@pytest.mark.parametrize("path", python_files(), ids=lambda p: str(p.relative_to(BENCHMARKS)))
def test_no_benchmark_imports_another(path):
    own = benchmark_of(module_name(path))
    for module in imported_modules(path):
        other = benchmark_of(module)
        assert other is None or other == own, f"{path.relative_to(BENCHMARKS)} imports {module}"
        assert module.split(".")[0] != "suites" or own is not None, f"the harness imports a benchmark: {module}"


@pytest.mark.parametrize("path", python_files(), ids=lambda p: str(p.relative_to(BENCHMARKS)))
def test_no_module_is_over_400_lines(path):
    lines = len(path.read_text().splitlines())
    assert lines <= MAX_LINES, f"{path.relative_to(BENCHMARKS)}: {lines} lines"


def test_only_the_platform_module_imports_pyspark_hbase():
    importers = [
        str(p.relative_to(BENCHMARKS))
        for p in python_files()
        if any(m.split(".")[0] in ("pyspark_hbase", "pyspark_hbase_testing") for m in imported_modules(p))
    ]
    assert importers == ["harness/platform.py"]


def test_every_chart_the_results_need_is_registered():
    from harness import redraw

    charts = redraw.charts()
    stems = {p.stem.split("-")[0] for p in (BENCHMARKS / "results").glob("*.png")}
    assert stems <= set(charts), f"no chart for {sorted(stems - set(charts))}"


def test_every_run_name_is_a_benchmark_module():
    """Each name the header of benchmarks/run lists is a module or package under suites/."""
    header = "".join(line for line in (BENCHMARKS / "run").read_text().splitlines() if line.startswith("#"))
    names = {n for group in re.findall(r"\./benchmarks/run ([a-z_|]+)", header) for n in group.split("|")}
    names -= {"chart"}
    assert {"planner", "skipscan", "load", "aggregate", "phoenix", "differential", "statement"} <= names
    for name in names:
        assert (BENCHMARKS / "suites" / f"{name}.py").is_file() or (BENCHMARKS / "suites" / name).is_dir(), name


def differential_report(failures, differ=0, runs=6, sbt_exit=1):
    return {
        "differ": differ,
        "cases": 400,
        "runs": [{"what": "x", "cases": 1, "differ": 0, "took": ""}] * runs,
        "failures": failures,
        "sbtExit": sbt_exit,
    }


def test_differential_passes_when_only_a_statistical_floor_is_missed():
    from suites import differential

    floor = (
        "range index, scattered",
        "scattered: clauses for which the index skipped chunks: 0.0 was not greater than 0.0 (X.scala:140)",
    )
    assert differential.verdict(differential_report([floor]))[0] == 0
    assert differential.verdict(differential_report([], sbt_exit=0))[0] == 0


def test_differential_fails_on_a_difference_an_error_or_a_missing_run():
    from suites import differential

    differs = ("planner", "3 answers of 100 cases differ; the first:")
    assert differential.verdict(differential_report([differs], differ=3))[0] == 1
    assert differential.verdict(differential_report([("planner", "NullPointerException")]))[0] == 1
    assert differential.verdict(differential_report([], sbt_exit=1))[0] == 1
    assert differential.verdict(differential_report([], runs=4, sbt_exit=0))[0] == 1


def test_differential_reads_scalatest_failures():
    from suites import differential

    lines = [
        "[info] - scattered table *** FAILED *** (8 seconds, 490 milliseconds)",
        "[info]   scattered: clauses for which the index skipped chunks: 0.0 was not greater than 0.0 (X.scala:140)",
    ]
    assert differential.failures(lines) == [
        (
            "scattered table",
            "scattered: clauses for which the index skipped chunks: 0.0 was not greater than 0.0 (X.scala:140)",
        )
    ]


def test_global_index_warm_up_ends_only_once_an_engine_stops_getting_faster():
    from suites.global_index.constants import STEADY_BLOCKS, STEADY_GAIN
    from suites.global_index.measure import steady

    falling = [100.0 * 0.8**i for i in range(6)]
    floor = falling[-1]
    flat = falling + [floor] * STEADY_BLOCKS
    assert not steady(falling[:1])
    assert not steady(falling)  # still getting faster
    assert steady(flat)
    assert not steady(flat[:-1])  # one block too few
    assert not steady(flat + [floor * (1 - 2 * STEADY_GAIN)])  # faster again
    # Noise around the floor, within the gain, is steady.
    assert steady(falling + [floor * (1 + (-1) ** i * STEADY_GAIN / 2) for i in range(STEADY_BLOCKS)])


def test_time_sees_a_parent_before_its_child_when_pids_have_wrapped_around():
    from suites import test_time

    # pid 1 started pid 30000 (the sbt JVM), which started pid 5 (its forked test JVM) after the pids wrapped.
    processes = {(5, "300"): (0, 30000), (30000, "200"): (0, 1), (1, "0"): (0, 0), (7, "310"): (0, 5), (9, "1"): (0, 1)}
    order = test_time._parents_first(processes)
    assert sorted(order) == sorted(processes)
    for key, (_, parent) in processes.items():
        parent_key = next((k for k in processes if k[0] == parent and k != key), None)
        if parent_key is not None:
            assert order.index(parent_key) < order.index(key), (key, order)


BUSY_SECOND = "import time\nstarted = time.process_time()\nwhile time.process_time() - started < 1.5: pass\n"


def _cpu_once_ended(sampler):
    """{(side, item): CPU s} that `sampler` gave, once it has seen the processes started before this call end."""
    from suites import test_time

    seen, deadline = sampler.samples + 2, time.monotonic() + 30
    while sampler.samples < seen and sampler.is_alive() and time.monotonic() < deadline:
        sampler.stopped.wait(0.1)
    assert sampler.samples >= seen, "the sampler took no two more samples in 30 s"
    sampler.stopped.set()
    sampler.join()
    report = test_time.report_of(0, 1, sampler, "x")
    return {(item["side"], item["item"]): item["cpuSeconds"] for item in report["items"]}


def test_time_gives_the_scala_sides_cpu_to_the_spec_the_log_names_and_a_tests_to_its_module(tmp_path):
    from suites import test_time

    clone = tmp_path / "clone"
    (clone / "build").mkdir(parents=True)
    (clone / "target").mkdir()
    (clone / "target" / "scala-tests.log").write_text("[info] FirstSpec:\n[info] - passes\n[info] SecondSpec:\n")
    # As bin/test's sbt looks in the process list, and a pytest module that busies a second and a half.
    (clone / "build" / "sbt-launch.py").write_text(BUSY_SECOND)
    (tmp_path / "test_busy.py").write_text(f"def test_busy():\n    exec({BUSY_SECOND!r})\n")
    output, progress = tmp_path / "test.log", tmp_path / "progress"
    output.write_text(test_time.SCALA_STARTED + "\n")
    sampler = test_time.Sampler(clone, output, progress)
    sampler.start()
    # First a shell whose command line does not say it, as build/sbt is before it execs the sbt JVM, for longer than
    # the samples that look at any new process (on a loaded machine, its exec once came after them).
    scala = subprocess.Popen(
        ["bash", "-c", f'sleep {test_time.LOOKS + 1.5}; exec "$PYTHON" "$LAUNCHER" pureLoopCheck'],
        env=dict(os.environ, PYTHON=sys.executable, LAUNCHER=str(clone / "build" / "sbt-launch.py")),
    )
    env = dict(
        os.environ,
        TEST_TIME_PROGRESS=str(progress),
        PYTHONPATH=str(BENCHMARKS),
        PYTEST_ADDOPTS="-p harness.pytest_progress -p no:cacheprovider",
    )
    # On a pytest-xdist worker, as ./bin/test runs its modules.
    python = subprocess.run([sys.executable, "-m", "pytest", "-q", "-n", "1", "test_busy.py"], cwd=tmp_path, env=env)
    scala.wait()
    cpu = _cpu_once_ended(sampler)
    assert python.returncode == 0
    # Up to the last second of each, which ends between two samples.
    assert cpu.get(("scala", "SecondSpec"), 0) >= 0.4, cpu
    assert cpu.get(("python", "test_busy.py"), 0) >= 0.4, cpu
    assert not {side for side, _ in cpu} - {"scala", "python"}, cpu


def test_time_gives_each_test_jvms_cpu_to_the_spec_it_says_it_runs(tmp_path):
    from suites import test_time

    clone, progress = tmp_path / "clone", tmp_path / "progress"
    (clone / "build").mkdir(parents=True)
    (clone / "target").mkdir()
    (clone / "target" / "scala-tests.log").write_text("[info] LoggedSpec:\n")
    progress.mkdir()
    # A test JVM, as sbt forks it (its flags in a file): it says its spec in the progress directory.
    jvm = (
        "import os, sys\n"
        f"open(os.path.join({str(progress)!r}, f'scala-{{os.getpid()}}'), 'w').write('RunningSpec')\n" + BUSY_SECOND
    )
    (clone / "build" / "sbt-launch.py").write_text(
        f"import subprocess, sys\nsubprocess.run([sys.executable, '-c', {jvm!r}], check=True)\n"
    )
    output = tmp_path / "test.log"
    output.write_text(test_time.SCALA_STARTED + "\n")
    sampler = test_time.Sampler(clone, output, progress)
    sampler.start()
    sbt = subprocess.run([sys.executable, str(clone / "build" / "sbt-launch.py"), "pureLoopCheck"], check=False)
    cpu = _cpu_once_ended(sampler)
    assert sbt.returncode == 0
    assert cpu.get(("scala", "RunningSpec"), 0) >= 0.4, cpu
    assert cpu.get(("scala", "LoggedSpec"), 0) < 0.4, cpu


if __name__ == "__main__":
    sys.exit(pytest.main([__file__]))
