"""Bar charts of the benchmarks' results.

Every benchmark draws benchmarks/results/<name>[-sf<scale>].png with bar_chart when it writes its .json
and .md. `./benchmarks/run chart [planner|skipscan|load|aggregate|index|phoenix|long_predicates ...]` (this file run as a script)
draws the .png files again from the .json files already in benchmarks/results, all of them or those of the
benchmarks named, without running any workload: for a change to how the charts look.
"""

import json
import sys
import textwrap


def bar_chart(path, title, groups, series, unit="s", log_scale=False, size=(11, 5.5), xlabel="query"):
    """Grouped bars of medians, one group per label in `groups`. `series` is [(name, medians, runs)]: one median
    in seconds per group, and runs either None or every run's seconds per group, drawn as dots on the bar.
    `unit` is what the axis shows, "s" or "ms"; a log scale suits values that span orders of magnitude."""
    from matplotlib.figure import Figure
    from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter

    factor = 1000 if unit == "ms" else 1
    width = 0.8 / len(series)
    # Characters that fit under one group: the axes take about 92 % of the width, a character at the tick
    # labels' font size about 0.057 inches.
    wrap = max(12, int(size[0] * 0.92 / len(groups) * 0.9 / 0.057))
    figure = Figure(figsize=size, layout="constrained")
    axes = figure.subplots()
    values_drawn, tops, handles, dots = [], [], [], None
    for i, (name, medians, runs) in enumerate(series):
        xs = [x + (i - (len(series) - 1) / 2) * width for x in range(len(groups))]
        medians = [m * factor for m in medians]
        handles.append(axes.bar(xs, medians, width, label=name, color=f"C{i}"))
        for x, median, group_runs in zip(xs, medians, runs or [None] * len(groups)):
            values = [r * factor for r in group_runs or []]
            if len(values) > 1:
                # Spread across the bar so that equal runs stay apart.
                offsets = [width * 0.5 * (j / (len(values) - 1) - 0.5) for j in range(len(values))]
                dots = axes.scatter([x + o for o in offsets], values, s=14, color="black", zorder=3, label="each run")
            top = max([median, *values])
            # Above the highest run, so that no dot hides the number.
            axes.annotate(
                number(median, unit),
                (x, top),
                xytext=(0, 2),
                textcoords="offset points",
                ha="center",
                va="bottom",
                fontsize=7,
            )
            values_drawn += [median, *values]
            tops.append(top)
    axes.set_xticks(
        range(len(groups)), ["\n".join(balanced(line, wrap) for line in g.split("\n")) for g in groups], fontsize=8
    )
    axes.set_xlabel(xlabel)
    if log_scale:
        axes.set_yscale("log")
        axes.set_ylim(min(values_drawn) / 2, max(tops) * 2)  # room for the numbers over the tallest bars
        axes.yaxis.set_major_locator(LogLocator(base=10, subs=(1, 2, 5)))
        axes.yaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:,.0f}" if v >= 1 else f"{v:g}"))
        axes.yaxis.set_minor_formatter(NullFormatter())
    else:
        axes.set_ylim(0, max(tops) * 1.08)
    axes.set_ylabel(f"median time ({'ms' if unit == 'ms' else 'seconds'}{', log scale' if log_scale else ''})")
    axes.grid(axis="y", which="major", alpha=0.3)
    axes.set_axisbelow(True)
    figure.suptitle(title)
    handles += [dots] if dots else []
    # Below the axes: above them it would collide with the title.
    figure.legend(handles=handles, loc="outside lower center", ncols=len(handles), frameon=False, fontsize=9)
    figure.savefig(path, dpi=120)


def balanced(line, width):
    """The line wrapped to at most `width` characters, in as few lines as that takes, of even lengths: no word
    left alone on the last line."""
    if len(line) <= width:
        return line
    lines = len(textwrap.wrap(line, width))
    for narrower in range(-(-len(line) // lines), width):
        if len(textwrap.wrap(line, narrower)) == lines:
            return textwrap.fill(line, narrower)
    return textwrap.fill(line, width)


def number(value, unit):
    if unit == "ms":
        return f"{value:,.0f}"
    return f"{value:.2f}" if value < 10 else f"{value:.1f}"


def ratio(value):
    """A speedup; whole from 10 on, where a decimal means nothing."""
    return f"{value:.0f}x" if value >= 10 else f"{value:.1f}x"


def redraw(names):
    """Each results/*.png again from its .json, with the chart function of the benchmark that wrote it."""
    import index_benchmark
    import long_predicates
    import phoenix_benchmark
    import streaming_benchmark
    import tpch_aggregate
    import tpch_load
    import tpch_planner
    import tpch_skipscan

    charts = {
        "planner": tpch_planner.chart,
        "skipscan": tpch_skipscan.chart,
        "load": tpch_load.chart,
        "aggregate": tpch_aggregate.chart,
        "index": index_benchmark.chart,
        "phoenix": phoenix_benchmark.chart,
        "long_predicates": long_predicates.chart,
        "streaming": streaming_benchmark.chart,
    }
    unknown = set(names) - set(charts)
    if unknown:
        raise SystemExit(f"no chart for {', '.join(sorted(unknown))}; these have one: {', '.join(charts)}")
    for report in sorted(tpch_planner.RESULTS.glob("*.json")):
        name = report.stem.split("-")[0]
        if name in charts and (not names or name in names):
            charts[name](json.loads(report.read_text()), report.with_suffix(".png"))
            print(f"wrote {report.with_suffix('.png')}")


if __name__ == "__main__":
    redraw(sys.argv[1:])
