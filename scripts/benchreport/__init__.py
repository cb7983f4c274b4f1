# SPDX-License-Identifier: GPL-2.0
"""scripts/bench-report's modules, one job each:

cases.py    what the benchmarks measure: vehicles, suites, cases, rows;
            finding a case's record
parse.py    console logs to records; a run's results.json
targets.py  the issues' targets: each one's figure and verdict
tables.py   the Markdown tables of one run
summary.py  the summary table: made, written, read back, merged; its
            headline rows (HEADLINE)
plots.py    the PNG plots of one run (python3-matplotlib)
publish.py  results.md, the report (BENCHMARKS.md, runs.json, summary.md)
            and its merge into the tree's BENCHMARKS.md (the sections and
            the summary) and benchmarks/; README.md's headline table
prose.py    the prose of the Markdown, kept in prose.txt

scripts/tests/bench_report_test.py tests them on canned console logs.
"""
