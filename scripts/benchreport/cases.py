# SPDX-License-Identifier: GPL-2.0
"""What the benchmarks measure: the vehicles that run them, the suites,
cases and rows the report shows, and finding a case's record.

A record is one time_bench line as parse.py returns it: a dict with suite,
case, ctx, variant ("" or INIT0), ns, ns_min, cycles, n, runs, cpus,
boots (and ns_boots, fwd_*, perf, profile, locks where the log has
them).
"""
import re

# vehicle: (description, unit)
VEHICLES = {
    "host": ("this host, native", "ns/op (median of the runs)"),
    "uml": ("User-Mode Linux (linux-source-6.1, SLUB, -O2), 1 CPU, native",
            "ns/op (median of the runs); caveats: no SMP, no lock prefix on "
            "atomics, this_cpu_* read-modify-write emulated (about 5 ns "
            "instead of 1, which penalises SLUB's fast path)"),
    "icount": ("QEMU -icount shift=0,sleep=off, 1 vCPU",
               "instructions/op (1 guest ns = 1 instruction); not time: "
               "cache misses and the cost of lock-prefixed instructions "
               "are invisible"),
    "user": ("user space on this host, native, 1 and 2 threads",
             "ns/op (per element, median of the runs; cycles in the raw "
             "lines are TSC ticks)"),
    "fwd": ("qmp_vnic forwarding, QEMU -icount shift=0,sleep=off, 1 or 2 "
            "vCPUs",
            "instructions/packet under -icount, each row says what it "
            "measured (perf stat's task-clock minus idle time, "
            "over the packets; 1 guest ns = 1 instruction); with 2 vCPUs "
            "the clock is shared (it advances with both vCPUs' "
            "instructions), so the figure is the busiest vCPU's busy time, "
            "every instruction executed while it was busy; not time: cache "
            "misses, lock-prefixed instructions and cross-CPU traffic are "
            "invisible.  Where a 2-vCPU -icount guest cannot run, plain "
            "TCG runs those tests: EMULATED ns, host time spent emulating, "
            "never a figure to quote"),
    "umlfwd": ("qmp_vnic forwarding in User-Mode Linux (linux-source-6.1, "
               "SLUB, -O2, nftables), 1 CPU, native",
               "ns/packet, native time: each run's wall time minus the "
               "CPU's idle time, over the packets (UML has no perf); each "
               "boot's median run, then the median over the boots, their "
               "spread in brackets; the boots alternate which mode runs "
               "first.  UML has no ftrace, so pool mode has no free hook: "
               "the heads nftables frees go to the slab.  Caveats as for "
               "the uml vehicle: 1 CPU, the interrupt flag and this_cpu_* "
               "read-modify-write ops emulated"),
    "tcg": ("QEMU plain TCG (emulated), 2 vCPUs, parallel cases only",
            "emulated ns/op: NOT time (most atomics look nearly free, "
            "memory traffic between CPUs is not modelled, and an atomic "
            "the host cannot do natively, such as SLUB's cmpxchg16b, may "
            "stop every vCPU); these runs show that the parallel cases "
            "work, nothing more"),
}
# BENCHMARKS.md's sections and the summary's columns, in this order
ORDER = ["icount", "uml", "tcg", "user", "fwd", "umlfwd", "host"]


def kernel_series(kernel):
    """(major, minor) of a run's kernel name ("7.3.4+deb13-amd64",
    "uml-7.3"), or None."""
    m = re.search(r"(?:^|-)(\d+)\.(\d+)", kernel)
    return (int(m.group(1)), int(m.group(2))) if m else None


def sheaves(kernel):
    """True if @kernel's slab has sheaves (SLUB since 7.0)."""
    series = kernel_series(kernel)
    return bool(series) and series >= (7, 0)


def slab_label(kernel, extra=""):
    """What the tables and plots call the slab on @kernel, with the
    @extra words of a column ("softirq"): "slab (sheaves, ...)" where
    SLUB has per-CPU sheaves and per-node barns (7.0+)."""
    words = (["sheaves"] if sheaves(kernel) else []) + \
        ([extra] if extra else [])
    return "slab (%s)" % ", ".join(words) if words else "slab"


def describe(vehicle, kernel):
    """(description, unit) of @vehicle's run on @kernel: VEHICLES', with
    the UML kernel's source series and slab."""
    what, unit = VEHICLES[vehicle]
    series = kernel_series(kernel)
    if vehicle in ("uml", "umlfwd") and series:
        what = what.replace("linux-source-6.1, SLUB", "linux-source-%d.%d, %s"
                            % (series + ("SLUB with sheaves" if sheaves(kernel)
                                         else "SLUB",)))
    return what, unit
KERNEL_SUITES = ("alf_queue", "qmempool", "skb")
INIT0 = "init0"  # variant of the records of console-init0.log

ALF_VARIANTS = ["mpmc", "spsc", "mpsc", "spmc"]
ALF_CASES = ["simple", "multi128"] + ["bulk%d" % n
                                      for n in (1, 2, 4, 8, 16, 32)]
RING_COLS = ["alf_mpmc", "rte_mpmc", "ck_mpmc", "alf_spsc", "rte_spsc",
             "ck_spsc"]
RING_LIBS = {"alf": "ALF queue", "rte": "DPDK rte_ring",
             "ck": "Concurrency Kit ck_ring"}
BULKS = [1, 2, 4, 8, 16, 32]
BULKS_2THR = [1, 8]
POOL_ROWS = [("reuse", "alloc 1, free 1"),
             ("pattern256", "alloc 256, free 256 (NIC)"),
             ("write_reuse", "alloc 1, write it, free 1"),
             ("write_pattern256", "alloc 256, write each, free 256"),
             ("bulk16", "kmem_cache_alloc/free_bulk 16"),
             ("check", "debug mode's checks of a free (one call)")]
SKB_ROWS = [("reuse", "build 1, free 1"),
            ("pattern256", "build 256, free 256 (NIC ring)")]
# vnic/forward-bench.sh's tests: case fwd/<test>_<stock|pool>
FWD_ROWS = [("drop", "early drop (nftables raw, prerouting)"),
            ("forward", "forward, TX completion on the RX CPU"),
            ("forward_txcpu", "forward, TX completion on another CPU"),
            ("multiflow", "multi-flow forward, every CPU")]
FWD_MODES = [("stock", "stock (NAPI skb cache)"), ("pool", "skb pool")]


def find(recs, suite, case, ctx="process", variant=""):
    """The record of @suite/@case in @ctx and @variant, or None."""
    for r in recs:
        if (r["suite"], r["case"], r["ctx"], r["variant"]) == \
                (suite, case, ctx, variant):
            return r
    return None


def lookup(recs, suite, case, ctx="process", variant=""):
    """find()'s record's ns, or None."""
    r = find(recs, suite, case, ctx, variant)
    return r["ns"] if r else None


def fwd_rows(recs, clock=None):
    """(test, text, cpus, clock) of the forwarding tests found in @recs
    (only those measured with @clock, if given)."""
    out = []
    for key, text in FWD_ROWS:
        rs = [r for r in (find(recs, "fwd", "%s_%s" % (key, m), "softirq")
                          for m, _ in FWD_MODES) if r]
        if rs and clock in (None, rs[0].get("fwd_clock")):
            out.append((key, text, max(r["cpus"] for r in rs),
                        rs[0].get("fwd_clock", "time")))
    return out


def per_packet(unit):
    """"instructions/packet" or "ns/op": the quantity, without "per"."""
    return re.sub(r"/(op|packet)$", "", unit)
