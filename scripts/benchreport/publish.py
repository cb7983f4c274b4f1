# SPDX-License-Identifier: GPL-2.0
"""The Markdown of the runs, and its merge into the tracked files.

write_report() (`make bench`): every run's results.md and plots in its
directory, then beside the report: the report (BENCHMARKS.md), its plots
folder, runs.json (the runs of the report) and summary.md.
publish() (`make bench-publish`): a report's runs merged into the tree's
BENCHMARKS.md (one section per vehicle and kernel, between "bench-run"
markers: the others are kept; before them, after the head, the summary
between bench-summary markers, its columns merged the same way) and
benchmarks/*.png (that run's plots replaced), and the summary's headline
rows written between README.md's bench-headline markers.  A BENCHMARKS.md
without a summary block takes its other columns from README.md's
bench-summary block once, as README.md had the summary before.
"""
import datetime
import json
import os
import re
import shutil
import sys

from . import prose
from .cases import KERNEL_SUITES, ORDER, VEHICLES, describe
from .parse import load_run
from .plots import plots, ring_plot
from .summary import (FWD_COLUMN, column, headline_table, merge_summary,
                      parse_summary, summary, summary_table, targets_table)
from .tables import (case_profiles, fwd_tables, order_table,
                     parallel_tables, ring_tables, tables, target_table)

# The plots a run may have, in the order its section shows them
PNGS = ["alf_bulk.png", "qmempool.png", "skb.png", "fwd.png",
        "ring_user.png"]
SECTION = "<!-- bench-run: %s %s -->"  # vehicle, kernel
SUMMARY_BEGIN = "<!-- bench-summary:begin -->"
SUMMARY_END = "<!-- bench-summary:end -->"
HEADLINE_BEGIN = "<!-- bench-headline:begin -->"
HEADLINE_END = "<!-- bench-headline:end -->"
HOST_CPU = re.compile(r"^- kernel: \S+, host CPU: (.+)$")


def now():
    """This report's date (a run's is its console log's)."""
    return datetime.datetime.now(datetime.timezone.utc).strftime(
        "%Y-%m-%d %H:%M UTC")


def render_run(vehicle, recs, meta, d):
    """results.md and the plots of one run, in its directory @d; returns
    (body lines, plot file names)."""
    what, unit = describe(vehicle, meta["kernel"])
    u = unit.split(" ")[0] if vehicle != "tcg" else "emulated ns/op"
    suites = {r["suite"] for r in recs}
    title = "%s, kernel %s" % (what, meta["kernel"])
    body, pngs = [], []
    body += target_table(vehicle, recs, meta["kernel"])
    if suites & set(KERNEL_SUITES):
        if vehicle != "tcg":
            body += tables(recs, u, meta["kernel"])
            body += order_table(recs, u)
            body += case_profiles(recs, u, meta["kernel"])
            pngs += plots(recs, d, title, u, meta["kernel"])
        body += parallel_tables(recs, u, meta["kernel"])
    if "fwd" in suites:
        body += ([""] if body else []) + fwd_tables(recs, u)
        if not (suites & set(KERNEL_SUITES)) or vehicle == "tcg":
            pngs += plots(recs, d, title, u, meta["kernel"])
    if "ring_user" in suites:
        body += ([""] if body else []) + ring_tables(recs, u)
        ring_plot(recs, d, title, u)
        pngs.append("ring_user.png")
    with open(os.path.join(d, "results.md"), "w") as f:
        f.write("\n".join(body) + "\n")
    return body, pngs


def section(vehicle, recs, meta, body, pngs, links):
    """One run's BENCHMARKS.md section: its marker, heading, the facts of
    the run, @body and the plot @links."""
    what, unit = describe(vehicle, meta["kernel"])
    kernel, date, command = meta["kernel"], meta["date"], meta["command"]
    settings, settings0 = meta["settings"], meta["settings_init0"]
    suites = {r["suite"] for r in recs}
    head = [SECTION % (vehicle, kernel),
            "## %s, kernel %s" % (what, kernel), "",
            "- unit: %s" % unit,
            "- kernel: %s, host CPU: %s" % (kernel, meta["host_cpu"])]
    if suites & set(KERNEL_SUITES):
        boots = recs[0]["boots"]
        head += ["- date: %s; command: `%s` (loops=%s, runs=%s, median "
                 "reported%s)" % (date, command, recs[0]["n"],
                                  recs[0]["runs"],
                                  "; %d boots, the median of their "
                                  "medians, each boot's in results.json"
                                  % boots if boots > 1 else ""),
                 "- init_on_alloc=%s, init_on_free=%s (zeroing counted in "
                 "every alloc when on)%s"
                 % (settings.get("init_on_alloc", "?"),
                    settings.get("init_on_free", "?"),
                    "; the init_on_alloc=0 columns come from a second "
                    "boot with that parameter" if settings0 else "")]
    elif "fwd" in suites:
        fr = [r for r in recs if r["suite"] == "fwd"]
        head += ["- date: %s; command: `%s` (packets per run: %s, "
                 "runs=%s, median reported%s; CPUs per test in the table)"
                 % (date, command, fr[0]["n"], fr[0]["runs"],
                    "; %d boots, the median of their medians, each boot's "
                    "in results.json" % fr[0]["boots"]
                    if fr[0]["boots"] > 1 else ""),
                 "- init_on_alloc=%s, init_on_free=%s (the kernel's "
                 "mem auto-init line; zeroing counted when on)"
                 % (settings.get("init_on_alloc", "?"),
                    settings.get("init_on_free", "?"))]
    else:
        n = {r["cpus"]: r["n"] for r in recs}
        head += ["- date: %s; command: `%s` (elements per run: %s; "
                 "runs=%d, median reported)"
                 % (date, command, ", ".join(
                     "%d with %d thread%s" % (n[k], k, "s" * (k > 1))
                     for k in sorted(n)), recs[0]["runs"])]
    head += ["- raw lines: `build/bench/%s/console.log`%s"
             % (meta["dir"], "; plots: %s there" %
                ", ".join("`%s`" % p for p in pngs) if pngs else ""), ""]
    return head + body + [""] + \
        ["![%s](%s)" % (p, x) for p, x in zip(pngs, links)] + [""]


def copy_plots(vehicle, kernel, d, pngs, pdir, rel):
    """Copy run @d's plots into @pdir as <vehicle>-<kernel>-<plot>, after
    removing that run's older ones; returns the links (@rel/<name>)."""
    prefix = "%s-%s-" % (vehicle, kernel)
    os.makedirs(pdir, exist_ok=True)
    for old in os.listdir(pdir):
        if old.startswith(prefix) and old[len(prefix):] in PNGS:
            os.remove(os.path.join(pdir, old))
    links = []
    for png in pngs:
        shutil.copyfile(os.path.join(d, png), os.path.join(pdir, prefix + png))
        links.append("%s/%s" % (rel, prefix + png))
    return links


def doc_head(command, date):
    """BENCHMARKS.md's title and preamble."""
    return prose.lines("doc_head", command=command, date=date) + [""]


def write_report(specs, out, plots_dir, command):
    """`make bench`'s report of the runs @specs (VEHICLE:KERNEL:DIR) into
    @out, its plots into @plots_dir beside it, and runs.json and
    summary.md beside it."""
    date = now()
    top = os.path.dirname(os.path.abspath(out))
    doc, done, listing = doc_head(command, date), [], []
    for spec in specs:
        vehicle, kernel, d = spec.split(":", 2)
        recs, meta = load_run(vehicle, kernel, d, command)
        body, pngs = render_run(vehicle, recs, meta, d)
        links = copy_plots(vehicle, kernel, d, pngs,
                           os.path.join(top, plots_dir), plots_dir)
        doc += section(vehicle, recs, meta, body, pngs, links) + [""]
        done.append((vehicle, kernel, recs))
        listing.append({"vehicle": vehicle, "kernel": kernel,
                        "dir": os.path.relpath(d, top)})
    with open(out, "w") as f:
        f.write("\n".join(doc))
    with open(os.path.join(top, "runs.json"), "w") as f:
        json.dump(listing, f, indent=1)
    sm = summary(done)
    with open(os.path.join(top, "summary.md"), "w") as f:
        if sm["columns"]:
            f.write("\n".join(summary_table(sm)) + "\n")
        else:
            f.write(prose.text("no_summary", vehicles=", ".join(
                v for v, _, _ in done)) + "\n")


def split_sections(path):
    """BENCHMARKS.md's sections: {(vehicle, kernel): lines}.  A section
    starts at its SECTION marker or, in a file written before the markers,
    at a heading "## <vehicle's description>, kernel <kernel>"."""
    if not os.path.exists(path):
        return {}
    heads = {"## %s, kernel " % what: v for v, (what, _) in VEHICLES.items()}
    marker = re.compile(r"^<!-- bench-run: (\S+) (\S+) -->$")
    out, key = {}, None
    with open(path) as f:
        text = f.read()
    for line in text.splitlines():
        m = marker.match(line)
        new = (m.group(1), m.group(2)) if m else None
        if not new and (key is None or key[2] == "head"):
            for h, v in heads.items():
                if line.startswith(h):
                    new = (v, line[len(h):])
        if new:
            key = new + ("marker" if m else "head",)
            out[new] = [] if m else [SECTION % new]
        if key:
            out[key[:2]].append(line)
    for k, lines in out.items():
        while lines and not lines[-1]:
            lines.pop()
    return out


def section_key(k):
    v, kernel = k
    return (ORDER.index(v) if v in ORDER else len(ORDER), kernel)


def block(text, begin, end):
    """The lines of @text between the lines of its @begin and @end
    markers, or None where it has not both."""
    if begin not in text or end not in text.split(begin, 1)[1]:
        return None
    return text.split(begin, 1)[1].split(end, 1)[0].split("\n")[1:-1]


def old_summary(bench_md, readme):
    """The summary of BENCHMARKS.md's bench-summary block (at @bench_md),
    else of README.md's (at @readme: where publish() wrote it before),
    else an empty one (said: only this run's columns will be left)."""
    for path in (bench_md, readme):
        if os.path.exists(path):
            with open(path) as f:
                lines = block(f.read(), SUMMARY_BEGIN, SUMMARY_END)
            if lines is not None:
                if path == readme:
                    print("bench-report: the other columns of the summary "
                          "taken from %s's bench-summary block, no longer "
                          "written" % readme)
                return parse_summary(lines)
    print("bench-report: no bench-summary block in %s or %s: the summary "
          "has only this run's columns" % (bench_md, readme))
    return parse_summary([])


def host_cpus(sections, columns):
    """The host CPUs of summary @columns: a table of each column and the
    vehicle and host CPU of each run of @sections ({(vehicle, kernel):
    lines}) whose figures it shows ([] if no column has a run)."""
    runs = {}
    for (v, k) in sorted(sections, key=section_key):
        # where summary() put the run's figures (a fwd run's clock is not
        # in its section: its own column where there is no icount one)
        col = column(FWD_COLUMN.get(v, v), k)
        if v == "fwd" and col not in columns:
            col = column(v, k)
        if col not in columns:
            continue
        cpu = next((m.group(1) for m in map(HOST_CPU.match, sections[(v, k)])
                    if m), "not recorded")
        runs.setdefault(col, []).append("%s: %s" % (v, cpu))
    if not runs:
        return []
    return prose.lines("host_cpus") + ["", "| column | host CPU of its "
                                        "runs |", "|---|---|"] + \
        ["| %s | %s |" % (c, "; ".join(runs.get(c, ["no run section"])))
         for c in columns] + [""]


def summary_block(sm, cpus):
    """BENCHMARKS.md's summary block: summary @sm in its markers, then
    the host CPUs of its columns (@cpus, host_cpus()'s)."""
    return [SUMMARY_BEGIN] + prose.lines("summary_head") + [""] + \
        summary_table(sm) + [""] + cpus + [SUMMARY_END, ""]


def readme_text(path):
    """README.md's text, which must have the bench-headline markers."""
    with open(path) as f:
        text = f.read()
    if block(text, HEADLINE_BEGIN, HEADLINE_END) is None:
        sys.exit("bench-report: %s has no %s ... %s block" %
                 (path, HEADLINE_BEGIN, HEADLINE_END))
    return text


def update_readme(path, sm, date, command, cpus):
    """Replace the block between README.md's bench-headline markers with
    the headline rows of summary @sm, its targets and the host CPUs of
    its columns (@cpus, host_cpus()'s)."""
    text = readme_text(path)
    head = headline_table(sm)
    goals = targets_table(sm)
    lines = [HEADLINE_BEGIN, ""] + (head + [""] if head else []) + \
        [prose.text("headline_note", command=command, date=date), ""] + \
        ([prose.text("headline_targets"), ""] + goals + [""]
         if goals else []) + cpus + [HEADLINE_END]
    pre, rest = text.split(HEADLINE_BEGIN, 1)
    post = rest.split(HEADLINE_END, 1)[1]
    with open(path, "w") as f:
        f.write(pre + "\n".join(lines) + post)


def publish(bench, top):
    """Merge the runs of bench/runs.json into top's BENCHMARKS.md (their
    sections and summary columns) and benchmarks/, keeping the other runs'
    sections, plots and summary columns, and write the merged summary's
    headline into top's README.md."""
    listing = os.path.join(bench, "runs.json")
    if not os.path.exists(listing):
        sys.exit("bench-report: no %s: run `make bench` first" % listing)
    with open(listing) as f:
        runs = json.load(f)
    readme = os.path.join(top, "README.md")
    readme_text(readme)  # nothing written where README.md cannot be
    date = now()
    out = os.path.join(top, "BENCHMARKS.md")
    old = old_summary(out, readme)
    sections = split_sections(out)
    done = []
    for run in runs:
        d = os.path.join(bench, run["dir"])
        with open(os.path.join(d, "results.json")) as f:
            data = json.load(f)
        recs, meta, vehicle = data["results"], data["meta"], run["vehicle"]
        pngs = [p for p in PNGS if os.path.exists(os.path.join(d, p))]
        links = copy_plots(vehicle, meta["kernel"], d, pngs,
                           os.path.join(top, "benchmarks"), "benchmarks")
        with open(os.path.join(d, "results.md")) as f:
            body = f.read().rstrip("\n")
        sections[(vehicle, meta["kernel"])] = \
            section(vehicle, recs, meta, body.split("\n"), pngs, links)
        done.append((vehicle, meta["kernel"], recs))
        print("bench-report: published %s %s (%s)" %
              (vehicle, meta["kernel"], meta["date"]))
    sm = merge_summary(old, summary(done))
    cpus = host_cpus(sections, sm["columns"])
    doc = doc_head("make bench-publish", date) + summary_block(sm, cpus)
    for k in sorted(sections, key=section_key):
        doc += sections[k] + [""]
    with open(out, "w") as f:
        f.write("\n".join(doc))
    update_readme(readme, sm, date, "make bench-publish", cpus)
    print("bench-report: wrote %s (with the summary), %s/benchmarks/ and "
          "%s's headline" % (out, top, readme))
