# SPDX-License-Identifier: GPL-2.0
"""The PNG plots of one run (python3-matplotlib): cost per element against
bulk size (alf_bulk.png, ring_user.png) and bars per pattern and series
(qmempool.png, skb.png, fwd.png)."""
import os
import sys
import textwrap

from .cases import (ALF_VARIANTS, BULKS, FWD_MODES, INIT0, POOL_ROWS,
                    RING_COLS, RING_LIBS, SKB_ROWS, fwd_rows, lookup,
                    per_packet, slab_label)


def pyplot():
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        sys.exit("bench-report: python3-matplotlib is missing (make deps)")
    return plt


def save(plt, fig, ax, path, heading, title, grid_axis="both",
         legend_size=None):
    """Title, grid and legend of a plot, then write it to @path."""
    ax.set_title("%s\n%s" % (heading, title), fontsize=9)
    ax.grid(True, axis=grid_axis, alpha=0.3)
    ax.legend(**({"fontsize": legend_size} if legend_size else {}))
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def bulk_plot(path, lines, unit, heading, title, legend_size=None):
    """Cost per element against bulk size (BULKS): @lines are (figures,
    plot style), a line drawn where every bulk size has its figure."""
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(7, 4.5))
    for ys, style in lines:
        if all(y is not None for y in ys):
            ax.plot(BULKS, ys, marker="o", **style)
    ax.set_xscale("log", base=2)
    ax.set_xticks(BULKS)
    ax.set_xticklabels([str(n) for n in BULKS])
    ax.set_xlabel("bulk size (elements per call)")
    ax.set_ylabel("%s per element (enqueue + dequeue)" % unit)
    ax.set_ylim(bottom=0)
    save(plt, fig, ax, path, heading, title, legend_size=legend_size)


def bar_plot(path, recs, suite, rows, series, ylabel, heading, title,
             case="{who}_{key}"):
    """One group of bars per row (key, text), one bar per series (label,
    who, ctx, variant): the record of suite/@case (0 if missing)."""
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(8, 4.5))
    width = 0.8 / len(series)
    for i, (label, who, ctx, variant) in enumerate(series):
        ys = [lookup(recs, suite, case.format(who=who, key=key), ctx,
                     variant) or 0
              for key, _ in rows]
        ax.bar([x + (i - (len(series) - 1) / 2) * width
                for x in range(len(rows))], ys, width, label=label)
    ax.set_xticks(range(len(rows)))
    ax.set_xticklabels([text for _, text in rows], fontsize=8)
    ax.set_ylabel(ylabel)
    save(plt, fig, ax, path, heading, title, grid_axis="y", legend_size=8)


def ring_plot(recs, d, title, unit):
    """ring_user.png: cost per element against bulk size (one thread), one
    line per queue and variant."""
    colors = {"alf": "tab:blue", "rte": "tab:orange", "ck": "tab:green"}
    lines = []
    for c in RING_COLS:
        lib, variant = c.split("_")
        lines.append(([lookup(recs, "ring_user", "%s_bulk%d" % (c, n), "user")
                       for n in BULKS],
                      {"color": colors[lib],
                       "linestyle": "-" if variant == "mpmc" else "--",
                       "label": "%s %s" % (RING_LIBS[lib], variant.upper())}))
    bulk_plot(os.path.join(d, "ring_user.png"), lines, unit,
              "Rings in user space, one thread: cost per element vs bulk "
              "size", title, legend_size=8)


def plots(recs, d, title, unit, kernel):
    """The plots of the kernel suites in @recs (run on @kernel, whose slab
    is named by slab_label()); returns their file names.
    alf_bulk.png: cost per element against bulk size, one line per variant
    and ptr_ring; qmempool.png: slab, pool and objpool per pattern and
    context; skb.png: NAPI cache against slab per pattern; fwd.png: stock
    against pool per forwarding test."""
    pyplot()
    suites = {r["suite"] for r in recs if r["cpus"] == 1}
    init0 = any(r["variant"] == INIT0 for r in recs)
    made = []

    if "alf_queue" in suites:
        bulk_plot(os.path.join(d, "alf_bulk.png"), [
            ([lookup(recs, "alf_queue", "%s_bulk%d" % (v, n)) for n in BULKS],
             {"linestyle": ":" if v == "ptr_ring" else "-",
              "label": "ptr_ring (kernel)" if v == "ptr_ring"
              else v.upper()})
            for v in ALF_VARIANTS + ["ptr_ring"]], unit,
            "ALF queue: cost per element vs bulk size", title)
        made.append("alf_bulk.png")
    if "qmempool" in suites:
        slab = slab_label(kernel)
        series = [(slab, "slab", "process", ""),
                  ("pool", "pool", "process", ""),
                  (slab + ", softirq", "slab", "softirq", ""),
                  ("pool, softirq", "pool", "softirq", ""),
                  ("pool inline, softirq", "pool_inline", "softirq", "")]
        if init0:
            series += [(slab + ", softirq, init_on_alloc=0", "slab",
                        "softirq", INIT0),
                       ("pool, softirq, init_on_alloc=0", "pool", "softirq",
                        INIT0)]
        if lookup(recs, "qmempool", "objpool_reuse"):
            series.append(("objpool (never zeroes)", "objpool", "process",
                           ""))
        bar_plot(os.path.join(d, "qmempool.png"), recs, "qmempool",
                 POOL_ROWS[:2], series, "%s per object (alloc + free)" % unit,
                 "qmempool vs slab vs objpool (256-byte objects, same boot)",
                 title)
        made.append("qmempool.png")
    if "skb" in suites:
        slab = slab_label(kernel)
        series = [("NAPI skb cache", "napi", "softirq", ""),
                  (slab, "slab", "softirq", ""),
                  ("skb pool", "pool", "softirq", "")]
        if init0:
            series += [("NAPI skb cache, init_on_alloc=0", "napi", "softirq",
                        INIT0),
                       (slab + ", init_on_alloc=0", "slab", "softirq",
                        INIT0),
                       ("skb pool, init_on_alloc=0", "pool", "softirq",
                        INIT0)]
        bar_plot(os.path.join(d, "skb.png"), recs, "skb", SKB_ROWS, series,
                 "%s per skb (build + free)" % unit,
                 "sk_buff heads in softirq", title)
        made.append("skb.png")
    if "fwd" in {r["suite"] for r in recs}:
        # One unit per plot: the -icount rows where there are some
        clock = "icount" if fwd_rows(recs, "icount") else None
        rows = [(key, "%s\n(%d CPU%s)" % ("\n".join(textwrap.wrap(text, 22)),
                                          cpus, "s" * (cpus > 1)))
                for key, text, cpus, _ in fwd_rows(recs, clock)]
        what = {"icount": "instructions", "tcg": "EMULATED ns"}.get(
            fwd_rows(recs, clock)[0][3], per_packet(unit))
        bar_plot(os.path.join(d, "fwd.png"), recs, "fwd", rows,
                 [(label, mode, "softirq", "") for mode, label in FWD_MODES],
                 "%s per packet" % what,
                 "qmp_vnic: stock NAPI skb cache vs skb pool", title,
                 "{key}_{who}")
        made.append("fwd.png")
    return made
