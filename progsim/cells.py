"""The table of an overlap heatmap, one row a cell, shared by what simulates it (`progsim overlap`, `progsim sweep`)
and what measures it on a real MPI library (`progsim measure`), so that `progsim plot` and `progsim validate` read
both alike.

A row names its cell (`side`, `size_bytes`, `compute_s`, `tests`), the panel it belongs to (`case`: a platform and a
mechanism, or a library, its transport and its environment), and the metrics of Reynier 2022 (section 4.1) over the
ranks that compute: median, minimum and maximum of the overhead ratio, computation slowdown and communication
ratio, with the references they divide by (medians, seconds). A row whose cell could not be run carries its reason
in `error` and empty metrics. Producers add their own columns (the swept parameters, the library's version) after
these.
"""

from __future__ import annotations

import csv
import math
from pathlib import Path
from typing import Any, Mapping, Optional, Sequence

from progsim.errors import InputError

CELL = ["case", "side", "size_bytes", "compute_s", "tests"]
METRICS = ["overhead_ratio", "overhead_ratio_min", "overhead_ratio_max",
           "computation_slowdown", "computation_slowdown_min", "computation_slowdown_max",
           "communication_ratio", "communication_ratio_min", "communication_ratio_max",
           "t_comm_ref", "t_comp_ref"]
COLUMNS = [*CELL, *METRICS, "error"]

# The thesis' three readings of r (Reynier 2022, section 4.1): overlapped, serialized (r ~ 1), slower than that.
OVERLAPPED_BELOW = 0.3
SLOWED_ABOVE = 1.3
CLASSES = ("overlapped", "serialized", "slowed")


def overlap_class(ratio: float) -> str:
    if ratio < OVERLAPPED_BELOW:
        return "overlapped"
    return "serialized" if ratio <= SLOWED_ABOVE else "slowed"


def metric_fields(overhead: Sequence[float], slowdown: Sequence[float], communication: Sequence[float],
                  t_comm_ref: float, t_comp_ref: float) -> dict[str, str]:
    """The metric columns from per-rank values (one per computing rank); a rank whose value is undefined (NaN: a
    reference that took no time) is left out, and a metric no rank defines is 'nan'."""
    import statistics

    fields: dict[str, str] = {}
    for name, values in (("overhead_ratio", overhead), ("computation_slowdown", slowdown),
                         ("communication_ratio", communication)):
        defined = [v for v in values if not math.isnan(v)]
        for column, value in ((name, statistics.median), (f"{name}_min", min), (f"{name}_max", max)):
            fields[column] = f"{value(defined):.4f}" if defined else "nan"
    fields["t_comm_ref"] = f"{t_comm_ref:.6g}"
    fields["t_comp_ref"] = f"{t_comp_ref:.6g}"
    return fields


def cell_key(row: Mapping[str, object]) -> tuple[str, str, int, float, int]:
    """Which cell a row is, whatever produced it (sizes and times compared as numbers)."""
    return (str(row["case"]), str(row["side"]), int(str(row["size_bytes"])), float(str(row["compute_s"])),
            int(str(row["tests"])))


def ratio(row: Mapping[str, object]) -> Optional[float]:
    """The row's median overhead ratio, or None when the cell failed."""
    text = str(row.get("overhead_ratio", "") or "")
    if not text or text == "nan":
        return None
    value = float(text)
    return None if math.isnan(value) else value


# ---- reading and writing tables -----------------------------------------------------------------------------

def write_table(rows: list[dict[str, str]], columns: list[str], output: Path) -> None:
    """CSV or Parquet (by the suffix), written whole to a temporary file and then renamed: a reader never sees half
    a table. Parquet columns are numbers where every value is one."""
    partial = output.with_name(f".{output.name}.writing")
    if output.suffix == ".parquet":
        import pandas

        frame = pandas.DataFrame(rows, columns=columns)
        for column in columns:
            texts = list(frame[column])
            if any(texts) and all(_is_number(v) for v in texts if v):
                numbers = [float(v) if v else math.nan for v in texts]
                whole = all(v.is_integer() for v in numbers)  # no NaN either: NaN is not an integer
                frame[column] = [int(v) for v in numbers] if whole else numbers
        frame.to_parquet(partial, index=False)
    else:
        with partial.open("w", newline="") as handle:
            writer = csv.DictWriter(handle, columns)
            writer.writeheader()
            writer.writerows(rows)
    partial.replace(output)


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def read_table(path: Path) -> list[dict[str, str]]:
    """A sweep or heatmap table (CSV or Parquet) as rows of texts; a value that is not a number (NaN: a failed
    cell, an undefined ratio) is the empty text. InputError naming the file when it cannot be read as one."""
    kind = "Parquet" if path.suffix == ".parquet" else "CSV"
    try:
        if path.suffix == ".parquet":
            import pandas

            frame = pandas.read_parquet(path)
            return [{k: "" if v is None or (isinstance(v, float) and math.isnan(v)) else cells_text(v)
                     for k, v in row.items()} for row in frame.to_dict("records")]
        with path.open(newline="") as handle:
            return [{k: "" if v == "nan" else v for k, v in row.items()} for row in csv.DictReader(handle)]
    except OSError as error:
        raise InputError(f"{path}: cannot read ({error.strerror or error})") from None
    except (ValueError, ImportError) as error:  # UnicodeDecodeError, pyarrow's errors: not a table of that kind
        raise InputError(f"{path}: not a readable {kind} table ({str(error).splitlines()[0][:200]})") from None


def cells_text(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:.6g}" if value < 1e-3 else (str(int(value)) if value.is_integer() else repr(value))
    return str(value)
