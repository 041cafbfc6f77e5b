"""The teaching gallery's page (`progsim gallery`): one static HTML file, its style inline, one small inline script,
its pictures as files beside it; and the table of ratios that the command prints. Nothing of this machine (no date,
no absolute path) goes in: the same cases give the same bytes.
"""

from __future__ import annotations

import html
import math
import struct
from pathlib import Path
from dataclasses import dataclass
from typing import Optional

from progsim.engine_info import progress_kinds, progress_mechanisms, REPOSITORY
from progsim.gallery.cases import Case, Collective, Row
from progsim.plot import size_label, time_label
from progsim.timeline import COLOURS

LEGEND = [
    ("compute", "the rank computes (the application's own work)"),
    ("MPI call", "the rank is inside an MPI call: posting, testing, copying a message"),
    ("waiting", "the rank is blocked in MPI_Wait until its message is done"),
    ("progress work", "a protocol step (match, handshake, copy) run by a rank, a progress thread or a reserved core; "
                      "a thin one on a rank's row is a step the rank runs inside its own MPI call"),
    ("NIC work", "a protocol step run by the network card (offload)"),
]
ARROW_SVG = ('<svg width="34" height="12" aria-hidden="true"><line x1="1" y1="6" x2="28" y2="6" stroke="black" '
             'stroke-width="1.5"/><polygon points="26,1 33,6 26,11" fill="black"/></svg>')
LOADED_SCRIPT = """<script>
// Counts the pictures the browser really shows; the gallery's browser test reads the count on the body element.
window.addEventListener("load", function () {
  var images = document.images, loaded = 0;
  for (var i = 0; i < images.length; i++) {
    if (images[i].complete && images[i].naturalWidth > 0) loaded++;
  }
  document.body.setAttribute("data-images-loaded", loaded + "/" + images.length);
});
</script>"""
STYLE = """body { font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; margin: 0 auto;
  max-width: 2000px; padding: 0 24px 48px; color: #222; line-height: 1.45; }
h1 { margin-top: 24px; } h2 { margin-top: 40px; border-bottom: 2px solid #ddd; padding-bottom: 4px; }
h3 { margin: 20px 0 6px; font-size: 1.05em; }
.explanation p, .intro p { max-width: 70em; }
.setup { color: #555; font-size: 0.92em; margin: 4px 0 8px; }
.grid { display: grid; grid-template-columns: repeat(auto-fill, minmax(400px, 1fr)); gap: 14px; align-items: start; }
figure { margin: 0; border: 1px solid #ddd; border-radius: 6px; padding: 6px; background: #fff; }
figure img { width: 100%; height: auto; display: block; }
figcaption { font-size: 0.92em; margin-top: 4px; }
.mech { font-weight: 600; }
.r { font-weight: 600; padding: 1px 6px; border-radius: 4px; }
.detail { color: #555; }
.legend { display: flex; flex-wrap: wrap; gap: 6px 22px; padding: 0; list-style: none; max-width: 90em; }
.legend li { display: flex; align-items: center; gap: 8px; max-width: 34em; }
.swatch { display: inline-block; width: 26px; height: 14px; border-radius: 2px; flex: none; }
dl.mechanisms dt { font-weight: 600; float: left; clear: left; width: 9em; }
dl.mechanisms dd { margin-left: 9.5em; }
table { border-collapse: collapse; margin-top: 8px; }
th, td { border: 1px solid #ccc; padding: 3px 10px; text-align: left; }
td.ratio { text-align: right; font-variant-numeric: tabular-nums; }
footer { margin-top: 40px; color: #666; font-size: 0.9em; }
code { background: #f3f3f3; padding: 0 3px; border-radius: 3px; }"""


@dataclass(frozen=True)
class Picture:
    """What one job measured (medians over the ranks that compute) and the picture it gets."""
    case: str
    row: int
    mechanism: str
    ratio: float      # NaN when no rank had anything to overlap
    worst: float      # the largest ratio of a rank
    slowdown: float   # t_comp / t_comp_ref
    total: float      # the overlapped run: its latest rank's end (s)
    comp_ref: float
    comm_ref: float
    ranks: int        # how many ranks the ratio is a median of
    timeline: Path
    end: float        # the timeline's last event (s)
    png: str


# ---- words and numbers --------------------------------------------------------------------------------------

def ratio_text(ratio: float) -> str:
    return "n/a" if math.isnan(ratio) else f"{round(ratio, 2) + 0.0:.2f}"  # + 0.0: no "-0.00"


def verdict(ratio: float) -> str:
    if math.isnan(ratio):
        return "nothing to overlap"
    if ratio <= 0.1:
        return "overlapped"
    if ratio < 0.9:
        return "partly overlapped"
    return "serialized" if ratio <= 1.1 else "slower than serialized"


def ratio_colour(ratio: float) -> str:
    """The heatmaps' scale (progsim plot): green at 0, yellow at 1, red at 2 and above."""
    if math.isnan(ratio):
        return "#dddddd"
    x = min(max(ratio, 0.0), 2.0)
    green, yellow, red = (0x9b, 0xe0, 0x9b), (0xf6, 0xe0, 0x7a), (0xf0, 0x8a, 0x80)
    a, b, t = (green, yellow, x) if x <= 1 else (yellow, red, x - 1)
    return "#" + "".join(f"{round(p + (q - p) * t):02x}" for p, q in zip(a, b))


def _place(path: Path) -> str:
    """A platform file as people find it: from the repository's root when it is there."""
    try:
        return str(path.resolve().relative_to(REPOSITORY))
    except ValueError:
        return path.name


def setup_text(row: Row) -> str:
    """What a row runs, in one line: platform, placement, workload, settings."""
    from progsim.platform import load_platform

    model = load_platform(row.platform)
    per_node = row.ranks_per_node or model.placement.ranks_per_node
    nodes = -(-row.ranks // per_node)
    where = "on one node (shared memory)" if nodes == 1 else f"on {nodes} nodes, {min(per_node, row.ranks)} per node"
    parts = [f"platform {model.name} ({_place(row.platform)}), {model.node.cores} cores per node",
             f"{row.ranks} ranks {where}"]
    work = row.workload
    if isinstance(work, Collective):
        parts.append(f"{work.name} of {size_label(work.size)} on {work.ranks} ranks, each rank computing as long "
                     f"as the collective takes alone under that mechanism")
    else:
        computation = (time_label(work.compute_s) if work.compute_s is not None
                       else f"{(work.flops or 0) / 1e6:.3g} Mflop")
        who = {"sender": "the sender (rank 0)", "receiver": "the receiver (rank 1)", "both": "both ranks"}[work.side]
        parts.append(f"{size_label(work.size)} from rank 0 to rank 1 while {who} computes {computation}")
    if work.tests:
        parts.append(f"{work.tests} MPI_Test call{'s' if work.tests > 1 else ''} cut the computation")
    if row.settings:
        parts.append("settings " + ", ".join(row.settings))
    return "; ".join(parts)


def png_size(path: Path) -> tuple[int, int]:
    """Width and height from a PNG's header (its IHDR chunk)."""
    with path.open("rb") as handle:
        head = handle.read(24)
    width, height = struct.unpack(">II", head[16:24])
    return width, height


# ---- the page -----------------------------------------------------------------------------------------------

def _e(text: str) -> str:
    return html.escape(text, quote=False)


def _a(text: str) -> str:
    return html.escape(text, quote=True)


def _intro() -> list[str]:
    lines = ['<div class="intro">',
             "<p>Each case replays a tiny MPI program in progsim (a simulator built on SimGrid) under the progress "
             "mechanisms below, and draws what every rank did. In the point-to-point cases rank 0 posts "
             "<code>MPI_Isend</code>, rank 1 <code>MPI_Irecv</code>, one of them (or both) computes, then both call "
             "<code>MPI_Wait</code>. A small message goes <em>eagerly</em>: it is sent at once and lands in a "
             "buffer. A large one needs a <em>rendezvous</em>: a request-to-send, an answer, then the data; each "
             "step must be run by someone, and who runs it is the progress mechanism.</p>",
             "<p>Under each picture, the overhead ratio of Reynier's thesis (2022, eq. 4.1): "
             "<code>r = (t - max(comp, comm)) / min(comp, comm)</code>, where t is the time of the run shown, comp "
             "and comm the computation and the communication each run alone under the same mechanism. "
             "<strong>r = 0</strong>: the communication hid completely behind the computation; "
             "<strong>r = 1</strong>: one ran after the other (serialized); above 1: worse than that. "
             "Because comp and comm are measured under the same mechanism, r does not show a mechanism's own cost "
             "(a core less, a slower computation): the run's time and the computation's slowdown, also under each "
             "picture, do.</p>",
             '<dl class="mechanisms">']
    lines += [f"<dt>{_e(kind.name)}</dt><dd>{_e(kind.summary)}</dd>" for kind in progress_kinds()]
    lines += ["</dl>", "<p>How to read a picture: a row per rank, and a row per agent that ran protocol steps (a "
              "progress thread, a reserved core, a network card, SMPI's network under ideal). The pictures of a "
              "row of the page share their time axis. Click a picture to see it full size.</p>",
              '<ul class="legend">']
    lines += [f'<li><span class="swatch" style="background:{COLOURS[c]}"></span><span><strong>{_e(c)}</strong>: '
              f"{_e(words)}</span></li>" for c, words in LEGEND]
    lines += [f"<li>{ARROW_SVG}<span><strong>arrow</strong>: a message or a transfer, from where it was started to "
              "the step that handled its arrival</span></li>", "</ul>", "</div>"]
    return lines


def _figure(picture: Picture, folder: Path, case: Case) -> str:
    width, height = png_size(folder / picture.png)
    ranks = f" (median of {picture.ranks} ranks, worst {ratio_text(picture.worst)})" if picture.ranks > 1 else ""
    alt = f"Gantt picture of case {case.name} under {picture.mechanism}"
    return (f'<figure data-case="{_a(case.name)}" data-row="{picture.row + 1}" '
            f'data-mechanism="{_a(picture.mechanism)}" data-ratio="{ratio_text(picture.ratio)}">'
            f'<a href="{_a(picture.png)}"><img src="{_a(picture.png)}" width="{width}" height="{height}" '
            f'alt="{_a(alt)}"></a>'
            f'<figcaption><span class="mech">{_e(picture.mechanism)}</span> '
            f'<span class="r" style="background:{ratio_colour(picture.ratio)}">r = {ratio_text(picture.ratio)}</span> '
            f"{_e(verdict(picture.ratio))}{_e(ranks)}<br>"
            f'<span class="detail">run {time_label(picture.total)}; alone: computation {time_label(picture.comp_ref)}, '
            f"communication {time_label(picture.comm_ref)}; computation slowdown "
            f"x{picture.slowdown:.2f}</span></figcaption></figure>")


def _case(case: Case, pictures: dict[tuple[str, int, str], Picture], folder: Path) -> list[str]:
    lines = [f'<section id="{_a(case.name)}">', f"<h2>{_e(case.title)}</h2>", '<div class="explanation">']
    lines += [f"<p>{_e(p)}</p>" for p in case.paragraphs]
    lines.append("</div>")
    for r, row in enumerate(case.rows):
        if row.label:
            lines.append(f"<h3>{_e(row.label)}</h3>")
        lines.append(f'<p class="setup">{_e(setup_text(row))}</p>')
        lines.append('<div class="grid">')
        lines += [_figure(pictures[(case.name, r, m)], folder, case) for m in row.mechanisms]
        lines.append("</div>")
    lines.append("</section>")
    return lines


def _columns(cases: list[Case]) -> list[str]:
    used = {m for case in cases for row in case.rows for m in row.mechanisms}
    order = progress_mechanisms()
    return [m for m in order if m in used] + sorted(used - set(order))


def _cell(picture: Optional[Picture]) -> tuple[str, float]:
    """A table cell's text (the ratio, and the slowdown when the computation slowed) and its ratio."""
    if picture is None:
        return "-", math.nan
    text = ratio_text(picture.ratio)
    if abs(picture.slowdown - 1) >= 0.02:
        text += f" (comp x{picture.slowdown:.2f})"
    return text, picture.ratio


def _table(cases: list[Case], pictures: dict[tuple[str, int, str], Picture]) -> list[str]:
    columns = _columns(cases)
    lines = ['<h2 id="summary">All the ratios</h2>',
             "<p>r per case and mechanism (with the computation's slowdown where it is not 1).</p>", "<table>",
             "<tr><th>case</th><th>row</th>" + "".join(f"<th>{_e(m)}</th>" for m in columns) + "</tr>"]
    for case in cases:
        for r, row in enumerate(case.rows):
            cells = []
            for m in columns:
                text, ratio = _cell(pictures.get((case.name, r, m)))
                colour = ratio_colour(ratio) if text != "-" else "#ffffff"
                cells.append(f'<td class="ratio" style="background:{colour}">{_e(text)}</td>')
            lines.append(f'<tr><td><a href="#{_a(case.name)}">{_e(case.name)}</a></td><td>{_e(row.label)}</td>'
                         + "".join(cells) + "</tr>")
    lines.append("</table>")
    return lines


def write_page(cases: list[Case], pictures: list[Picture], path: Path) -> None:
    from progsim import __version__

    found = {(p.case, p.row, p.mechanism): p for p in pictures}
    lines = ["<!DOCTYPE html>", '<html lang="en">', "<head>", '<meta charset="utf-8">',
             '<meta name="viewport" content="width=device-width, initial-scale=1">',
             '<meta name="generator" content="progsim gallery">',
             "<title>Seeing MPI overlap: the progsim teaching gallery</title>", f"<style>\n{STYLE}\n</style>",
             "</head>", '<body data-images-loaded="pending">',
             "<h1>Seeing MPI overlap: the progsim teaching gallery</h1>", *_intro(),
             "<nav><h2>Cases</h2><ol>",
             *[f'<li><a href="#{_a(c.name)}">{_e(c.title)}</a></li>' for c in cases],
             '<li><a href="#summary">All the ratios</a></li>', "</ol></nav>"]
    for case in cases:
        lines += _case(case, found, path.parent)
    lines += _table(cases, found)
    lines += [f"<footer>Made with <code>progsim gallery</code> (progsim {_e(__version__)}) from the case files "
              + ", ".join(f"<code>{_e(c.path.name)}</code>" for c in cases)
              + ". Every number comes from a simulation; the explanations say where a behaviour comes from.</footer>",
              LOADED_SCRIPT, "</body>", "</html>"]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


# ---- the table on stdout ----------------------------------------------------------------------------------------

def ratio_table(cases: list[Case], pictures: list[Picture]) -> str:
    """The ratios as a Markdown table: a line per case and row, a column per mechanism."""
    found = {(p.case, p.row, p.mechanism): p for p in pictures}
    columns = _columns(cases)
    header = ["case", "row", *columns]
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for case in cases:
        for r, row in enumerate(case.rows):
            cells = [_cell(found.get((case.name, r, m)))[0] for m in columns]
            lines.append("| " + " | ".join([case.name, row.label or "-", *cells]) + " |")
    return "\n".join(lines)
