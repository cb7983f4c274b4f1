# SPDX-License-Identifier: GPL-2.0
"""The Markdown tables of one run: each suite's, the targets', the
forwarding tests' (with their perf stat lines, profiles and contended
locks); each
function returns a list of lines."""
import os
import re

from . import prose
from .cases import (ALF_CASES, ALF_VARIANTS, BULKS, BULKS_2THR, FWD_MODES,
                    INIT0, KERNEL_SUITES, POOL_ROWS, RING_COLS, SKB_ROWS,
                    find, fwd_rows, lookup, per_packet, slab_label)
from .targets import MISSED_WHY, fwd_verdicts, targets


def _idle_syms():
    """Symbols of the idle loop (their samples are idle time, not work),
    as vnic/forward-bench.sh lists them for its lock table: one list."""
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                        "..", "..", "vnic", "forward-bench.sh")
    with open(path, encoding="utf-8") as f:
        m = re.search(r"^IDLE_SYMS='([^']+)'$", f.read(), re.M)
    return re.compile(m.group(1))


IDLE_SYMS = _idle_syms()


def table(head, rows):
    """A Markdown table: @head, then @rows (lists of cells)."""
    return ["| " + " | ".join(head) + " |",
            "|---|" + "---:|" * (len(head) - 1)] + \
        ["| " + " | ".join(r) + " |" for r in rows]


def cell(recs, suite, case, ctx="process", digits=1, variant=""):
    """A case's ns as a table cell; n/a where the run has no such case."""
    r = find(recs, suite, case, ctx, variant)
    return "%.*f" % (digits, r["ns"]) if r else "n/a"


def tables(recs, unit, kernel):
    """The single-CPU tables of the kernel suites found in @recs (run on
    @kernel)."""
    suites = {r["suite"] for r in recs if r["cpus"] == 1}
    init0 = any(r["variant"] == INIT0 for r in recs)
    out = []
    if "alf_queue" in suites:
        cols = ALF_VARIANTS + ["ptr_ring"]
        out += prose.lines("alf_table", unit=unit) + [""]
        out += table(["case"] + cols, [
            [c] + [cell(recs, "alf_queue", "%s_%s" % (v, c)) for v in cols]
            for c in ALF_CASES])
        out.append("")
    if "qmempool" in suites:
        head = ["pattern", slab_label(kernel), "pool",
                slab_label(kernel, "softirq"),
                "pool (softirq)", "pool, inline (softirq)",
                "pool, inline called (softirq)",
                "pool, debug mode (softirq)", "objpool"]
        if init0:
            head += [slab_label(kernel, "softirq, init_on_alloc=0"),
                     "pool (softirq, init_on_alloc=0)",
                     "pool, inline (softirq, init_on_alloc=0)",
                     "pool, debug mode (softirq, init_on_alloc=0)",
                     "pool (init_on_alloc=0)"]
        rows = []
        for key, text in POOL_ROWS:
            row = [text] + [cell(recs, "qmempool", "%s_%s" % (who, key), ctx)
                            for ctx in ("process", "softirq")
                            for who in ("slab", "pool")]
            row += [cell(recs, "qmempool", "pool_%s_%s" % (how, key),
                         "softirq") for how in ("inline", "called", "debug")]
            row.append(cell(recs, "qmempool", "objpool_%s" % key))
            if init0:
                row += [cell(recs, "qmempool", "%s_%s" % (who, key),
                             "softirq", variant=INIT0)
                        for who in ("slab", "pool", "pool_inline",
                                    "pool_debug")]
                row.append(cell(recs, "qmempool", "pool_%s" % key,
                                variant=INIT0))
            rows.append(row)
        out += prose.lines("pool_table", unit=unit, zeroing=(
            "the init_on_alloc=0 columns" if init0 else
            "init_on_alloc=0 figures")) + [""]
        out += table(head, rows) + [""]
    if "skb" in suites:
        head = ["pattern", "NAPI skb cache", slab_label(kernel), "skb pool"]
        if init0:
            head += ["NAPI skb cache (init_on_alloc=0)",
                     slab_label(kernel, "init_on_alloc=0"),
                     "skb pool (init_on_alloc=0)"]
        rows = []
        whos = ("napi", "slab", "pool")
        for key, text in SKB_ROWS:
            row = [text] + [cell(recs, "skb", "%s_%s" % (who, key), "softirq")
                            for who in whos]
            if init0:
                row += [cell(recs, "skb", "%s_%s" % (who, key), "softirq",
                             variant=INIT0) for who in whos]
            rows.append(row)
        out += prose.lines("skb_table", unit=unit) + [""]
        out += table(head, rows) + [""]
    return out


def parallel_tables(recs, unit, kernel):
    """The cases that ran on more than one CPU (none on 1-CPU vehicles)."""
    par = {(r["suite"], r["case"], r["ctx"]): r for r in recs
           if r["cpus"] > 1 and r["suite"] in KERNEL_SUITES}
    if not par:
        return []

    def c(suite, case, ctx="process"):
        r = par.get((suite, case, ctx))
        return "%.1f" % r["ns"] if r else "n/a"

    def k(*keys):
        return max([par[x]["cpus"] for x in keys if x in par] or [0])

    rows = []
    for key, text in (("reuse_allcpu", "reuse, every CPU at once"),
                      ("xcpu", "alloc on CPU A, free on CPU B")):
        n = k(*[("qmempool", "%s_%s" % (w, key), x)
                for w in ("slab", "pool") for x in ("process", "softirq")])
        rows.append(["%s (%d CPUs)" % (text, n)] +
                    [c("qmempool", "%s_%s" % (w, key), x)
                     for x in ("process", "softirq")
                     for w in ("slab", "pool")])
    rows.append(["handoff alone, A to B (no allocation)"] +
                [c("qmempool", "handoff_xcpu", x)
                 for x in ("process", "softirq") for w in ("slab", "pool")])
    out = prose.lines("parallel_table", unit=unit) + [""]
    out += table(["case", slab_label(kernel), "pool",
                  slab_label(kernel, "softirq"), "pool (softirq)"], rows)
    n = k(("alf_queue", "mpmc_parallel_bulk8", "process"))
    out += ["", prose.text("parallel_alf", cpus=n, unit=unit,
                           figure=c("alf_queue", "mpmc_parallel_bulk8")), ""]
    return out


def ring_tables(recs, unit):
    """ring_user: the ALF queue beside rte_ring and ck_ring, user space."""
    out = prose.lines("ring_table", unit=unit) + [""]
    rows = [["bulk%d" % n] +
            [cell(recs, "ring_user", "%s_bulk%d" % (c, n), "user", 2)
             for c in RING_COLS] for n in BULKS]

    def best(case):
        r = find(recs, "ring_user", case, "user")
        return "%.2f (%.2f)" % (r["ns_min"], r["ns"]) if r else "n/a"

    rows += [["2 threads, bulk%d: best (median)" % n] +
             [best("%s_2thr_bulk%d" % (c, n)) for c in RING_COLS]
             for n in BULKS_2THR]
    return out + table(["case"] + RING_COLS, rows) + [
        ""] + prose.lines("ring_notes")


def target_table(vehicle, recs, kernel=""):
    """The targets of this run of @vehicle on @kernel: figure, target,
    met."""
    rows = targets(vehicle, recs, kernel)
    if not rows:
        return []
    why = ["- %s: %s" % (t, MISSED_WHY[t]) for t, _, _, ok in rows
           if not ok and t in MISSED_WHY]
    return prose.lines("targets_table") + [""] + table(
        ["figure", "this run", "target", "met"],
        [[t, f, "<= %g" % lim, "yes" if ok else "**no**"]
         for t, f, lim, ok in rows]) + [""] + (
        prose.lines("targets_missed") + [""] + why + [""] if why else [])


def order_table(recs, unit):
    """The order cases: LIFO, FIFO and bottom-drained LIFO model caches,
    objects written."""
    if not find(recs, "qmempool", "order_lifo_write_reuse", "softirq"):
        return []
    models = ("lifo", "fifo", "lifo_bottom")
    rows = []
    for key, text in POOL_ROWS[2:4]:
        for ctx in ("process", "softirq"):
            v = {m: lookup(recs, "qmempool", "order_%s_%s" % (m, key), ctx)
                 for m in models}
            rows.append([text, ctx] +
                        ["%.1f" % v[m] if v[m] is not None else "n/a"
                         for m in models] +
                        ["%.2f" % (v[m] / v["lifo"])
                         if v["lifo"] and v[m] else "n/a"
                         for m in models[1:]])
    return prose.lines("order_table", unit=unit) + [""] + table(
        ["pattern", "context", "LIFO", "FIFO", "LIFO bottom",
         "FIFO / LIFO", "LIFO bottom / LIFO"], rows) + [""]


def fwd_unit(clock, cpus, unit):
    """What a forwarding row's figures are."""
    n = "%d CPU%s" % (cpus, "s" * (cpus > 1))
    return {"icount": "instructions (-icount, %s)" % n.replace("CPU", "vCPU"),
            "tcg": "EMULATED ns (plain TCG, %s): not time"
                   % n.replace("CPU", "vCPU"),
            "uml": "ns (UML, %s)" % n}.get(clock, per_packet(unit))


def pct(a, b):
    """@b against @a, in percent."""
    return "%+.1f%%" % ((b - a) * 100.0 / a) if a and b is not None else "n/a"


def fwd_figure(r):
    """A forwarding record's figure: its ns, and where several boots
    made it, their spread."""
    if not r:
        return "n/a"
    if len(r.get("ns_boots", [])) > 1:
        return "%.1f (%.1f-%.1f)" % (r["ns"], min(r["ns_boots"]),
                                     max(r["ns_boots"]))
    return "%.1f" % r["ns"]


def fwd_rfc(recs):
    """The RFC's forwarding gains beside this run's, where the run is in
    time (clock=uml): a sentence, or []."""
    mine = []
    for key, text, _, _ in fwd_rows(recs, "uml"):
        rs = [find(recs, "fwd", "%s_%s" % (key, m), "softirq")
              for m, _ in FWD_MODES]
        if all(rs) and key in ("drop", "forward"):
            pps = [float(r["fwd_pps"]) if "fwd_pps" in r else None
                   for r in rs]
            mine.append("%s %+.1f ns (%s kpps)" % (
                text, rs[1]["ns"] - rs[0]["ns"],
                "%+.0f" % ((pps[1] - pps[0]) / 1000) if all(pps) else "n/a"))
    if not mine:
        return []
    return ["", prose.text("fwd_rfc", here="; ".join(mine))]


def fwd_tables(recs, unit):
    """vnic/forward-bench.sh: stock against pool per test, the perf stat
    summary of each median run and, where profiled, the functions whose
    cost differs most between the modes."""
    rows = []
    for key, text, cpus, clock in fwd_rows(recs):
        rs = [find(recs, "fwd", "%s_%s" % (key, m), "softirq")
              for m, _ in FWD_MODES]
        ns = [r["ns"] if r else None for r in rs]
        pps = ["{:,}".format(int(r["fwd_pps"])) if r and "fwd_pps" in r
               else "n/a" for r in rs]
        rows.append([text, str(cpus), fwd_unit(clock, cpus, unit)] +
                    [fwd_figure(r) for r in rs] +
                    [pct(ns[0], ns[1])] + pps)
    first = next(r for r in recs if r["suite"] == "fwd")
    uml = first.get("fwd_clock") == "uml"
    if uml:
        out = prose.lines("fwd_table_uml", packets=int(first["n"]),
                          runs=int(first["runs"]), boots=first["boots"])
    else:
        out = prose.lines("fwd_table", packets=int(first["n"]),
                          runs=int(first["runs"]))
    out += [""]
    out += table(["test", "CPUs", "unit", "stock", "pool", "delta",
                  "stock packets/s", "pool packets/s"], rows)
    out += fwd_rfc(recs)
    verdicts = ["%s: %s: %s (%+.1f%%)" % (text, what,
                                          "met" if ok else "MISSED", d * 100)
                for text, what, ok, d in fwd_verdicts(recs)]
    if verdicts:
        out += ["", prose.text("fwd_targets", verdicts="; ".join(verdicts))]
    perf = []
    for key, text, _, _ in fwd_rows(recs):
        for m, label in FWD_MODES:
            r = find(recs, "fwd", "%s_%s" % (key, m), "softirq")
            if r and r.get("perf"):
                perf.append("- %s, %s: %s" % (text, label,
                                              "; ".join(r["perf"])))
    if perf:
        out += ["", prose.text("fwd_perf"), ""] + perf
    for key, text, cpus, clock in fwd_rows(recs):
        out += fwd_profile(recs, key, text, fwd_unit(clock, cpus, unit),
                           clock)
        out += fwd_locks(recs, key, text, clock, fwd_unit(clock, cpus, unit))
    return out + [""]


def fwd_profile(recs, key, text, unit, clock=None):
    """The functions whose share of the samples differs most between stock
    and pool, scaled to each mode's figure per packet (in UML, samples
    taken by the host's perf: another prose)."""
    rs = [find(recs, "fwd", "%s_%s" % (key, m), "softirq")
          for m, _ in FWD_MODES]
    if not all(r and r.get("profile") for r in rs):
        return []
    per = [profile_costs(r) for r in rs]
    rows, count = profile_rows(per, [r["ns"] for r in rs],
                               "every function perf listed (idle loop "
                               "excluded): the figure of the table above")
    f = rs[0]["profile"][0]
    if clock == "uml":
        head = prose.lines("fwd_profile_uml", test=text, unit=unit,
                           period=f["period"], count=count,
                           packets=int(f["n"]))
    else:
        head = prose.lines("fwd_profile", test=text, unit=unit,
                           period=f["period"], count=count)
    return [""] + head + \
        [""] + table(["function", "stock", "pool", "pool - stock"], rows)


def profile_costs(r):
    """Record @r's profile as symbol -> its cost per operation: each
    symbol's share of the samples (the idle loop's left out) times the
    record's figure."""
    d = {}
    for f in r["profile"]:
        if not IDLE_SYMS.search(f["sym"]):
            d[f["sym"]] = d.get(f["sym"], 0) + int(f["samples"])
    tot = sum(d.values()) or 1
    return {k: v * r["ns"] / tot for k, v in d.items()}


def profile_rows(per, figures, total, most=16, digits=0):
    """The rows of a side-by-side profile of two records (their
    profile_costs() @per and figures): the @most functions whose cost
    differs most, then a row @total with the figures, to @digits; and how
    many functions it shows."""
    syms = set(per[0]) | set(per[1])
    delta = sorted(syms, key=lambda s: (-abs(per[1].get(s, 0) -
                                             per[0].get(s, 0)), s))[:most]

    def fig(a, b):
        return ["%.*f" % (digits, a), "%.*f" % (digits, b),
                "%+.*f" % (digits, b - a)]
    rows = [[s] + fig(per[0].get(s, 0), per[1].get(s, 0)) for s in delta]
    return rows + [[total] + fig(*figures)], len(delta)


# The benchmark cases profiled side by side: (suite, the case it is set
# against, the case, what each is called (None: the slab) and their
# difference), each case a format of the pattern's key
PROFILE_PAIRS = [("qmempool", "slab_%s", "pool_%s", None, "pool",
                  "pool - slab"),
                 ("qmempool", "pool_%s", "pool_debug_%s", "pool",
                  "pool, debug mode", "debug - pool"),
                 ("skb", "napi_%s", "pool_%s", "NAPI skb cache", "pool",
                  "pool - NAPI skb cache")]


def case_profiles(recs, unit, kernel):
    """The icount profile boots' tables: for each pool case profiled with
    its counterpart (PROFILE_PAIRS, same context and init_on_alloc),
    where their instructions go, by function."""
    out = []
    rows_of = {"qmempool": POOL_ROWS, "skb": SKB_ROWS}
    for suite, theirs, mine, label, my_label, diff in PROFILE_PAIRS:
        label = label or slab_label(kernel)
        for key, text in rows_of[suite]:
            for variant in ("", INIT0):
                for ctx in ("softirq", "process"):
                    rs = [find(recs, suite, f % key, ctx, variant)
                          for f in (theirs, mine)]
                    if not all(r and r.get("profile") for r in rs):
                        continue
                    rows, count = profile_rows(
                        [profile_costs(r) for r in rs],
                        [r["ns"] for r in rs],
                        "every function: the figure of the tables above",
                        12, 1)
                    f = rs[1]["profile"][0]
                    out += [""] + prose.lines(
                        "case_profile", suite=suite, pattern=text, ctx=ctx,
                        init="init_on_alloc=0" if variant else
                        "init_on_alloc=1", unit=unit, count=count,
                        period=f["period"], n=int(f["n"]),
                        case=mine % key, other=theirs % key)
                    out += [""] + table(
                        ["function", label, my_label, diff], rows)
    if not out:
        return []
    return [""] + prose.lines("case_profiles") + out + [""]


def fwd_locks(recs, key, text, clock, unit):
    """The functions whose waits for a lock were sampled in each mode's
    lock run, per packet in the run's clock."""
    rs = [find(recs, "fwd", "%s_%s" % (key, m), "softirq")
          for m, _ in FWD_MODES]
    if not all(r and "locks_run" in r for r in rs):
        return []
    per = []  # per mode: (caller, lock) -> unit per packet
    for r in rs:
        run, d = r["locks_run"], {}
        for f in r["locks"]:
            k = (f["caller"], "%s, %s()" % (f["type"], f["via"])
                 if f["via"] != "-" else f["type"])
            d[k] = d.get(k, 0) + int(f["samples"]) * run["period"] / run["n"]
        per.append(d)
    keys = sorted(set(per[0]) | set(per[1]),
                  key=lambda k: (-max(m.get(k, 0) for m in per), k))
    rows = [[caller, lock, "%.0f" % per[0].get((caller, lock), 0),
             "%.0f" % per[1].get((caller, lock), 0),
             "%+.0f" % (per[1].get((caller, lock), 0) -
                        per[0].get((caller, lock), 0))]
            for caller, lock in keys]
    tot = [sum(d.values()) for d in per]
    rows.append(["every lock wait sampled", "", "%.0f" % tot[0],
                 "%.0f" % tot[1], "%+.0f" % (tot[1] - tot[0])])
    busy = [r["locks_run"]["busy"] * r["locks_run"]["period"] /
            r["locks_run"]["n"] for r in rs]
    rows.append(["the run's busy time (idle loop excluded)", "",
                 "%.0f" % busy[0], "%.0f" % busy[1],
                 "%+.0f" % (busy[1] - busy[0])])
    out = [""] + prose.lines("fwd_locks", test=text, unit=unit,
                             period=rs[0]["locks_run"]["period"])
    if clock == "icount":
        out += [""] + prose.lines("fwd_locks_icount")
    return out + [""] + table(["function that took the lock", "lock",
                               "stock", "pool", "pool - stock"], rows)
