# SPDX-License-Identifier: GPL-2.0
"""The summary: the key cases and targets, one column per vehicle and
kernel (BENCHMARKS.md's), and its headline rows (README.md's).  summary()
makes it from runs, summary_table() writes it, parse_summary() reads it
back from the table, merge_summary() puts a new run's columns into an
older summary and headline_table() writes its HEADLINE rows."""
from . import prose
from .cases import FWD_MODES, FWD_ROWS, ORDER, find, sheaves
from .tables import cell, table
from .targets import MISSED_WHY, TARGETS, targets

# Figures of the 2014 RFC (Xeon E5-2695, native ns), quoted for reference
RFC_2014 = {"alf_mpmc_bulk1": 9.5, "alf_mpmc_bulk16": 1.55,
            "alf_spsc_bulk1": 1.28, "alf_spsc_bulk16": 1.11,
            "slab_reuse": 19.6, "pool_reuse": 7.8,
            "slab_pattern256": 45.0, "pool_pattern256": 11.8}
RFC_HEAD = "RFC 2014, Xeon E5-2695 (ns)"

# README.md's headline: the summary's rows it shows, (suite, case) of a
# summary_rows() row or ("fwd", <FWD_ROWS key>_<FWD_MODES mode>) of a vnic
# row, in this order; BENCHMARKS.md has the others
HEADLINE = [("qmempool", "slab_reuse"), ("qmempool", "pool_reuse"),
            ("qmempool", "slab_pattern256"), ("qmempool", "pool_pattern256"),
            ("skb", "napi_pattern256"), ("skb", "pool_pattern256"),
            ("fwd", "drop_stock"), ("fwd", "drop_pool"),
            ("fwd", "forward_txcpu_stock"), ("fwd", "forward_txcpu_pool")]


# The column a forwarding run's figures go to: UML's (umlfwd) to the uml
# column of its series, the -icount guests' (fwd) to the icount column of
# their kernel where all of them are -icount (else a fwd column)
FWD_COLUMN = {"umlfwd": "uml", "fwd": "icount"}


def summary(runs):
    """The summary's table: the key cases, one column per vehicle run."""
    rows = summary_rows()
    # One column per vehicle run; the forwarding figures of an icount
    # guest (vehicle fwd) go to the icount column of their kernel
    cols, emulated, replaces = [], [], {}
    for v, k, recs in runs:
        if v not in ("icount", "uml", "host", "fwd", "user", "umlfwd"):
            continue
        part = "vnic" if v in ("fwd", "umlfwd") else "main"
        if v == "umlfwd":
            v = FWD_COLUMN[v]
        if v == "fwd":
            # emulated time is never quoted here
            if any(r.get("fwd_clock") == "tcg" for r in recs):
                emulated.append(k)
            recs = [r for r in recs if r.get("fwd_clock") != "tcg"]
            if recs and all(r.get("fwd_clock") == "icount" for r in recs):
                v = FWD_COLUMN[v]
        replaces.setdefault(column(v, k), set()).add(part)
        col = next((c for c in cols if c[:2] == [v, k]), None)
        if col:
            col[2] = col[2] + recs
        else:
            cols.append([v, k, list(recs)])
    fwd = []
    for key, text in FWD_ROWS:
        for mode, label in FWD_MODES:
            r = next((find(recs, "fwd", "%s_%s" % (key, mode), "softirq")
                      for _, _, recs in cols
                      if find(recs, "fwd", "%s_%s" % (key, mode), "softirq")),
                     None)
            if r:
                fwd.append(("%s%d CPU%s)" % (
                    fwd_row(text, label), r["cpus"],
                    "s" * (r["cpus"] > 1)), "fwd", "%s_%s" % (key, mode),
                    "softirq", None))
    body = {}
    for text, suite, case, ctx, _ in rows + fwd:
        for v, k, recs in cols:
            body.setdefault(text, {})[column(v, k)] = cell(recs, suite,
                                                           case, ctx)
    for v, k, recs in cols:
        for text, fig, limit, ok in targets(v, recs, k):
            body.setdefault(target_row(text, limit), {})[column(v, k)] = \
                "%s %s" % (fig, "met" if ok else "**missed**")
    return {"columns": [column(v, k) for v, k, _ in cols], "rows": body,
            "emulated": emulated, "replaces": replaces}


def fwd_row(text, label):
    """A vnic row's text up to its CPUs: the test's @text (FWD_ROWS) and
    its mode's @label (FWD_MODES)."""
    return "vnic %s, %s (" % (text, label.split(" (")[0])


def target_row(text, limit):
    """The summary's row of an issue 10 target."""
    return "target <= %g: %s" % (limit, text)


def column(vehicle, kernel):
    """A summary column's heading: its vehicle, kernel and unit, and
    where the kernel's slab has sheaves (7.0+), that it has."""
    return "%s %s (%s%s)" % (vehicle, kernel, "instructions"
                             if vehicle == "icount" else "ns",
                             ", slab with sheaves" if sheaves(kernel) else "")


def summary_rows():
    """The summary's fixed rows: (text, suite, case, ctx, RFC 2014 key)."""
    return [("ALF MPMC, per element, bulk 1", "alf_queue", "mpmc_bulk1",
             "process", "alf_mpmc_bulk1"),
            ("ALF MPMC, per element, bulk 16", "alf_queue", "mpmc_bulk16",
             "process", "alf_mpmc_bulk16"),
            ("ALF SPSC, per element, bulk 1", "alf_queue", "spsc_bulk1",
             "process", "alf_spsc_bulk1"),
            ("ALF SPSC, per element, bulk 16", "alf_queue", "spsc_bulk16",
             "process", "alf_spsc_bulk16"),
            ("slab alloc+free, reuse (softirq)", "qmempool", "slab_reuse",
             "softirq", "slab_reuse"),
            ("qmempool alloc+free, reuse (softirq)", "qmempool",
             "pool_reuse", "softirq", "pool_reuse"),
            ("slab, NIC pattern 256 (softirq)", "qmempool",
             "slab_pattern256", "softirq", "slab_pattern256"),
            ("qmempool, NIC pattern 256 (softirq)", "qmempool",
             "pool_pattern256", "softirq", "pool_pattern256"),
            ("skb head, NAPI cache, pattern 256", "skb", "napi_pattern256",
             "softirq", None),
            ("skb head, slab, pattern 256", "skb", "slab_pattern256",
             "softirq", None),
            ("skb head, skb pool, pattern 256", "skb", "pool_pattern256",
             "softirq", None)]


def summary_table(sm):
    """Markdown of a summary (see summary()): the fixed rows, then the
    forwarding rows; a row without any figure is left out."""
    rfc = {text: key for text, _, _, _, key in summary_rows()}
    order = [t for t, _, _, _, _ in summary_rows()]
    order += [t for t in sm["rows"] if t not in order]
    body = []
    for text in order:
        cells = [sm["rows"].get(text, {}).get(c, "n/a")
                 for c in sm["columns"]]
        if all(c in ("n/a", "") for c in cells):
            continue
        body.append([text] + cells +
                    ["%g" % RFC_2014[rfc[text]] if rfc.get(text) else ""])
    out = table(["case"] + sm["columns"] + [RFC_HEAD], body)
    if any(t.startswith("vnic ") and t in sm["rows"] for t in order):
        out += ["", prose.text("summary_vnic") + (
            "  " + prose.text("summary_emulated",
                              kernels=", ".join(sm["emulated"]))
            if sm["emulated"] else "")]
    return out + missed_why(sm, order)


def missed_why(sm, order):
    """Under the summary: each target a column misses, the columns, and
    why (targets.MISSED_WHY)."""
    out = []
    for text in order:
        if not text.startswith("target <= "):
            continue
        cols = [" ".join(c.split()[:2]) for c in sm["columns"]
                if "**missed**" in sm["rows"].get(text, {}).get(c, "")]
        if cols:
            what = text.split(": ", 1)[1]
            out.append("- %s (%s): %s" % (
                what, ", ".join(cols),
                MISSED_WHY.get(what, "no reason recorded")))
    return ["", prose.text("summary_missed"), ""] + out if out else []


def headline_rows(sm):
    """The texts of summary @sm's HEADLINE rows, in its order (a vnic
    test and mode may have a row for each count of CPUs it ran on)."""
    fixed = {(suite, case): text
             for text, suite, case, _, _ in summary_rows()}
    fwd = {("fwd", "%s_%s" % (key, mode)): fwd_row(text, label)
           for key, text in FWD_ROWS for mode, label in FWD_MODES}
    out = []
    for key in HEADLINE:
        if key in fixed:
            out += [fixed[key]] if fixed[key] in sm["rows"] else []
        else:
            out += [t for t in sm["rows"] if t.startswith(fwd[key])]
    return out


def headline_table(sm):
    """Markdown of summary @sm's HEADLINE rows that have a figure, in the
    columns of summary_table() that have one in them; [] if none has."""
    rfc = {text: key for text, _, _, _, key in summary_rows()}
    rows = headline_rows(sm)
    cols = [c for c in sm["columns"]
            if any(sm["rows"][t].get(c, "n/a") not in ("n/a", "")
                   for t in rows)]
    body = []
    for text in rows:
        cells = [sm["rows"][text].get(c, "n/a") for c in cols]
        if all(c in ("n/a", "") for c in cells):
            continue
        body.append([text] + cells +
                    ["%g" % RFC_2014[rfc[text]] if rfc.get(text) else ""])
    if not body:
        return []
    if not any(r[-1] for r in body):
        body = [r[:-1] for r in body]
        return table(["case"] + cols, body)
    return table(["case"] + cols + [RFC_HEAD], body)


def targets_table(sm):
    """README.md's table of the targets: each target row of summary @sm,
    in the columns that have a figure for one, the figure and whether it
    is met (the rest of the cell, e.g. the boots, in BENCHMARKS.md)."""
    rows = [t for t in sm["rows"] if t.startswith("target <= ")]
    cols = [c for c in sm["columns"]
            if any(sm["rows"][t].get(c, "n/a") not in ("n/a", "")
                   for t in rows)]
    body = []
    for text in rows:
        cells = []
        for c in cols:
            x = sm["rows"][text].get(c, "n/a")
            cells.append(x if x in ("n/a", "") else "%s %s" % (
                x.split()[0], x.split()[-1]))
        body.append([text[len("target "):]] + cells)
    return table(["target"] + cols, body) if body else []


def parse_summary(lines):
    """The summary (as summary() returns it) of a table summary_table()
    wrote, read back from BENCHMARKS.md (or an older README.md): the
    first table of @lines."""
    rows = []
    for line in lines:
        if line.startswith("| "):
            rows.append([c.strip()
                         for c in line.strip().strip("|").split("|")])
        elif rows and not line.startswith("|"):
            break
    if not rows or rows[0][0] != "case":
        return {"columns": [], "rows": {}, "emulated": [], "replaces": {}}
    cols = [c for c in rows[0][1:] if c != RFC_HEAD]
    body = {r[0]: dict(zip(cols, r[1:])) for r in rows[1:]}
    # The kernels of the sentence summary_table() adds for them
    tail = prose.text("summary_emulated", kernels="\0").split("\0")
    emulated = []
    for line in lines:
        if tail[1] in line:
            head = line[:line.index(tail[1])]
            emulated = head[head.rindex(".  ") + 3:].split(", ") \
                if ".  " in head else head.split(", ")
    return {"columns": cols, "rows": body, "emulated": emulated,
            "replaces": {}}


# The summary rows of the forwarding tests' targets
FWD_TARGET_ROWS = {target_row(t, lim) for t, _, lim, how in TARGETS
                   if how[0] == "fwd"}


def row_part(text):
    """The part of a column a summary row belongs to: "vnic" for the
    forwarding tests' rows and their targets (a fwd or umlfwd run's), else
    "main"."""
    return "vnic" if text.startswith("vnic ") or \
        text in FWD_TARGET_ROWS else "main"


def merge_summary(old, new):
    """@old's columns and rows with @new's runs in place of theirs: a
    column of a run of @new loses its old figures (a fwd run's only those
    of the vnic rows, the others' all but those) and takes @new's."""
    cols = list(old["columns"]) + [c for c in new["columns"]
                                   if c not in old["columns"]]
    rows = {t: dict(cs) for t, cs in old["rows"].items()}
    for c, parts in new["replaces"].items():
        for t, cs in rows.items():
            if row_part(t) in parts:
                cs.pop(c, None)
    for t, cs in new["rows"].items():
        for c, x in cs.items():
            if row_part(t) in new["replaces"].get(c, ()):
                rows.setdefault(t, {})[c] = x
    key = {c: (ORDER.index(c.split()[0]) if c.split()[0] in ORDER
               else len(ORDER), c) for c in cols}
    # Kernels whose forwarding ran only emulated: @old's, but for a
    # kernel @new ran the forwarding of again, and @new's
    rerun = {c.split()[1] for c, parts in new["replaces"].items()
             if "vnic" in parts}
    emulated = [k for k in old["emulated"] if k not in rerun]
    emulated += [k for k in new["emulated"] if k not in emulated]
    return {"columns": sorted(cols, key=key.get), "rows": rows,
            "emulated": emulated}
