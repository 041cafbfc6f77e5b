"""A replay's timeline: read (reader.py) into spans on tracks and arrows, exported for Chrome's trace viewer
(chrome.py) and Paje viewers (paje.py), drawn as a Gantt picture (gantt.py); `progsim timeline` (command.py)."""

from progsim.timeline.reader import (ARRIVALS, Arrow, COLOURS, RUNNER_LABELS, STATE_LABELS, StateSpan, StepSpan,
                                     Timeline, Track, arrows, parse_ranks, rank_agent, read_timeline, select,
                                     state_name, step_category, tracks)

__all__ = ["ARRIVALS", "Arrow", "COLOURS", "RUNNER_LABELS", "STATE_LABELS", "StateSpan", "StepSpan", "Timeline",
           "Track", "arrows", "parse_ranks", "rank_agent", "read_timeline", "select", "state_name", "step_category",
           "tracks"]
