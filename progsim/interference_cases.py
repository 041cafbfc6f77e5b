"""`progsim validate-interference CASES`: holds `progsim interference` against the published results of Denis,
Jeannot and Swartvagher (ICPP 2021, "Interferences between Communications and Computations in Distributed HPC
Systems"), whose text survives without its figures' values (validation/interference/reference.md).

A case (YAML) names a platform, the benchmark's sweep (intensities, computing ranks, sizes, where data lives, the
kernel's flop rate, where the communicating rank runs) and checks, each a quantity read off the simulated table, the paper's value, a tolerance, and why
that tolerance. Quantities:
  bandwidth_ratio   the ping-pong's bandwidth loaded over alone (time alone / time loaded; 1: unaffected)
  latency_ratio     the ping-pong's half round trip loaded over alone
  kernel_ratio      the kernel's bandwidth per rank loaded over alone
  onset             the first value of `axis` (computing_ranks, the default, or size_bytes) at which `of`
                    (bandwidth_ratio, the default, or kernel_ratio) falls below `threshold` (default 0.95)
  unaffected_from   the lowest intensity from which bandwidth_ratio stays at or above `threshold` (default 0.95)
A check passes when |simulated - paper| <= tolerance. A case may say `expected_failure: why`: its checks must fail
(strict: a pass is reported as an unexpected pass and fails the run), for what the model does not capture yet.
"""

from __future__ import annotations

import argparse
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from progsim.case_yaml import mapping, quantities
from progsim.errors import InputError

QUANTITIES = ("bandwidth_ratio", "latency_ratio", "kernel_ratio", "onset", "unaffected_from")
AT_KEYS = ("intensity_flop_per_byte", "computing_ranks", "size_bytes")


@dataclass(frozen=True)
class Check:
    quantity: str
    at: dict[str, float]
    reference: float
    tolerance: float
    why: str
    threshold: float = 0.95
    axis: str = "computing_ranks"  # onset: the swept column
    of: str = "bandwidth_ratio"  # onset: the ratio that falls


@dataclass(frozen=True)
class Case:
    path: Path
    name: str
    source: str
    platform: Path
    intensities: list[float]
    computing: list[int]
    sizes: list[int]
    data: str
    comm: str
    kernel_rate: float | None
    settings: list[str]
    checks: list[Check]
    expected_failure: str | None = None


@dataclass
class Result:
    case: Case
    check: Check
    simulated: float
    passed: bool
    rows: list[dict[str, str]] = field(default_factory=list)

    @property
    def verdict(self) -> str:
        if self.case.expected_failure:
            return "XPASS (unexpected)" if self.passed else "XFAIL"
        return "PASS" if self.passed else "FAIL"

    @property
    def ok(self) -> bool:
        return self.passed != bool(self.case.expected_failure)


def _number(source: Any, value: Any, path: str, minimum: float = -math.inf) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value < minimum:
        raise source.error(path, f"expected a number >= {minimum:g}, got {value!r}")
    return float(value)


def _values(source: Any, data: Any, path: str, unit: str) -> list[float]:
    """A value or a list of them, each a non-negative quantity (0 computing ranks, 0 flop/B: the kernel's traffic)."""
    return quantities(source, data, path, unit, zero_allowed=True, single_allowed=True)


def load_case(path: Path) -> Case:
    from progsim.platform.yamlsource import load_located

    source = load_located(path)
    top = mapping(source, source.data, "(top)", {"name", "source", "platform", "run", "checks", "expected_failure"},
                  {"name", "source", "platform", "run", "checks"})
    run = mapping(source, top["run"], "run", {"intensities", "computing_ranks", "sizes", "data", "comm",
                                               "kernel_flop_rate", "set"}, {"intensities", "computing_ranks", "sizes"})
    if run.get("comm", "near") not in ("near", "far"):
        raise source.error("run.comm", f"expected near or far, got {run['comm']!r}")
    platform = (path.parent / str(top["platform"])).resolve()
    if not platform.is_file():
        raise source.error("platform", f"{platform}: no such platform file")
    computing = [int(v) for v in _values(source, run["computing_ranks"], "run.computing_ranks", "")]
    kernel_rate = run.get("kernel_flop_rate")
    if kernel_rate is not None:
        kernel_rate = _values(source, kernel_rate, "run.kernel_flop_rate", "f")[0]
    settings = run.get("set", []) or []
    if not isinstance(settings, list) or not all(isinstance(s, str) and ":" in s for s in settings):
        raise source.error("run.set", "expected a list of 'name:value' engine settings")
    checks = []
    data = top["checks"]
    if not isinstance(data, list) or not data:
        raise source.error("checks", "expected a list of checks")
    for i, item in enumerate(data):
        where = f"checks[{i}]"
        check = mapping(source, item, where, {"quantity", "at", "reference", "tolerance", "why", "threshold", "axis",
                                               "of"}, {"quantity", "at", "reference", "tolerance", "why"})
        axis, of = check.get("axis", "computing_ranks"), check.get("of", "bandwidth_ratio")
        if axis not in ("computing_ranks", "size_bytes") or of not in ("bandwidth_ratio", "kernel_ratio"):
            raise source.error(f"{where}.axis" if axis not in ("computing_ranks", "size_bytes") else f"{where}.of",
                               "expected axis computing_ranks or size_bytes, of bandwidth_ratio or kernel_ratio")
        if check["quantity"] not in QUANTITIES:
            raise source.error(f"{where}.quantity", f"expected one of {', '.join(QUANTITIES)}, "
                                                    f"got {check['quantity']!r}")
        at = mapping(source, check["at"], f"{where}.at", set(AT_KEYS), set())
        at_values = {key: _values(source, value, f"{where}.at.{key}", "B" if key == "size_bytes" else "")[0]
                     for key, value in at.items()}
        checks.append(Check(check["quantity"], at_values, _number(source, check["reference"], f"{where}.reference"),
                            _number(source, check["tolerance"], f"{where}.tolerance", 0.0), str(check["why"]),
                            _number(source, check.get("threshold", 0.95), f"{where}.threshold", 0.0), axis, of))
    return Case(path, str(top["name"]), str(top["source"]), platform,
                _values(source, run["intensities"], "run.intensities", ""), computing,
                [int(v) for v in _values(source, run["sizes"], "run.sizes", "B")], str(run.get("data", "nic")),
                str(run.get("comm", "near")), kernel_rate, list(settings), checks, top.get("expected_failure"))


def _matches(row: dict[str, str], at: dict[str, float], skip: str = "") -> bool:
    return all(math.isclose(float(row[key]), value, rel_tol=1e-3) for key, value in at.items() if key != skip)


def _ratio(row: dict[str, str], quantity: str) -> float:
    alone, loaded = (("pingpong_us_alone", "pingpong_us_loaded") if quantity != "kernel_ratio" else
                     ("kernel_GBps_per_rank_alone", "kernel_GBps_per_rank_loaded"))
    a, b = float(row[alone]), float(row[loaded])
    if quantity == "bandwidth_ratio":
        return a / b
    return b / a


def measure(check: Check, rows: list[dict[str, str]]) -> float:
    """The check's quantity in the simulated table (NaN when the table has no row for it)."""
    if check.quantity in ("bandwidth_ratio", "latency_ratio", "kernel_ratio"):
        chosen = [row for row in rows if _matches(row, check.at)]
        return _ratio(chosen[0], check.quantity) if len(chosen) == 1 else math.nan
    axis = check.axis if check.quantity == "onset" else "intensity_flop_per_byte"
    of = check.of if check.quantity == "onset" else "bandwidth_ratio"
    curve = sorted((float(row[axis]), _ratio(row, of)) for row in rows if _matches(row, check.at, skip=axis))
    if not curve:
        return math.nan
    if check.quantity == "onset":
        return next((x for x, ratio in curve if ratio < check.threshold), math.inf)
    unaffected = math.inf
    for x, ratio in reversed(curve):  # the lowest intensity from which every higher one is unaffected
        if ratio < check.threshold:
            break
        unaffected = x
    return unaffected


def simulate_case(case: Case, jobs: int) -> list[dict[str, str]]:
    from progsim.interference import simulate

    return simulate(case.platform, case.intensities, case.computing, case.sizes, progress="none", placement=None,
                    settings=case.settings, data=case.data, kernel_rate=case.kernel_rate, jobs=jobs,
                    comm=case.comm)


def run_case(case: Case, jobs: int) -> list[Result]:
    rows = simulate_case(case, jobs)
    results = []
    for check in case.checks:
        value = measure(check, rows)
        passed = math.isfinite(value) and abs(value - check.reference) <= check.tolerance + 1e-12
        results.append(Result(case, check, value, passed, rows))
    return results


def case_files(argument: Path) -> list[Path]:
    if argument.is_dir():
        files = sorted(argument.glob("*.yaml"))
        if not files:
            raise InputError(f"{argument}: no case files (*.yaml) in this folder")
        return files
    if not argument.is_file():
        raise InputError(f"{argument}: no such case file or folder")
    return [argument]


def _size_text(size: float) -> str:
    for unit, scale in (("MiB", 2 ** 20), ("KiB", 2 ** 10)):
        if size >= scale and size % scale == 0:
            return f"{size / scale:g} {unit}"
    return f"{size:g} B"


def _at_text(at: dict[str, float]) -> str:
    return ", ".join(f"{key.split('_')[0]} {_size_text(value) if key == 'size_bytes' else f'{value:g}'}"
                     for key, value in at.items())


def _value_text(check: Check, value: float) -> str:
    if check.quantity == "onset" and check.axis == "size_bytes" and math.isfinite(value):
        return _size_text(value)
    return f"{value:.3g}"


def summary_rows(results: list[Result]) -> list[list[str]]:
    return [[r.case.name, r.check.quantity, _at_text(r.check.at), _value_text(r.check, r.simulated),
             _value_text(r.check, r.check.reference),
             f"±{_value_text(r.check, r.check.tolerance)}", r.verdict] for r in results]


HEADER = ["case", "quantity", "at", "simulated", "paper", "tolerance", "verdict"]


def write_report(results: list[Result], path: Path) -> None:
    lines = ["# Memory contention: simulation against Denis, Jeannot and Swartvagher (ICPP 2021)", "",
             "Written by `progsim validate-interference`; the paper's sentences and line numbers are in "
             "`reference.md`.", "", "| " + " | ".join(HEADER) + " |", "|" + "---|" * len(HEADER)]
    lines += ["| " + " | ".join(row) + " |" for row in summary_rows(results)]
    for case in {r.case.path: r.case for r in results}.values():
        lines += ["", f"## {case.name}", "", f"Source: {case.source}. Platform: `{case.platform.name}`; data: "
                  f"{case.data}; " + (f"kernel at {case.kernel_rate:g} flop/s per core." if case.kernel_rate else
                                      "kernel at the core's speed.")]
        if case.expected_failure:
            lines += ["", f"Expected to fail: {case.expected_failure}"]
        for r in (r for r in results if r.case is case):
            lines += [f"- {r.check.quantity} at {_at_text(r.check.at)}: simulated {_value_text(r.check, r.simulated)}, "
                      f"paper {_value_text(r.check, r.check.reference)} ± {_value_text(r.check, r.check.tolerance)} "
                      f"({r.verdict}). {r.check.why}"]
    path.write_text("\n".join(lines) + "\n")


def _swept_axis(case: Case, check: Check) -> str:
    if check.quantity == "onset":
        return check.axis
    if check.quantity == "unaffected_from":
        return "intensity_flop_per_byte"
    for axis, values in (("computing_ranks", case.computing), ("intensity_flop_per_byte", case.intensities),
                         ("size_bytes", case.sizes)):
        if len(values) > 1:
            return axis
    return "computing_ranks"


def draw_figure(results: list[Result], path: Path) -> None:
    """One panel per check: the simulated curve it is read from, and the paper's value with its tolerance."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    columns = min(3, len(results))
    lines = math.ceil(len(results) / columns)
    figure, axes = plt.subplots(lines, columns, figsize=(5.2 * columns, 3.9 * lines), squeeze=False)
    for panel, result in zip(axes.flat, results):
        check, axis = result.check, _swept_axis(result.case, result.check)
        ratio = check.quantity if check.quantity.endswith("_ratio") else check.of
        curve = sorted((float(row[axis]), _ratio(row, ratio)) for row in result.rows if _matches(row, check.at, axis))
        panel.plot([x for x, _ in curve], [y for _, y in curve], marker="o", label="simulated")
        if check.quantity.endswith("_ratio"):
            panel.errorbar([check.at.get(axis, curve[0][0] if curve else 0)], [check.reference],
                           yerr=[check.tolerance], fmt="s", color="tab:red", capsize=4, label="paper ± tolerance")
        else:
            panel.axhline(check.threshold, color="grey", linewidth=0.8, linestyle=":")
            panel.axvspan(check.reference - check.tolerance, check.reference + check.tolerance, color="tab:red",
                          alpha=0.15, label="paper ± tolerance")
            panel.axvline(check.reference, color="tab:red", linestyle="--")
            if math.isfinite(result.simulated):
                panel.axvline(result.simulated, color="tab:blue", linestyle="-", linewidth=0.8)
        if axis == "intensity_flop_per_byte" or axis == "size_bytes":
            panel.set_xscale("log")
        panel.set_xlabel(axis.replace("_", " "))
        panel.set_ylabel(ratio.replace("_", " ") + " (loaded / alone)")
        panel.set_title(f"{result.case.platform.stem}: {check.quantity} — {result.verdict}", fontsize=9)
        panel.legend(fontsize="x-small")
    for panel in list(axes.flat)[len(results):]:
        panel.axis("off")
    figure.tight_layout()
    figure.savefig(path, dpi=100)
    plt.close(figure)


def command_validate_interference(args: argparse.Namespace) -> int:
    from progsim.row_tables import print_table

    from progsim.outputs import check_outputs

    if args.jobs < 1:
        raise InputError(f"--jobs {args.jobs}: expected 1 or more")
    outputs = {"--report": args.report, "--figure": args.figure}
    check_outputs({k: v for k, v in outputs.items() if v}, [])
    cases = [load_case(path) for argument in args.cases for path in case_files(Path(argument))]
    results: list[Result] = []
    for case in cases:
        print(f"{case.name} ...", flush=True)
        results += run_case(case, args.jobs)
    print_table(HEADER, [dict(zip(HEADER, row)) for row in summary_rows(results)])
    if args.report:
        write_report(results, Path(args.report))
        print(f"wrote {args.report}")
    if args.figure:
        draw_figure(results, Path(args.figure))
        print(f"wrote {args.figure}")
    failed = [r for r in results if not r.ok]
    return 1 if failed else 0


def add_command(commands: argparse._SubParsersAction) -> None:
    import os

    parser = commands.add_parser("validate-interference", help="hold the simulated memory-contention benchmark "
                                                              "against the paper's results",
                                 description=__doc__,
                                 epilog="example:\n  progsim validate-interference validation/interference/cases "
                                        "--report validation/interference/report.md",
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("cases", nargs="+", help="case YAML files or folders of them")
    parser.add_argument("--report", metavar="MD", help="write a markdown report here")
    parser.add_argument("--figure", metavar="PNG", help="draw each check's simulated curve beside the paper's value")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="points simulated at once")
    parser.set_defaults(run=command_validate_interference)
