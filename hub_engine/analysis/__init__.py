"""Batch analysis: every position of many games (or position lists) searched by the engine.

    >>> from hub_engine.analysis import analyse
    >>> summary = analyse(["games.pdn"], variant="russian", depth=8, output="games.jsonl")

By what each part does: tasks.py reads the inputs into tasks; executors.py runs them inline, on
a process pool or on a Dask cluster, and worker.py is what searches one task; records.py holds
the records, their settings and resume; sinks.py and annotate.py write the output files (JSON
Lines, annotated PDN); progress.py draws the bar; run.py is one run (`analyse`) and cli.py the
`hub-engine analyse` command (also `python -m hub_engine.analysis`).
"""
from hub_engine.analysis.records import ResumeError
from hub_engine.analysis.run import AnalysisInterrupted, analyse
from hub_engine.analysis.sinks import OutputError

__all__ = ["AnalysisInterrupted", "OutputError", "ResumeError", "analyse"]
