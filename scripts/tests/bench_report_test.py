#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Tests of scripts/bench-report (the modules of scripts/benchreport/) on
the canned console logs of scripts/tests/bench_report/, after the kernel's
tools/testing/kunit/kunit_tool_test.py.

  bench_report_test.py [-v] [TEST...]     unittest's output
  bench_report_test.py --ktap             one KTAP result per test

scripts/harness-test runs it with --ktap for `make check`.  The standard
library is all it needs: the plot tests are skipped where
python3-matplotlib is missing, and the other tests put stand-ins in place
of the plots.  Nothing tracked is written: the runs are copies in a
temporary folder, and publishing goes to a copy of BENCHMARKS.md (its
summary replaced by a canned one, OLD_SUMMARY), a canned README.md and a
copy of benchmarks/.

The logs (bench_report/):
  icount_console.log, icount_console-init0.log  a real `make bench` run
      (QEMU -icount, 6.1) with the boot messages cut: CRLF, timestamps,
      the qmempool_bench settings line, the mem auto-init line
  uml_console.log   3 UML boots, no timestamps; the third boot lacks
      qmempool/pool_pattern256 in softirq and mpmc_bulk1's cycles
  tcg_console.log   2 vCPUs: per-CPU lines (@cpuN), their aggregates
  user_console.log  alf_queue_user_bench: ring_user, ctx=user, 1 and 2
      threads
  fwd_console.log   vnic/forward-bench.sh through guest-run ("forward_bench:
      " prefix, "# perf/fwd/profile:" lines), the 2-vCPU tests under TCG
  fwd_icount_console.log  the same with every test under -icount
  umlfwd_console.log  forward-bench.sh clock=uml (vehicle umlfwd), 3 boots,
      the second with the pool mode first; boot 3 is every case's median
  host_console.log  `make bench HOST=1`'s dmesg, 2 CPUs
  icount_console-profile-init0.log  a profile boot's lines
      (bench_modules/bench-profile.sh): "# profile:" lines and the
      profiled runs' own time_bench lines, which are no figures
PerfProfileTest runs scripts/perf-profile.sh, the guests' producer of the
"# profile:" lines, on a canned /proc and a stand-in for perf.
Their figures are chosen so that targets are met and missed; the
expectations below were worked out by hand from the lines.
"""
import contextlib
import datetime
import importlib.util
import io
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import traceback
import unittest
from unittest import mock

sys.dont_write_bytecode = True
HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPTS = os.path.dirname(HERE)
TOP = os.path.dirname(SCRIPTS)
LOGS = os.path.join(HERE, "bench_report")
BENCH_REPORT = os.path.join(SCRIPTS, "bench-report")
sys.path.insert(0, SCRIPTS)
from benchreport import (cases, parse, plots, prose, publish,  # noqa: E402
                         summary, tables, targets)
from benchreport.cases import INIT0, find  # noqa: E402

HAVE_MATPLOTLIB = importlib.util.find_spec("matplotlib") is not None

K61 = "6.1.0-57-amd64"
K612 = "6.12.118+deb13-amd64"
# A log's date, as set on the copies (load_run reads the file's mtime)
STAMP = datetime.datetime(2030, 1, 2, 3, 4, 5,
                          tzinfo=datetime.timezone.utc).timestamp()


def log(name):
    return os.path.join(LOGS, name)


def recs_of(name, variant=""):
    return parse.parse(log(name), variant)[0]

def fwd_section(name, heading):
    """bench-report's forwarding tables of log @name, and the index of
    the line @heading in them."""
    out = tables.fwd_tables(recs_of(name), "instructions/packet")
    return out, out.index(heading)



def bench_lines(name):
    """The log's benchmark lines, counted without the parser."""
    with open(log(name), errors="replace") as f:
        return sum("time_bench: " in line for line in f)


def fake_plots(recs, d, title, unit, kernel):
    """Stand-in for plots.plots(): the same file names, no matplotlib."""
    made = []
    for png, suite in (("alf_bulk.png", "alf_queue"),
                       ("qmempool.png", "qmempool"), ("skb.png", "skb")):
        if any(r["suite"] == suite and r["cpus"] == 1 for r in recs):
            made.append(png)
    if any(r["suite"] == "fwd" for r in recs):
        made.append("fwd.png")
    for png in made:
        with open(os.path.join(d, png), "w") as f:
            f.write("plot %s of %s\n" % (png, title))
    return made


def fake_ring_plot(recs, d, title, unit):
    with open(os.path.join(d, "ring_user.png"), "w") as f:
        f.write("plot ring_user.png of %s\n" % title)


IC61 = "icount %s (instructions)" % K61
IC612 = "icount %s (instructions)" % K612
UML = "uml uml-6.1 (ns)"
USER = "user 6.18 (ns)"
# An older summary, as summary_table() writes it: the ALF row and the
# 6.1 vnic rows of its IC61 column are ones a publish of icount and fwd
# runs of 6.1 replaces, the other columns are kept
OLD_SUMMARY = """\
| case | %s | %s | %s | %s | RFC 2014, Xeon E5-2695 (ns) |
|---|---:|---:|---:|---:|---:|
| ALF MPMC, per element, bulk 1 | 1.0 | 16.7 | 95.2 | n/a | 9.5 |
| slab alloc+free, reuse (softirq) | 2.0 | 36.8 | 257.1 | n/a | 19.6 |
| qmempool alloc+free, reuse (softirq) | 3.0 | 8.3 | 138.1 | n/a | 7.8 |
| vnic early drop (nftables raw, prerouting), stock (1 CPU) | 4.0 | n/a \
| 2332.9 | n/a |  |
| vnic forward, TX completion on another CPU, stock (2 CPUs) | 7000.0 \
| n/a | 6252.3 | n/a |  |
| vnic forward, TX completion on another CPU, skb pool (2 CPUs) | n/a \
| n/a | 5890.6 | n/a |  |
| target <= 0.3: pool / slab, reuse, softirq, same boot | n/a | 0.23 met \
| n/a | n/a |  |
| target <= 1: ALF / rte_ring, SPSC, 2 threads, bulk 8, best round | n/a \
| n/a | n/a | 0.75 (3.92 / 5.24) met |  |

vnic rows: an older note.
""" % (IC61, UML, IC612, USER)
OLD_CELLS = {
    "ALF MPMC, per element, bulk 1":
        {IC61: "1.0", UML: "16.7", IC612: "95.2", USER: "n/a"},
    "slab alloc+free, reuse (softirq)":
        {IC61: "2.0", UML: "36.8", IC612: "257.1", USER: "n/a"},
    "qmempool alloc+free, reuse (softirq)":
        {IC61: "3.0", UML: "8.3", IC612: "138.1", USER: "n/a"},
    "vnic early drop (nftables raw, prerouting), stock (1 CPU)":
        {IC61: "4.0", UML: "n/a", IC612: "2332.9", USER: "n/a"},
    "vnic forward, TX completion on another CPU, stock (2 CPUs)":
        {IC61: "7000.0", UML: "n/a", IC612: "6252.3", USER: "n/a"},
    "vnic forward, TX completion on another CPU, skb pool (2 CPUs)":
        {IC61: "n/a", UML: "n/a", IC612: "5890.6", USER: "n/a"},
    "target <= 0.3: pool / slab, reuse, softirq, same boot":
        {IC61: "n/a", UML: "0.23 met", IC612: "n/a", USER: "n/a"},
    "target <= 1: ALF / rte_ring, SPSC, 2 threads, bulk 8, best round":
        {IC61: "n/a", UML: "n/a", IC612: "n/a",
         USER: "0.75 (3.92 / 5.24) met"}}
# README.md with the headline markers and no summary
README = """\
# qmempool

Before the headline.

<!-- bench-headline:begin -->
An old headline.
<!-- bench-headline:end -->

After the headline.
"""


class TempDir(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="bench_report_test.")
        self.addCleanup(shutil.rmtree, self.tmp)

    def run_dir(self, name, *logs):
        """A run directory @name under the temporary folder with copies of
        @logs as console.log (and console-init0.log, and the profile boot's
        console-profile-init0.log)."""
        d = os.path.join(self.tmp, "bench", name)
        os.makedirs(d)
        for src, dst in zip(logs, ("console.log", "console-init0.log",
                                   "console-profile-init0.log")):
            shutil.copyfile(log(src), os.path.join(d, dst))
            os.utime(os.path.join(d, dst), (STAMP, STAMP))
        return d


class ParseTest(unittest.TestCase):
    """Every kind of line parse() accepts, and the figures it reads."""

    def test_line_is_bench_line_re(self):
        with open(os.path.join(SCRIPTS, "bench-line.re")) as f:
            self.assertEqual(parse.LINE.pattern, f.read().strip())

    def test_icount_every_line(self):
        recs, settings = parse.parse(log("icount_console.log"))
        self.assertEqual(bench_lines("icount_console.log"), 95)
        self.assertEqual(len(recs), 95)
        self.assertEqual(settings, {"init_on_alloc": "1",
                                    "init_on_free": "0",
                                    "object_size": "256"})

    def test_icount_figures(self):
        # [    3.254466] time_bench: alf_queue/mpmc_bulk1 ns=97.160
        #   ns_min=97.034 cycles=97.162 n=20000 runs=3 cpus=1 ctx=process\r
        r = find(recs_of("icount_console.log"), "alf_queue", "mpmc_bulk1")
        self.assertEqual(r, {"suite": "alf_queue", "case": "mpmc_bulk1",
                             "variant": "", "ns": 97.16, "ns_min": 97.034,
                             "cycles": 97.162, "n": 20000, "runs": 3,
                             "cpus": 1, "ctx": "process", "boots": 1})
        r = find(recs_of("icount_console.log"), "qmempool", "pool_reuse",
                 "softirq")
        self.assertEqual((r["ns"], r["ns_min"], r["cycles"]),
                         (136.12, 136.002, 136.123))
        for r in recs_of("icount_console.log"):
            self.assertIsInstance(r["ns"], float)
            self.assertIsInstance(r["n"], int)
            self.assertIn(r["ctx"], ("process", "softirq"))

    def test_init0(self):
        recs, settings = parse.parse(log("icount_console-init0.log"), INIT0)
        self.assertEqual(len(recs), 54)
        self.assertEqual(bench_lines("icount_console-init0.log"), 54)
        self.assertEqual({r["variant"] for r in recs}, {INIT0})
        self.assertEqual(settings["init_on_alloc"], "0")
        self.assertEqual(find(recs, "qmempool", "pool_reuse", "softirq",
                              INIT0)["ns"], 49.002)
        self.assertIsNone(find(recs, "qmempool", "pool_reuse", "softirq"))

    def test_per_cpu_lines_and_no_cycles(self):
        recs = recs_of("tcg_console.log")
        self.assertEqual(len(recs), bench_lines("tcg_console.log"))
        self.assertEqual(len(recs), 22)
        cpu0 = find(recs, "alf_queue", "mpmc_parallel_bulk8@cpu0")
        self.assertEqual((cpu0["ns"], cpu0["cpus"]), (55.1, 1))
        agg = find(recs, "alf_queue", "mpmc_parallel_bulk8")
        self.assertEqual((agg["ns"], agg["ns_min"], agg["cpus"]),
                         (56.3, 55.1, 2))
        agg = find(recs, "qmempool", "slab_reuse_allcpu", "softirq")
        self.assertEqual((agg["ns"], agg["ns_min"], agg["cycles"],
                          agg["cpus"]), (302.2, 271.98, None, 2))

    def test_user_lines(self):
        recs = recs_of("user_console.log")
        self.assertEqual(len(recs), 48)
        self.assertEqual({r["ctx"] for r in recs}, {"user"})
        r = find(recs, "ring_user", "alf_mpmc_bulk32", "user")
        self.assertEqual((r["ns"], r["ns_min"], r["cycles"], r["n"],
                          r["runs"], r["cpus"]), (0.8, 0.76, 1.68, 200000,
                                                  21, 1))
        r = find(recs, "ring_user", "rte_spsc_2thr_bulk8", "user")
        self.assertEqual((r["ns"], r["ns_min"], r["n"], r["cpus"]),
                         (33.85, 5.24, 2000000, 2))

    def test_script_lines(self):
        recs, settings = parse.parse(log("fwd_console.log"))
        self.assertEqual(len(recs), 8)
        self.assertEqual(settings, {"init_on_alloc": "1",
                                    "init_on_free": "0"})
        r = find(recs, "fwd", "forward_stock", "softirq")
        self.assertEqual((r["ns"], r["ns_min"], r["cycles"], r["n"],
                          r["runs"], r["cpus"]),
                         (3426.7, 3420.0, None, 100000, 3, 1))
        self.assertEqual((r["fwd_clock"], r["fwd_pps"], r["fwd_hook"]),
                         ("icount", "291827", "off"))
        self.assertEqual(len(r["perf"]), 2)
        self.assertTrue(r["perf"][0].startswith("task-clock 445.03 msec"))
        self.assertEqual([(p["sym"], p["samples"], p["period"])
                          for p in r["profile"]][:2],
                         [("default_idle", "900", "100000"),
                          ("memset_erms", "120", "100000")])
        self.assertEqual(len(r["profile"]), 7)
        self.assertNotIn("locks", r)  # no lock run
        r = find(recs, "fwd", "forward_txcpu_stock", "softirq")
        self.assertEqual([(f["caller"], f["via"], f["samples"])
                          for f in r["locks"]],
                         [("free_pcppages_bulk", "_raw_spin_lock", "30"),
                          ("sch_direct_xmit", "_raw_spin_lock", "5"),
                          ("free_pcppages_bulk", "-", "2")])
        self.assertEqual(r["locks_run"], {"busy": 2000, "period": 100000,
                                          "n": 100000})
        r = find(recs, "fwd", "multiflow_stock", "softirq")
        self.assertEqual(r["locks"], [])
        r = find(recs, "fwd", "multiflow_pool", "softirq")
        self.assertEqual(r["profile"], [])  # "# profile: ...: no samples"
        self.assertEqual(r["fwd_clock"], "tcg")
        self.assertEqual(parse.parse(log("fwd_icount_console.log"))[1],
                         {"init_on_alloc": "1", "init_on_free": "1"})

    def test_lines_accepted_and_ignored(self):
        text = "\n".join([
            "[   12.000001] time_bench: qmempool/a ns=1.000 ns_min=0.500 "
            "cycles=2.000 n=10 runs=3 cpus=1 ctx=softirq\r",
            "time_bench: qmempool/b@cpu7 ns=1.000 ns_min=0.500 cycles=- "
            "n=10 runs=3 cpus=1 ctx=process",
            "forward_bench: time_bench: fwd/c_stock ns=1.000 ns_min=0.500 "
            "cycles=- n=10 runs=3 cpus=2 ctx=softirq",
            "time_bench: ring_user/d ns=1.000 ns_min=0.500 cycles=3.000 "
            "n=10 runs=3 cpus=1 ctx=user",
            "qmp: BEGIN bench qmempool_bench",
            "forward_bench: # fwd/c_stock: run 1: ns=2.000 cycles=- pps=5",
            "forward_bench: ok 1 fwd_c_stock",
            "qmempool_bench: pool_reuse skipped: ns=1.000",
            "  time_bench: qmempool/e ns=1.000 ns_min=0.500 cycles=- n=10 "
            "runs=3 cpus=1 ctx=process"])
        with tempfile.NamedTemporaryFile("w", suffix=".log") as f:
            f.write(text + "\n")
            f.flush()
            recs, _ = parse.parse(f.name)
        self.assertEqual([(r["suite"], r["case"], r["ctx"], r["cpus"])
                          for r in recs],
                         [("qmempool", "a", "softirq", 1),
                          ("qmempool", "b@cpu7", "process", 1),
                          ("fwd", "c_stock", "softirq", 2),
                          ("ring_user", "d", "user", 1)])
        self.assertEqual([(r["ns"], r["ns_min"], r["cycles"]) for r in recs],
                         [(1.0, 0.5, 2.0), (1.0, 0.5, None),
                          (1.0, 0.5, None), (1.0, 0.5, 3.0)])

    def test_malformed_lines_stop(self):
        good = ("time_bench: qmempool/x ns=1.000 ns_min=1.000 cycles=- n=1 "
                "runs=1 cpus=1 ctx=process")
        bad = [good.replace("ns=1.000", "ns=1.0"),
               good.replace("cycles=-", "cycles=n/a"),
               good.replace("ctx=process", "ctx=irq"),
               good.replace(" runs=1", ""),
               good.replace("qmempool/x", "qmempool_x"),
               good + " extra=1"]
        for line in bad:
            with self.subTest(line=line), \
                    tempfile.NamedTemporaryFile("w", suffix=".log") as f:
                f.write(good + "\n" + line + "\n")
                f.flush()
                with self.assertRaises(SystemExit) as e:
                    parse.parse(f.name)
                self.assertIn("malformed line", str(e.exception.code))


class HostCpuTest(TempDir):
    """The host CPU a run's section names (parse.host_cpu())."""

    def cpuinfo(self, *cpus):
        """A /proc/cpuinfo of @cpus ((model name, family, model, flags))."""
        path = os.path.join(self.tmp, "cpuinfo")
        with open(path, "w") as f:
            for i, (name, fam, model, flags) in enumerate(cpus):
                f.write("processor\t: %d\nvendor_id\t: x\ncpu family\t: "
                        "%s\nmodel\t\t: %s\nmodel name\t: %s\nflags\t\t: "
                        "fpu sse2 %s\n\n" % (i, fam, model, name, flags))
        return path

    def test_extensions(self):
        intel = "Intel(R) Xeon(R) Processor"
        self.assertEqual(parse.host_cpu(self.cpuinfo(
            (intel, 6, 143, "avx2 avx512f avx512bw amx_bf16 amx_tile"),
            (intel, 6, 143, "avx2 avx512f avx512bw amx_bf16 amx_tile"))),
            "%s (family 6, model 143; AVX-512, AMX; 2 CPUs)" % intel)
        self.assertEqual(parse.host_cpu(self.cpuinfo(
            ("AMD EPYC", 25, 17, "avx2 avx512f avx512_vnni"))),
            "AMD EPYC (family 25, model 17; AVX-512; 1 CPU)")
        # the first processor's: a hybrid's or a faked one's others aside
        self.assertEqual(parse.host_cpu(self.cpuinfo(
            ("AMD EPYC 7B12", 23, 49, "avx2"),
            ("AMD EPYC 7B12", 23, 49, "avx2 avx512f"))),
            "AMD EPYC 7B12 (family 23, model 49; no AVX-512; 2 CPUs)")

    def test_no_model_name(self):
        path = os.path.join(self.tmp, "cpuinfo")
        with open(path, "w") as f:
            f.write("processor\t: 0\nflags\t\t: avx512f\n\n")
        self.assertEqual(parse.host_cpu(path), "unknown")


class ProfileBootTest(TempDir):
    """The icount profile boots' logs: their "# profile:" lines go to the
    records of the timed boots, their time_bench lines nowhere."""

    def profiled(self):
        """The records of a 6.1 icount run with its init_on_alloc=0
        profile boot"""
        d = self.run_dir("icount-" + K61, "icount_console.log",
                         "icount_console-init0.log",
                         "icount_console-profile-init0.log")
        return parse.load_run("icount", K61, d, "make bench")[0]

    @staticmethod
    def reuse_table(out, other, case, n):
        """The first @n lines of @out's reuse table (softirq,
        init_on_alloc=0) of qmempool/@other against qmempool/@case"""
        i = out.index("##### alloc 1, free 1, softirq, init_on_alloc=0: "
                      "`qmempool/%s` against `qmempool/%s`, instructions"
                      % (other, case))
        return out[i + 4:i + 4 + n]

    def test_profiles_to_their_records(self):
        recs = self.profiled()
        prof = {(r["case"], r["ctx"], r["variant"]): r["profile"]
                for r in recs if r.get("profile")}
        self.assertEqual(sorted(prof), [("pool_reuse", "softirq", INIT0),
                                        ("slab_reuse", "softirq", INIT0)])
        self.assertEqual(prof[("pool_reuse", "softirq", INIT0)][1],
                         {"samples": "300", "sym": "qmempool_alloc",
                          "period": "2000", "n": "20000"})
        # the timed boots' figures, not the profiled runs'
        r = find(recs, "qmempool", "pool_reuse", "softirq", INIT0)
        self.assertEqual((r["ns"], r["runs"], r["boots"]), (49.002, 3, 1))
        self.assertEqual(len(recs), 95 + 54)

    def test_side_by_side(self):
        recs = self.profiled()
        out = tables.case_profiles(recs, "instructions", K61)
        # shares times the figures: slab 220.132 * 450/1000 = 99.06,
        # pool 49.002 * 500/1000 = 24.50; biggest difference first
        self.assertEqual(self.reuse_table(out, "slab_reuse", "pool_reuse",
                                          5), [
            "| function | slab | pool | pool - slab |",
            "|---|---:|---:|---:|",
            "| kmem_cache_alloc_noprof | 99.1 | 0.0 | -99.1 |",
            "| kmem_cache_free | 99.1 | 0.0 | -99.1 |",
            "| pool_reuse | 0.0 | 24.5 | +24.5 |"])
        self.assertIn("| qmempool_alloc | 0.0 | 14.7 | +14.7 |", out)
        self.assertIn("| every function: the figure of the tables above "
                      "| 220.1 | 49.0 | -171.1 |", out)
        # the pattern case has no samples, and no table
        self.assertFalse([x for x in out if "pool_pattern256`" in x])
        # a kernel with sheaves names the slab so
        self.assertIn("| function | slab (sheaves) | pool | pool - slab |",
                      tables.case_profiles(recs, "instructions",
                                           "7.3.4+deb13-amd64"))

    def test_debug_against_pool(self):
        recs = self.profiled()
        # a debug-mode pool's case, profiled: its checks against the pool
        r = dict(find(recs, "qmempool", "pool_reuse", "softirq", INIT0),
                 case="pool_debug_reuse", ns=149.0)
        r["profile"] = [dict(samples=str(s), sym=f, period="2000",
                             n="20000") for s, f in (
            (600, "__qmempool_check_free"), (400, "qmempool_alloc"))]
        out = tables.case_profiles(recs + [r], "instructions", K61)
        # 149 * 600/1000 = 89.4; 149 * 400/1000 = 59.6 against the pool's
        # 49.002 * 300/1000 = 14.7
        self.assertEqual(self.reuse_table(out, "pool_reuse",
                                          "pool_debug_reuse", 3), [
            "| function | pool | pool, debug mode | debug - pool |",
            "|---|---:|---:|---:|",
            "| __qmempool_check_free | 0.0 | 89.4 | +89.4 |"])
        self.assertIn("| qmempool_alloc | 14.7 | 59.6 | +44.9 |", out)
        # and its column in the pool's table
        tab = tables.tables(recs + [r], "instructions", K61)
        head = [x for x in tab if x.startswith("| pattern |")][0].split(" | ")
        row = [x for x in tab if x.startswith("| alloc 1, free 1 |")][0]
        col = head.index("pool, debug mode (softirq, init_on_alloc=0)")
        self.assertEqual(row.split(" | ")[col], "149.0")


class PerfProfileTest(TempDir):
    """scripts/perf-profile.sh's perf_profile_report: perf report's
    lines as "# profile:" lines; a raw address, and a name ftrace keeps of
    freed module init code, named from the module text at the address."""

    MODULES = ("skb_bench 16384 0 - Live 0xffffffffc05cd000 (OE)\n"
               "skb_pool_hook 16384 0 - Live 0xffffffffc05c6000 (OE)\n")
    KALLSYMS = ("ffffffff81000000 T _stext\n"
                "ffffffffc05c6010 t skb_pool_hook_switch\t[skb_pool_hook]\n"
                "ffffffffc05cd000 T skb_pool_hook_init\t[skb_pool_hook]\n"
                "ffffffffc05cd000 t pool_pattern\t[skb_bench]\n"
                "ffffffffc05cd100 t pool_reuse\t[skb_bench]\n"
                "ffffffffc05cd200 d cases\t[skb_bench]\n")
    # perf report -v --sort sym -F sample,sym --parent: an address in
    # the symbol, the level, the symbol, the parent's column last
    REPORT = ("# comment\n"
              "   600  0xffffffff81234567 k [k] skb_pool_build_skb  tb_once\n"
              "   200  0xffffffffc05cd010 k [k] pool_pattern  tb_once\n"
              "   100  0xffffffffc05cd020 k [k] skb_pool_hook_init  tb_once\n"
              "    50  0xffffffffc05cd0b2 k [k] 0xffffffffc05cd0b2  tb_once\n"
              "   118  0xffffffffc05cd180 k [k] 0xffffffffc05cd180  tb_once\n"
              "     3  0xffffffffc05d1008 k [k] 0xffffffffc05d1008  tb_once\n"
              "     1  0xffffffff81000010 k [k] string  tb_once\n")

    # perf script -F comm,ip,sym,dso of UML's host process "linux": its
    # binary, its memory (the guest's modules), a guest user process
    SCRIPT = ("   linux 60045f10 __netif_receive_skb_core (/b/uml/linux)\n"
              "   linux 60045f18 __netif_receive_skb_core (/b/uml/linux)\n"
              "   linux 60001000 [unknown] (/b/uml/linux)\n"
              "   linux ffffffffc05cd104 [unknown] (/dev/shm/vm_file (deleted))\n"
              "   linux ffffffffc05d1008 [unknown] (/dev/shm/vm_file (deleted))\n"
              "   linux 7f1234567890 [unknown] ([anon])\n"
              "    perf 60045f10 __netif_receive_skb_core (/b/uml/linux)\n")

    def perf_sh(self, call, out):
        """Run perf-profile.sh's @call with a stand-in perf printing
        @out and this test's /proc"""
        proc = os.path.join(self.tmp, "proc")
        bindir = os.path.join(self.tmp, "bin")
        os.makedirs(proc, exist_ok=True)
        os.makedirs(bindir, exist_ok=True)
        for name, text in (("modules", self.MODULES),
                           ("kallsyms", self.KALLSYMS)):
            with open(os.path.join(proc, name), "w") as f:
                f.write(text)
        perf = os.path.join(bindir, "perf")
        with open(perf, "w") as f:
            f.write("#!/bin/sh\ncat <<'EOF'\n%sEOF\n" % out)
        os.chmod(perf, 0o755)
        p = subprocess.run(
            ["sh", "-c", '. "$0"; ' + call,
             os.path.join(SCRIPTS, "perf-profile.sh")],
            env=dict(os.environ, PATH=bindir + ":" + os.environ["PATH"],
                     PERF_PROFILE_PROC=proc),
            cwd=self.tmp, capture_output=True, text=True, check=True)
        return p.stdout.splitlines()

    def run_report(self):
        return self.perf_sh('perf_profile_report data skb/x:softirq 10000 '
                            '20000 "^tb_once$"', self.REPORT)

    def test_named(self):
        # string: 1 of 1072 samples, under 0.2%: left out; 0x...c05d1008
        # is past skb_bench's end (0x...c05cd000 + 16384): not named
        self.assertEqual(self.run_report(), [
            "# profile: skb/x:softirq samples=%d sym=%s period=10000 "
            "n=20000" % (n, sym) for n, sym in (
                (600, "skb_pool_build_skb"), (350, "pool_pattern"),
                (118, "pool_reuse"), (3, "0xffffffffc05d1008"))])

    def test_modsyms(self):
        # each module's functions and end; the freed init's name stale
        self.assertEqual(self.perf_sh("perf_profile_modsyms syms; cat syms",
                                      ""), [
            "ffffffffc05c6010 skb_pool_hook_switch",
            "ffffffffc05ca000 -",
            "ffffffffc05cd000 pool_pattern",
            "ffffffffc05cd100 pool_reuse",
            "ffffffffc05d1000 -",
            "stale skb_pool_hook_init"])

    def test_uml(self):
        # the guest's "# ksym:" lines as scripts/bench keeps them
        with open(os.path.join(self.tmp, "ksyms"), "w") as f:
            f.write("ffffffffc05cd000 pool_pattern\n"
                    "ffffffffc05cd100 pool_reuse\n"
                    "ffffffffc05d1000 -\n")
        # UML's binary by perf's names, a module by the guest's, neither
        # (an unnamed address in the binary, one past the module's end,
        # a guest user process) nor another host process counted
        self.assertEqual(self.perf_sh(
            "perf_profile_uml data fwd/drop_pool 100000 7 ksyms",
            self.SCRIPT), [
            "# profile: fwd/drop_pool samples=%d sym=%s period=100000 "
            "n=7" % (n, sym) for n, sym in (
                (2, "__netif_receive_skb_core"), (1, "pool_reuse"))])

    def test_no_samples(self):
        self.REPORT = "# nothing\n"
        self.assertEqual(self.run_report(),
                         ["# profile: skb/x:softirq: no samples"])


class MultiBootTest(unittest.TestCase):
    """UML: one console of several boots, each case's median of boots."""

    def setUp(self):
        self.recs = recs_of("uml_console.log")

    def test_one_record_per_case(self):
        self.assertEqual(bench_lines("uml_console.log"), 134)
        self.assertEqual(len(self.recs), 45)
        self.assertEqual(sum(r["boots"] for r in self.recs), 134)

    def test_median_of_boots(self):
        r = find(self.recs, "alf_queue", "mpmc_bulk1")
        self.assertEqual(r["boots"], 3)
        self.assertEqual(r["ns_boots"], [16.7, 17.368, 16.366])
        self.assertEqual(r["ns"], 16.7)
        self.assertEqual(r["ns_min"], 15.875)
        # the third boot printed cycles=-: the median of the other two
        self.assertAlmostEqual(r["cycles"], (16.703 + 17.371) / 2)

    def test_case_missing_in_a_boot(self):
        r = find(self.recs, "qmempool", "pool_pattern256", "softirq")
        self.assertEqual((r["boots"], r["ns_boots"], r["ns"]),
                         (2, [15.0, 17.0], 16.0))
        r = find(self.recs, "qmempool", "slab_pattern256", "softirq")
        self.assertEqual((r["boots"], r["ns"]), (3, 51.0))

    def test_fwd_extras_per_boot(self):
        # each boot's comment lines stay with that boot's record, and the
        # merged record carries the median boot's (boot 3: 920 ns)
        # (not the 6 lines of all three boots, not the first boot's)
        r = find(recs_of("umlfwd_console.log"), "fwd", "drop_stock",
                 "softirq")
        self.assertEqual((r["boots"], r["ns"], r["ns_boots"], r["ns_min"]),
                         (3, 920.0, [900.0, 950.0, 920.0], 895.0))
        self.assertEqual((r["fwd_pps"], r["fwd_clock"], len(r["perf"]),
                          r["fwd_task_clock_ms"]),
                         ("1086957", "uml", 2, "1220.000"))
        self.assertTrue(r["perf"][0].startswith("wall-clock 1220.00 msec"))

    def test_single_boot_kept(self):
        recs = parse.merge_boots(recs_of("host_console.log"))
        r = find(recs, "qmempool", "slab_reuse", "softirq")
        self.assertEqual((r["boots"], r["ns"], r["cycles"]),
                         (1, 20.113, 52.3))
        self.assertNotIn("ns_boots", r)


class TargetsTest(unittest.TestCase):
    """Issue 10's and issue 9's targets: the figure and the verdict."""

    def test_icount(self):
        recs = recs_of("icount_console.log") + \
            recs_of("icount_console-init0.log", INIT0)
        self.assertEqual(targets.targets("icount", recs), [
            ("pool alloc+free, softirq, exported, init_on_alloc=0",
             "49.0", 60, True),
            ("pool alloc+free, softirq, inline, init_on_alloc=0",
             "37.0", 40, True),
            ("pool, NIC pattern 256, softirq, exported, init_on_alloc=0",
             "62.7", 70, True),
            ("pool alloc+free, process, exported, init_on_alloc=0",
             "75.1", 80, True),
            ("skb build 1 + free 1, pool / NAPI cache, softirq",
             "1.77 (445.3 / 252.1)", 0.95, False)])
        # without the init_on_alloc=0 boot only the init_on_alloc=1 one
        self.assertEqual([r[0] for r in targets.targets(
            "icount", recs_of("icount_console.log"))],
            ["skb build 1 + free 1, pool / NAPI cache, softirq"])

    def test_sheaves(self):
        """Issue 21's targets only on a kernel with sheaves (7.0+)."""
        recs = recs_of("icount_console.log") + \
            recs_of("icount_console-init0.log", INIT0)
        for k in ("6.1.0-57-amd64", "6.12.118+deb13-amd64"):
            self.assertFalse([r for r in targets.targets("icount", recs, k)
                              if r[0].startswith("7.x")])
        rows = [r for r in targets.targets("icount", recs,
                                           "7.3.4+deb13-amd64")
                if r[0].startswith("7.x")]
        self.assertEqual(rows, [
            ("7.x: pool, NIC pattern 256, softirq, exported, "
             "init_on_alloc=0", "62.7", 55, False),
            ("7.x: pool alloc+free, softirq, exported, init_on_alloc=0",
             "49.0", 48, False),
            ("7.x: pool, NIC pattern 256, process, exported, "
             "init_on_alloc=0", "89.1", 80, False),
            ("7.x: skb heads, 256 ring, pool / NAPI cache, init_on_alloc=0",
             "0.90 (417.9 / 464.3)", 0.6, False),
            ("7.x: skb heads, 256 ring, pool / NAPI cache, init_on_alloc=1",
             "0.55 (461.9 / 839.3)", 0.6, True)])
        # UML's kernel is named after its series
        uml = [r[0] for r in targets.targets(
            "uml", recs_of("uml_console.log"), "uml-7.3")]
        self.assertIn("7.x: pool / slab (sheaves), reuse, softirq, same boot",
                      uml)
        # ... instead of issue 10's, set against a slab without sheaves
        self.assertNotIn("pool / slab, reuse, softirq, same boot", uml)
        self.assertIn("pool / slab, reuse, softirq, same boot",
                      [r[0] for r in targets.targets(
                          "uml", recs_of("uml_console.log"), "uml-6.1")])

    def test_baseline(self):
        """Issue 21's no-regression rows: per series, the figure at the
        issue's start plus 2%; none on 7.x."""
        recs = recs_of("icount_console.log") + \
            recs_of("icount_console-init0.log", INIT0)
        rows = {r[0]: r[1:] for r in targets.targets("icount", recs, K61)
                if "issue 21's start" in r[0]}
        self.assertEqual(len(rows), 6)
        self.assertEqual(rows["6.1: pool alloc+free, softirq, exported, "
                              "init_on_alloc=0, at most 2% over issue 21's "
                              "start (49.0)"], ("49.0", 49.98, True))
        # the skb pool's own figure, init_on_alloc=1: 445.3 at the start
        self.assertEqual(rows["6.1: skb pool, build 1 + free 1, at most 2% "
                              "over issue 21's start (445.3)"],
                         ("445.3", 454.21, True))
        # 6.12's start was lower: the same figures miss there
        rows = {r[0]: r[1:] for r in targets.targets(
            "icount", recs, "6.12.118+deb13-amd64")
            if "issue 21's start" in r[0]}
        self.assertEqual(rows["6.12: skb pool, build 1 + free 1, at most 2% "
                              "over issue 21's start (293.3)"],
                         ("445.3", 299.17, False))
        self.assertFalse([r for r in targets.targets(
            "icount", recs, "7.3.4+deb13-amd64")
            if "issue 21's start" in r[0]])

    def test_missed_why(self):
        """Each missed row with a reason prints it under the table; a met
        row's reason is not printed; every reason names a target."""
        recs = recs_of("icount_console.log") + \
            recs_of("icount_console-init0.log", INIT0)
        out = tables.target_table("icount", recs, "7.3.4+deb13-amd64")
        why = [x for x in out if x.startswith("- ")]
        self.assertEqual([x.split(": ")[0] for x in why], [
            "- skb build 1 + free 1, pool / NAPI cache, softirq", "- 7.x",
            "- 7.x", "- 7.x", "- 7.x"])
        self.assertTrue(why[1].startswith(
            "- 7.x: pool, NIC pattern 256, softirq, exported, "
            "init_on_alloc=0: bursts:"))
        self.assertFalse([x for x in why if "init_on_alloc=1:" in x])
        texts = {t for t, _, _, _ in targets.TARGETS +
                 targets.TARGETS_SHEAVES + targets.TARGETS_NO_SHEAVES}
        self.assertFalse(set(targets.MISSED_WHY) - texts)
        # every row met: no list
        self.assertFalse([x for x in tables.target_table(
            "icount", recs_of("icount_console-init0.log", INIT0))
            if x.startswith("- ")])

    def test_published_missed_have_why(self):
        """Every target the published BENCHMARKS.md misses says why."""
        with open(os.path.join(TOP, "BENCHMARKS.md")) as f:
            sm = summary.parse_summary(f.read().split("\n"))
        missed = {t.split(": ", 1)[1] for t, cs in sm["rows"].items()
                  if t.startswith("target <= ") and
                  any("**missed**" in x for x in cs.values())}
        self.assertTrue(missed)
        self.assertFalse(missed - set(targets.MISSED_WHY))

    def test_pool_slab_same_boot(self):
        # uml, reuse: 8.3/36.8, 12.9/52.0, 8.1/37.1 = 0.226, 0.248, 0.218;
        # pattern256 has 2 pool boots for 3 slab boots: medians' ratio.
        # host (one boot): 6.021/20.113 = 0.2994, printed 0.30: met
        want = {"uml": [("0.23 (median of 3 boots: 0.23 0.25 0.22)", True),
                        ("0.31 (16.0 / 51.0)", False)],
                "host": [("0.30 (6.0 / 20.1)", True),
                         ("0.28 (12.5 / 44.0)", True)]}
        for vehicle, figures in want.items():
            rows = targets.targets(vehicle,
                                   recs_of("%s_console.log" % vehicle))
            self.assertEqual(rows, [
                (text, fig, 0.30, met) for text, (fig, met) in zip(
                    ["pool / slab, reuse, softirq, same boot",
                     "pool / slab, NIC pattern 256, softirq, same boot"],
                    figures)])

    def test_limit(self):
        def rec(ns):
            return [{"suite": "qmempool", "case": "pool_reuse",
                     "ctx": "softirq", "variant": INIT0, "ns": ns}]
        verdict = {ns: targets.targets("icount", rec(ns))[0][1:]
                   for ns in (59.9, 60.0, 60.04, 60.06, 61.0)}
        self.assertEqual(verdict, {59.9: ("59.9", 60, True),
                                   60.0: ("60.0", 60, True),
                                   60.04: ("60.0", 60, True),
                                   60.06: ("60.1", 60, False),
                                   61.0: ("61.0", 60, False)})

    def test_user_rings(self):
        rows = targets.targets("user", recs_of("user_console.log"))
        # MPMC worst at bulk 32: 0.80 / 0.71; SPSC at bulk 4: 1.11 / 1.29;
        # 2 threads: best rounds (ns_min), then the SPSC medians (ns)
        self.assertEqual([r[1:] for r in rows], [
            ("1.13 (at bulk 32)", 1.0, False),
            ("0.86 (at bulk 4)", 1.0, True),
            ("0.81 (7.51 / 9.26)", 1.0, True),
            ("1.05 (5.50 / 5.24)", 1.0, False),
            ("0.36 (12.30 / 33.85)", 1.0, True),
            ("0.70 (18.67 / 26.65)", 1.0, True),
            ("0.18 (41.40 / 226.65)", 1.0, True)])
        self.assertEqual([r[0] for r in rows[3:]], [
            "ALF / rte_ring, SPSC, 2 threads, bulk %s" % w for w in
            ("8, best round", "8, median", "1, best round", "1, median")])

    def test_fwd(self):
        v = targets.fwd_verdicts(recs_of("fwd_console.log"))
        # the 2-vCPU tests ran under TCG: no verdict for them
        self.assertEqual([(t, ok, round(d * 100, 1)) for t, _, ok, d in v],
                         [("early drop (nftables raw, prerouting)", True,
                           -4.0),
                          ("forward, TX completion on the RX CPU", False,
                           2.7)])
        v = targets.fwd_verdicts(recs_of("fwd_icount_console.log"))
        self.assertEqual([(t, w, ok, round(d * 100, 1))
                          for t, w, ok, d in v],
                         [("early drop (nftables raw, prerouting)",
                           "pool not worse than stock", False, 0.4),
                          ("forward, TX completion on another CPU",
                           "pool not worse than stock (the RFC's -15% "
                           "retired, docs/nic.md)", True, -10.0)])

    def test_uml_fwd(self):
        # pool / stock per boot: drop 850/900, 880/950, 870/920 = 0.944,
        # 0.926, 0.946; forward 1480/1500, 1500/1550, 1490/1520 = 0.987,
        # 0.968, 0.980
        recs = recs_of("umlfwd_console.log")
        self.assertEqual(targets.targets("umlfwd", recs, "uml-7.3"), [
            ("forwarding, early drop, pool / stock, ns/packet, same boot",
             "0.94 (median of 3 boots: 0.94 0.93 0.95)", 0.97, True),
            ("forwarding, TX completion on the RX CPU, pool / stock, "
             "ns/packet, same boot",
             "0.98 (median of 3 boots: 0.99 0.97 0.98)", 0.97, False)])
        # a uml run without forwarding has no such row
        self.assertFalse([r for r in targets.targets(
            "uml", recs_of("uml_console.log"), "uml-7.3")
            if r[0].startswith("forwarding")])


class TablesTest(unittest.TestCase):
    """The Markdown tables of one run, in each vehicle's unit."""

    def test_table(self):
        self.assertEqual(tables.table(["a", "b", "c"], [["1", "2", "3"]]),
                         ["| a | b | c |", "|---|---:|---:|", "| 1 | 2 | 3 |"])

    def test_icount(self):
        recs = recs_of("icount_console.log") + \
            recs_of("icount_console-init0.log", INIT0)
        out = tables.tables(recs, "instructions/op", "6.1.0-57-amd64")
        self.assertIn("#### ALF queue, per element (enqueue + dequeue), "
                      "instructions/op", out)
        self.assertIn("| bulk1 | 97.2 | 50.0 | 78.0 | 69.0 | 98.2 |", out)
        self.assertIn("| multi128 | 82.1 | 30.1 | 56.1 | 56.1 | n/a |", out)
        self.assertIn("#### qmempool against the slab, per object (alloc + "
                      "free), instructions/op", out)
        row = [line for line in out if line.startswith("| alloc 1, free 1 ")]
        self.assertEqual(row, ["| alloc 1, free 1 | 493.4 | 162.1 | 493.3 | "
                               "136.1 | 126.1 | 134.1 | n/a | n/a | 220.1 "
                               "| 49.0 | 37.0 | n/a | 75.1 |"])
        self.assertIn("| build 256, free 256 (NIC ring) | 839.3 | 890.2 | "
                      "461.9 | 464.3 | 576.6 | 417.9 |", out)
        self.assertTrue(any(line.endswith("comparable only with the "
                                          "init_on_alloc=0 columns.")
                            for line in out))
        table = tables.target_table("icount", recs)
        self.assertEqual(table[0], "#### Targets (issues 10 and 21)")
        self.assertIn("| pool alloc+free, softirq, exported, init_on_alloc=0 "
                      "| 49.0 | <= 60 | yes |", table)

    def test_uml(self):
        recs = recs_of("uml_console.log")
        out = tables.tables(recs, "ns/op", "uml-6.1")
        self.assertIn("| bulk1 | 16.7 | 3.3 | n/a | n/a | 4.5 |", out)
        self.assertIn("| build 1, free 1 | 27.3 | 60.0 | n/a |", out)
        self.assertIn("| alloc 256, free 256 (NIC) | 50.2 | 25.2 | 51.0 | "
                      "16.0 | n/a | n/a | n/a | n/a |", out)
        self.assertIn("| pool / slab, NIC pattern 256, softirq, same boot | "
                      "0.31 (16.0 / 51.0) | <= 0.3 | **no** |",
                      tables.target_table("uml", recs))
        order = tables.order_table(recs, "ns/op")
        self.assertIn("| alloc 1, write it, free 1 | softirq | 1.9 | 2.4 | "
                      "1.9 | 1.27 | 1.01 |", order)

    def test_parallel(self):
        out = tables.parallel_tables(recs_of("tcg_console.log"),
                                     "emulated ns/op", "6.12.118+deb12-amd64")
        self.assertEqual(out[0], "#### Parallel cases, per object (alloc + "
                         "free), emulated ns/op")
        self.assertIn("| reuse, every CPU at once (2 CPUs) | 466.2 | 242.9 | "
                      "302.2 | 117.9 |", out)
        self.assertIn("| alloc on CPU A, free on CPU B (2 CPUs) | 394.6 | "
                      "181.0 | 470.5 | n/a |", out)
        self.assertIn("| handoff alone, A to B (no allocation) | 22.0 | 22.0 "
                      "| 9.9 | 9.9 |", out)
        self.assertIn("ALF MPMC, bulk 8, one queue shared by every CPU (2 "
                      "CPUs): 56.3 emulated ns/op per element.", out)
        self.assertEqual(tables.parallel_tables(
            recs_of("uml_console.log"), "ns/op", "uml-6.1"), [])

    def test_sheaves(self):
        """7.0+ kernels' slab columns say it has sheaves, older ones not"""
        recs = recs_of("uml_console.log")
        for kernel, slab in (("uml-6.1", "| pattern | slab | pool | slab "
                              "(softirq) | pool (softirq) |"),
                             ("uml-7.3", "| pattern | slab (sheaves) | pool "
                              "| slab (sheaves, softirq) | pool (softirq) |"),
                             ("7.3.4+deb13-amd64", "| pattern | slab "
                              "(sheaves) | pool |"),
                             ("10.0.1-amd64", "| pattern | slab (sheaves) "
                              "| pool |")):
            out = tables.tables(recs, "ns/op", kernel)
            self.assertTrue(any(line.startswith(slab) for line in out),
                            kernel)
        self.assertIn("| pattern | NAPI skb cache | slab (sheaves) | skb "
                      "pool |", tables.tables(recs, "ns/op", "uml-7.3"))
        self.assertEqual(cases.describe("uml", "uml-7.3")[0],
                         "User-Mode Linux (linux-source-7.3, SLUB with "
                         "sheaves, -O2), 1 CPU, native")
        self.assertEqual(cases.describe("uml", "uml-6.1")[0],
                         "User-Mode Linux (linux-source-6.1, SLUB, -O2), "
                         "1 CPU, native")
        self.assertEqual(summary.column("icount", "7.3.4+deb13-amd64"),
                         "icount 7.3.4+deb13-amd64 (instructions, slab "
                         "with sheaves)")
        self.assertEqual(summary.column("icount", "6.12.118+deb13-amd64"),
                         "icount 6.12.118+deb13-amd64 (instructions)")

    def test_rings(self):
        out = tables.ring_tables(recs_of("user_console.log"), "ns/op")
        self.assertIn("| bulk1 | 5.74 | 6.97 | 5.37 | 2.41 | 4.19 | 3.23 |",
                      out)
        self.assertIn("| 2 threads, bulk8: best (median) | 7.51 (22.27) | "
                      "9.26 (36.42) | 77.39 (265.69) | 5.50 (12.30) | "
                      "5.24 (33.85) | 20.64 (28.10) |", out)

    def test_fwd(self):
        out = tables.fwd_tables(recs_of("fwd_console.log"),
                                "instructions/packet")
        self.assertIn("| early drop (nftables raw, prerouting) | 1 | "
                      "instructions (-icount, 1 vCPU) | 2486.4 | 2385.9 | "
                      "-4.0% | 402,184 | 419,130 |", out)
        self.assertIn("| forward, TX completion on another CPU | 2 | "
                      "EMULATED ns (plain TCG, 2 vCPUs): not time | 28448.1 "
                      "| 26941.9 | -5.3% | 46,242 | 50,175 |", out)
        self.assertIn("Targets of the issue (under -icount, init_on_alloc=1)"
                      ": early drop (nftables raw, prerouting): pool not "
                      "worse than stock: met (-4.0%); forward, TX completion "
                      "on the RX CPU: pool not worse than stock: MISSED "
                      "(+2.7%).", out)
        self.assertTrue(any(line.startswith("qmp_vnic.ko (ixgbe's NAPI RX ")
                            and "100000 packets per run, 3 runs" in line
                            for line in out))
        self.assertIn("- early drop (nftables raw, prerouting), stock (NAPI "
                      "skb cache): task-clock 322.91 msec, context-switches "
                      "95 (summed over CPUs 0); idle 73.697 msec (tick "
                      "accounting); 402184 packets/s", out)

    def test_uml_fwd(self):
        out = tables.fwd_tables(recs_of("umlfwd_console.log"), "ns/packet")
        # medians of 3 boots, their spread; packets/s of the median boot
        self.assertIn("| early drop (nftables raw, prerouting) | 1 | ns (UML, "
                      "1 CPU) | 920.0 (900.0-950.0) | 870.0 (850.0-880.0) | "
                      "-5.4% | 1,086,957 | 1,149,425 |", out)
        self.assertIn("| forward, TX completion on the RX CPU | 1 | ns (UML, "
                      "1 CPU) | 1520.0 (1500.0-1550.0) | 1490.0 "
                      "(1480.0-1500.0) | -2.0% | 657,895 | 671,141 |", out)
        self.assertTrue(any(line.startswith("#### Forwarding through "
                                            "qmp_vnic in User-Mode Linux")
                            for line in out))
        self.assertTrue(any("1000000 packets per run, 3 runs per boot, 3 "
                            "boots" in line for line in out))
        rfc = [line for line in out if line.startswith("The 2014 RFC")]
        self.assertEqual(len(rfc), 1)
        self.assertTrue(rfc[0].endswith(
            "Here, pool against stock: early drop (nftables raw, "
            "prerouting) -50.0 ns (+62 kpps); forward, TX completion on "
            "the RX CPU -30.0 ns (+13 kpps)."), rfc[0])
        # -icount runs get no RFC sentence
        self.assertFalse([line for line in tables.fwd_tables(
            recs_of("fwd_console.log"), "instructions/packet")
            if line.startswith("The 2014 RFC")])

    def test_fwd_profile(self):
        out, i = fwd_section(
            "fwd_console.log", "##### Where the difference is: forward, TX "
            "completion on the RX CPU, per packet by function, "
            "instructions (-icount, 1 vCPU)")
        self.assertIn("the 7 whose cost differs most", out[i + 2])
        self.assertIn("-c 100000` (a sample every 100000 ns", out[i + 2])
        # samples outside the idle loop: stock 1000, pool 1055; memset_erms
        # 120 and 250 of them: 120/1000 * 3426.7, 250/1055 * 3519.0
        self.assertEqual(out[i + 4:i + 8], [
            "| function | stock | pool | pool - stock |",
            "|---|---:|---:|---:|",
            "| memset_erms | 411 | 834 | +423 |",
            "| ip_rcv_core | 1645 | 1368 | -277 |"])
        self.assertIn("| every function perf listed (idle loop excluded): "
                      "the figure of the table above | 3427 | 3519 | +92 |",
                      out)
        text = "\n".join(out)
        for idle in ("default_idle", "do_idle", "poll_idle"):
            self.assertNotIn("| %s |" % idle, text)

    def test_fwd_locks(self):
        out, i = fwd_section(
            "fwd_console.log", "##### Which locks the CPUs wait for: "
            "forward, TX completion on another CPU, per packet, EMULATED "
            "ns (plain TCG, 2 vCPUs): not time")
        self.assertIn("`perf record -a -g -e cpu-clock -c 100000`",
                      out[i + 2])
        # samples * 100000 ns / 100000 packets; a caller seen in one mode
        # only is 0 in the other; the longer wait of the two modes first
        self.assertEqual(out[i + 4:i + 11], [
            "| function that took the lock | lock | stock | pool | "
            "pool - stock |",
            "|---|---:|---:|---:|---:|",
            "| free_pcppages_bulk | spinlock, _raw_spin_lock() | 30 | 10 | "
            "-20 |",
            "| sch_direct_xmit | spinlock, _raw_spin_lock() | 5 | 0 | -5 |",
            "| free_pcppages_bulk | spinlock | 2 | 0 | -2 |",
            "| every lock wait sampled |  | 37 | 10 | -27 |",
            "| the run's busy time (idle loop excluded) |  | 2000 | 1800 | "
            "-200 |"])
        text = "\n".join(out)
        self.assertNotIn("by turns", text)  # TCG, not -icount
        # multiflow: only stock had a lock run, no table
        self.assertEqual(text.count("##### Which locks"), 1)
        # -icount: no lock wait sampled in either mode, and why waits may
        # be long there
        out, i = fwd_section(
            "fwd_icount_console.log", "##### Which locks the CPUs wait "
            "for: forward, TX completion on another CPU, per packet, "
            "instructions (-icount, 2 vCPUs)")
        self.assertIn("by turns", out[i + 4])
        self.assertEqual(out[i + 6:], [
            "| function that took the lock | lock | stock | pool | "
            "pool - stock |",
            "|---|---:|---:|---:|---:|",
            "| every lock wait sampled |  | 0 | 0 | +0 |",
            "| the run's busy time (idle loop excluded) |  | 600 | 540 | "
            "-60 |", ""])

    def test_vehicle_units(self):
        """render_run's tables in each vehicle's unit (plots stood in)."""
        want = {"icount": "instructions/op", "uml": "ns/op",
                "tcg": "emulated ns/op", "user": "ns/op",
                "fwd": "instructions (-icount, 1 vCPU)",
                "host": "ns/op"}
        logs = {"icount": "icount_console.log", "uml": "uml_console.log",
                "tcg": "tcg_console.log", "user": "user_console.log",
                "fwd": "fwd_console.log", "host": "host_console.log"}
        with tempfile.TemporaryDirectory() as tmp, \
                mock.patch.object(publish, "plots", fake_plots), \
                mock.patch.object(publish, "ring_plot", fake_ring_plot):
            for vehicle, unit in want.items():
                recs = recs_of(logs[vehicle])
                body, _ = publish.render_run(vehicle, recs,
                                             {"kernel": "k"}, tmp)
                self.assertIn(unit, "\n".join(body), vehicle)
                headings = [line for line in body if line.startswith("#### ")
                            and not line.startswith(("#### Targets",
                                                     "#### Forwarding"))]
                self.assertEqual(bool(headings), vehicle != "fwd")
                for h in headings:
                    self.assertTrue(h.endswith(", " + unit), (vehicle, h))


class SummaryTest(unittest.TestCase):
    """The summary table: made, written, read back, merged; its headline
    rows."""

    def runs(self):
        icount = recs_of("icount_console.log") + \
            recs_of("icount_console-init0.log", INIT0)
        return [("icount", K61, icount),
                ("uml", "uml-6.1", recs_of("uml_console.log")),
                ("tcg", K612, recs_of("tcg_console.log")),
                ("user", "6.18", recs_of("user_console.log")),
                ("fwd", K61, recs_of("fwd_console.log")),
                ("fwd", K612, recs_of("fwd_icount_console.log"))]

    def test_uml_fwd_column(self):
        # UML's forwarding figures join the uml column of their series,
        # as its "vnic" part, with their targets
        sm = summary.summary([
            ("uml", "uml-6.1", recs_of("uml_console.log")),
            ("umlfwd", "uml-7.3", recs_of("umlfwd_console.log"))])
        u73 = "uml uml-7.3 (ns, slab with sheaves)"
        self.assertEqual(sm["columns"], ["uml uml-6.1 (ns)", u73])
        self.assertEqual(sm["replaces"], {"uml uml-6.1 (ns)": {"main"},
                                          u73: {"vnic"}})
        rows = sm["rows"]
        self.assertEqual(rows["vnic early drop (nftables raw, prerouting), "
                              "skb pool (1 CPU)"],
                         {"uml uml-6.1 (ns)": "n/a", u73: "870.0"})
        self.assertEqual(
            rows["target <= 0.97: forwarding, early drop, pool / stock, "
                 "ns/packet, same boot"][u73],
            "0.94 (median of 3 boots: 0.94 0.93 0.95) met")
        # merged into an older summary: the vnic part of the column,
        # forwarding targets included, and the rest kept
        old = summary.summary([
            ("uml", "uml-7.3", recs_of("uml_console.log"))])
        m = summary.merge_summary(old, sm)
        self.assertEqual(
            m["rows"]["target <= 0.97: forwarding, early drop, pool / "
                      "stock, ns/packet, same boot"][u73],
            "0.94 (median of 3 boots: 0.94 0.93 0.95) met")
        self.assertEqual(m["rows"]["ALF MPMC, per element, bulk 1"][u73],
                         old["rows"]["ALF MPMC, per element, bulk 1"][u73])

    def test_columns(self):
        sm = summary.summary(self.runs())
        ic61 = "icount %s (instructions)" % K61
        ic612 = "icount %s (instructions)" % K612
        self.assertEqual(sm["columns"], [ic61, "uml uml-6.1 (ns)",
                                         "user 6.18 (ns)", ic612])
        self.assertEqual(sm["emulated"], [K61])
        self.assertEqual(sm["replaces"], {ic61: {"main", "vnic"},
                                          "uml uml-6.1 (ns)": {"main"},
                                          "user 6.18 (ns)": {"main"},
                                          ic612: {"vnic"}})
        rows = sm["rows"]
        self.assertEqual(rows["ALF MPMC, per element, bulk 1"],
                         {ic61: "97.2", "uml uml-6.1 (ns)": "16.7",
                          "user 6.18 (ns)": "n/a", ic612: "n/a"})
        self.assertEqual(
            rows["vnic forward, TX completion on the RX CPU, skb pool "
                 "(1 CPU)"][ic61], "3519.0")
        # emulated time (the TCG rows) is never quoted
        self.assertEqual(
            rows["vnic forward, TX completion on another CPU, stock "
                 "(2 CPUs)"], {ic61: "n/a", "uml uml-6.1 (ns)": "n/a",
                               "user 6.18 (ns)": "n/a", ic612: "6000.0"})
        self.assertEqual(
            rows["target <= 0.3: pool / slab, NIC pattern 256, softirq, "
                 "same boot"]["uml uml-6.1 (ns)"],
            "0.31 (16.0 / 51.0) **missed**")
        self.assertEqual(
            rows["target <= 60: pool alloc+free, softirq, exported, "
                 "init_on_alloc=0"][ic61], "49.0 met")

    def test_table_and_back(self):
        sm = summary.summary(self.runs())
        out = summary.summary_table(sm)
        self.assertEqual(out[0], "| case | icount %s (instructions) | uml "
                         "uml-6.1 (ns) | user 6.18 (ns) | icount %s "
                         "(instructions) | RFC 2014, Xeon E5-2695 (ns) |"
                         % (K61, K612))
        self.assertIn("| ALF MPMC, per element, bulk 1 | 97.2 | 16.7 | n/a "
                      "| n/a | 9.5 |", out)
        self.assertIn("| skb head, skb pool, pattern 256 | 461.9 | n/a | n/a "
                      "| n/a |  |", out)
        vnic = next(x for x in out if x.startswith("vnic rows: "))
        self.assertTrue(vnic.endswith(".  %s: n/a where only plain TCG "
                                      "(emulated time) could run the "
                                      "test, in BENCHMARKS.md." % K61))
        # then each missed target, its columns, why
        why = out[out.index(vnic) + 1:]
        self.assertTrue(why[1].startswith("Why each missed target"))
        self.assertIn("- pool / slab, NIC pattern 256, softirq, same boot "
                      "(uml uml-6.1): no reason recorded", why)
        skb = "skb build 1 + free 1, pool / NAPI cache, softirq"
        self.assertIn("- %s (icount %s): %s" % (
            skb, K61, targets.MISSED_WHY[skb]), why)
        self.assertFalse([x for x in why if "init_on_alloc=0 (" in x])
        back = summary.parse_summary(out)
        self.assertEqual(back["columns"], sm["columns"])
        self.assertEqual(back["emulated"], [K61])
        # a later run without forwarding keeps the sentence
        m = summary.merge_summary(back, summary.summary([
            ("icount", K612, recs_of("icount_console.log"))]))
        self.assertEqual(m["emulated"], [K61])
        for text, cells in back["rows"].items():
            for col, x in cells.items():
                self.assertEqual(sm["rows"][text].get(col, "n/a"), x)

    def test_no_column(self):
        sm = summary.summary([("tcg", K612, recs_of("tcg_console.log"))])
        self.assertEqual(sm["columns"], [])

    def test_parse(self):
        sm = summary.parse_summary(OLD_SUMMARY.splitlines())
        self.assertEqual(sm["columns"], [IC61, UML, IC612, USER])
        self.assertEqual(sm["rows"], OLD_CELLS)

    def test_headline(self):
        sm = summary.summary(self.runs())
        rows = ["slab alloc+free, reuse (softirq)",
                "qmempool alloc+free, reuse (softirq)",
                "slab, NIC pattern 256 (softirq)",
                "qmempool, NIC pattern 256 (softirq)",
                "skb head, NAPI cache, pattern 256",
                "skb head, skb pool, pattern 256",
                "vnic early drop (nftables raw, prerouting), stock (1 CPU)",
                "vnic early drop (nftables raw, prerouting), skb pool "
                "(1 CPU)",
                "vnic forward, TX completion on another CPU, stock "
                "(2 CPUs)",
                "vnic forward, TX completion on another CPU, skb pool "
                "(2 CPUs)"]
        self.assertEqual(summary.headline_rows(sm), rows)
        out = summary.headline_table(sm)
        # the user column has no figure in these rows
        self.assertEqual(out[0], "| case | %s | %s | %s | RFC 2014, Xeon "
                         "E5-2695 (ns) |" % (IC61, UML, IC612))
        self.assertEqual([r.split(" | ")[0][2:] for r in out[2:]], rows)
        self.assertIn("| slab, NIC pattern 256 (softirq) | 782.3 | 51.0 "
                      "| n/a | 45 |", out)
        self.assertIn("| vnic forward, TX completion on another CPU, stock "
                      "(2 CPUs) | n/a | n/a | 6000.0 |  |", out)
        # a row without a figure is left out, and the RFC column without
        # one of its figures
        only = {"columns": [UML], "rows": {rows[4]: {UML: "49.9"},
                                           rows[5]: {UML: "n/a"}}}
        self.assertEqual(summary.headline_table(only), [
            "| case | %s |" % UML, "|---|---:|",
            "| skb head, NAPI cache, pattern 256 | 49.9 |"])
        self.assertEqual(summary.headline_table(
            summary.parse_summary([])), [])

    def test_merge(self):
        ic = "icount %s (instructions)" % K612
        uml = "uml uml-6.1 (ns)"
        drop = "vnic early drop (nftables raw, prerouting), stock (1 CPU)"
        mflow = "vnic multi-flow forward, every CPU, stock (2 CPUs)"
        old = {"columns": [uml, ic], "emulated": [], "replaces": {},
               "rows": {"ALF MPMC, per element, bulk 1": {ic: "1.0",
                                                          uml: "2.0"},
                        drop: {ic: "3.0"}, mflow: {ic: "4.0"}}}
        # a fwd run replaces the vnic rows of its column, nothing else
        new = summary.summary([("fwd", K612,
                                recs_of("fwd_icount_console.log"))])
        m = summary.merge_summary(old, new)
        self.assertEqual(m["columns"], [ic, uml])
        self.assertEqual(m["rows"]["ALF MPMC, per element, bulk 1"],
                         {ic: "1.0", uml: "2.0"})
        self.assertEqual(m["rows"][drop], {ic: "2300.0"})
        self.assertEqual(m["rows"][mflow], {})
        # an icount run replaces the rest of it and keeps the vnic rows
        new = summary.summary([("icount", K612,
                                recs_of("icount_console.log"))])
        m = summary.merge_summary(old, new)
        self.assertEqual(m["rows"]["ALF MPMC, per element, bulk 1"],
                         {ic: "97.2", uml: "2.0"})
        self.assertEqual(m["rows"][drop], {ic: "3.0"})


class PublishTest(TempDir):
    """`make bench`'s report and `make bench-publish`'s merge, on copies
    of the tracked files (plots stood in: see PlotTest)."""

    def setUp(self):
        super().setUp()
        for p in (mock.patch.object(publish, "plots", fake_plots),
                  mock.patch.object(publish, "ring_plot", fake_ring_plot),
                  mock.patch.object(publish, "now",
                                    lambda: "2030-02-03 04:05 UTC"),
                  mock.patch.object(parse, "host_cpu",
                                    lambda: "Test CPU (family 1, model 2; "
                                    "AMX; 3 CPUs)")):
            p.start()
            self.addCleanup(p.stop)
        self.top = os.path.join(self.tmp, "top")
        os.makedirs(self.top)
        self.doc = os.path.join(self.top, "BENCHMARKS.md")
        self.readme = os.path.join(self.top, "README.md")
        # A frozen BENCHMARKS.md (the tracked one's sections change with
        # every publish): seven runs, icount, uml, tcg, user and fwd
        shutil.copyfile(os.path.join(LOGS, "BENCHMARKS.md"), self.doc)
        self.set_summary(OLD_SUMMARY)
        with open(self.readme, "w") as f:
            f.write(README)
        shutil.copytree(os.path.join(TOP, "benchmarks"),
                        os.path.join(self.top, "benchmarks"))

    def set_summary(self, table):
        """BENCHMARKS.md's summary block: @table, or none if None."""
        with open(self.doc) as f:
            text = f.read()
        text = re.sub(r"(?s)<!-- bench-summary:begin -->.*"
                      r"<!-- bench-summary:end -->\n*", "", text)
        if table is not None:
            at = text.index("<!-- bench-run: ")
            text = "%s%s\n%s%s\n\n%s" % (
                text[:at], publish.SUMMARY_BEGIN, table, publish.SUMMARY_END,
                text[at:])
        with open(self.doc, "w") as f:
            f.write(text)

    def read(self, path):
        with open(path) as f:
            return f.read()

    def check_summary(self, text):
        """BENCHMARKS.md's (@text) summary block, after the head and before
        the sections, is OLD_SUMMARY with the icount and fwd runs of 6.1
        (see report()) in place of its 6.1 column's figures."""
        b, e = publish.SUMMARY_BEGIN, publish.SUMMARY_END
        head = publish.doc_head("make bench-publish", "2030-02-03 04:05 UTC")
        lines = text.split("\n")
        self.assertEqual(lines[:len(head)], head)
        self.assertEqual(lines[len(head)], b)
        self.assertEqual(lines[len(head) + 1], "## Summary")
        self.assertEqual(text.count(b), 1)
        self.assertLess(text.index(e), text.index("<!-- bench-run: "))
        sm = summary.parse_summary(publish.block(text, b, e))
        self.assertEqual(sm["columns"], [IC61, IC612, UML, USER])
        for t, cells in OLD_CELLS.items():
            for col in (IC612, UML, USER):
                self.assertEqual(sm["rows"][t][col], cells[col], (t, col))
        # IC61: this run's figures, n/a where it has none (the 2-CPU
        # forwarding ran under TCG)
        new = {"ALF MPMC, per element, bulk 1": "97.2",
               "slab, NIC pattern 256 (softirq)": "782.3",
               "vnic early drop (nftables raw, prerouting), stock (1 CPU)":
                   "2486.4",
               "vnic forward, TX completion on another CPU, stock "
               "(2 CPUs)": "n/a",
               "target <= 60: pool alloc+free, softirq, exported, "
               "init_on_alloc=0": "49.0 met",
               "target <= 0.3: pool / slab, reuse, softirq, same boot":
                   "n/a"}
        for t, x in new.items():
            self.assertEqual(sm["rows"][t][IC61], x, t)
        # every row of either
        runs = summary.summary([
            ("icount", K61, recs_of("icount_console.log") +
             recs_of("icount_console-init0.log", INIT0)),
            ("fwd", K61, recs_of("fwd_console.log"))])
        self.assertEqual(set(sm["rows"]), set(OLD_CELLS) | set(runs["rows"]))

    def check_readme(self, readme, before):
        """README.md's text @readme is @before with the headline of
        check_summary()'s summary in its bench-headline block."""
        b, e = publish.HEADLINE_BEGIN, publish.HEADLINE_END
        self.assertEqual(readme.split(b)[0], before.split(b)[0])
        self.assertEqual(readme.split(e)[1], before.split(e)[1])
        block = publish.block(readme, b, e)
        goals = block[block.index("") + 1:]
        goals = goals[goals.index("") + 1:]
        goals = goals[goals.index("") + 1:]
        self.assertEqual(block, [
            "",
            "| case | %s | %s | %s | RFC 2014, Xeon E5-2695 (ns) |"
            % (IC61, IC612, UML),
            "|---|---:|---:|---:|---:|",
            "| slab alloc+free, reuse (softirq) | 493.3 | 257.1 | 36.8 "
            "| 19.6 |",
            "| qmempool alloc+free, reuse (softirq) | 136.1 | 138.1 | 8.3 "
            "| 7.8 |",
            "| slab, NIC pattern 256 (softirq) | 782.3 | n/a | n/a | 45 |",
            "| qmempool, NIC pattern 256 (softirq) | 154.1 | n/a | n/a "
            "| 11.8 |",
            "| skb head, NAPI cache, pattern 256 | 839.3 | n/a | n/a |  |",
            "| skb head, skb pool, pattern 256 | 461.9 | n/a | n/a |  |",
            "| vnic early drop (nftables raw, prerouting), stock (1 CPU) "
            "| 2486.4 | 2332.9 | n/a |  |",
            "| vnic early drop (nftables raw, prerouting), skb pool "
            "(1 CPU) | 2385.9 | n/a | n/a |  |",
            "| vnic forward, TX completion on another CPU, stock (2 CPUs) "
            "| n/a | 6252.3 | n/a |  |",
            "| vnic forward, TX completion on another CPU, skb pool "
            "(2 CPUs) | n/a | 5890.6 | n/a |  |",
            "",
            "Generated by `scripts/bench-report` from `make bench-publish` "
            "on 2030-02-03 04:05 UTC; init_on_alloc=1 (Debian's default).  "
            "The headline rows of the summary in [BENCHMARKS.md]"
            "(BENCHMARKS.md), which has the targets, the other cases and "
            "each column's run.",
            ""] + goals)
        # then the targets, figure and verdict only
        self.assertTrue(goals[0].startswith("The targets of the issues"))
        # the columns with a target's figure: not icount 6.12's
        self.assertEqual(goals[2], "| target | %s | %s | user 6.18 (ns) |"
                         % (IC61, UML))
        self.assertIn("| <= 60: pool alloc+free, softirq, exported, "
                      "init_on_alloc=0 | 49.0 met | n/a | n/a |", goals)
        self.assertIn("| <= 0.95: skb build 1 + free 1, pool / NAPI cache, "
                      "softirq | 1.77 **missed** | n/a | n/a |", goals)
        self.assertEqual(goals[-1], "")

    def report(self):
        """build/bench of an icount and a fwd run of 6.1."""
        specs = ["icount:%s:%s" % (K61, self.run_dir(
                     "icount-" + K61, "icount_console.log",
                     "icount_console-init0.log")),
                 "fwd:%s:%s" % (K61, self.run_dir("fwd-" + K61,
                                                  "fwd_console.log"))]
        out = os.path.join(self.tmp, "bench", "BENCHMARKS.md")
        publish.write_report(specs, out, "plots",
                             'make bench QMP_BENCH_VEHICLES="icount fwd"')
        return os.path.dirname(out)

    def test_report(self):
        bench = self.report()
        with open(os.path.join(bench, "runs.json")) as f:
            self.assertEqual(json.load(f), [
                {"vehicle": "icount", "kernel": K61, "dir": "icount-" + K61},
                {"vehicle": "fwd", "kernel": K61, "dir": "fwd-" + K61}])
        self.assertEqual(sorted(os.listdir(os.path.join(bench, "plots"))),
                         ["fwd-%s-fwd.png" % K61,
                          "icount-%s-alf_bulk.png" % K61,
                          "icount-%s-qmempool.png" % K61,
                          "icount-%s-skb.png" % K61])
        with open(os.path.join(bench, "icount-" + K61, "results.json")) as f:
            data = json.load(f)
        self.assertEqual(len(data["results"]), 95 + 54)
        self.assertEqual(data["meta"]["date"], "2030-01-02 03:04 UTC")
        self.assertEqual(data["meta"]["settings_init0"]["init_on_alloc"],
                         "0")
        with open(os.path.join(bench, "BENCHMARKS.md")) as f:
            doc = f.read().split("\n")
        self.assertEqual(doc[:3], [
            "# Benchmarks", "", "Generated by `scripts/bench-report` from "
            "`make bench QMP_BENCH_VEHICLES=\"icount fwd\"` on 2030-02-03 "
            "04:05 UTC; do not edit.  Each section says the date and "
            "command of its run."])
        self.assertIn("- date: 2030-01-02 03:04 UTC; command: `make bench "
                      "QMP_BENCH_VEHICLES=\"icount fwd\"` (loops=20000, "
                      "runs=3, median reported)", doc)
        self.assertIn("- init_on_alloc=1, init_on_free=0 (zeroing counted in "
                      "every alloc when on); the init_on_alloc=0 columns "
                      "come from a second boot with that parameter", doc)
        self.assertIn("![fwd.png](plots/fwd-%s-fwd.png)" % K61, doc)
        with open(os.path.join(bench, "summary.md")) as f:
            self.assertIn("| vnic early drop (nftables raw, prerouting), "
                          "stock (1 CPU) | 2486.4 |  |", f.read())

    def test_publish(self):
        bench = self.report()
        path = self.doc
        before = publish.split_sections(path)
        pdir = os.path.join(self.top, "benchmarks")
        with open(os.path.join(pdir, "uml-uml-6.1-skb.png"), "rb") as f:
            uml_png = f.read()
        for name in ("icount-%s-ring_user.png" % K61,
                     "icount-%s-notes.txt" % K61):
            with open(os.path.join(pdir, name), "w") as f:
                f.write("old\n")
        with contextlib.redirect_stdout(io.StringIO()) as said:
            publish.publish(bench, self.top)
        self.assertIn("bench-report: published icount %s (2030-01-02 03:04 "
                      "UTC)" % K61, said.getvalue())
        self.assertNotIn("bench-summary block", said.getvalue())
        self.assertNotIn("only this run's columns", said.getvalue())
        after = publish.split_sections(path)
        self.assertEqual(list(after), list(before))
        for key in before:
            if key[1] != K61:
                self.assertEqual(after[key], before[key], key)
        with open(os.path.join(bench, "fwd-" + K61, "results.md")) as f:
            body = f.read().rstrip("\n").split("\n")
        sect = after[("fwd", K61)]
        self.assertEqual(sect[0], "<!-- bench-run: fwd %s -->" % K61)
        self.assertEqual(sect[sect.index(body[0]):][:len(body)], body)
        self.assertEqual(sect[-1], "![fwd.png](benchmarks/fwd-%s-fwd.png)"
                         % K61)
        with open(path) as f:
            markers = re.findall(r"^<!-- bench-run: (\S+) (\S+) -->$",
                                 f.read(), re.M)
        self.assertEqual([v for v, _ in markers],
                         ["icount", "icount", "uml", "tcg", "user", "fwd",
                          "fwd"])
        # plots: this run's replaced, a stale one gone, the others kept
        files = os.listdir(pdir)
        self.assertNotIn("icount-%s-ring_user.png" % K61, files)
        self.assertIn("icount-%s-notes.txt" % K61, files)
        with open(os.path.join(pdir, "icount-%s-skb.png" % K61)) as f:
            self.assertTrue(f.read().startswith("plot skb.png of QEMU"))
        with open(os.path.join(pdir, "uml-uml-6.1-skb.png"), "rb") as f:
            self.assertEqual(f.read(), uml_png)
        # the summary in BENCHMARKS.md, its other columns kept; its
        # headline in README.md, nothing else of it changed
        once = self.read(path)
        self.check_summary(once)
        readme = self.read(self.readme)
        self.check_readme(readme, README)
        # the host CPU of each column's runs, in both: the new runs' (the
        # fwd run's in the icount column), the kept sections', none where
        # a column has no section (the frozen file has no deb13 or user
        # 6.18 one)
        cpus = ["| column | host CPU of its runs |", "|---|---|",
                "| %s | icount: Test CPU (family 1, model 2; AMX; 3 CPUs); "
                "fwd: Test CPU (family 1, model 2; AMX; 3 CPUs) |" % IC61,
                "| %s | no run section |" % IC612,
                "| %s | uml: AMD EPYC |" % UML,
                "| %s | no run section |" % USER, ""]
        want = prose.lines("host_cpus") + [""] + cpus
        self.assertEqual(publish.block(readme, publish.HEADLINE_BEGIN,
                                       publish.HEADLINE_END)[-len(want):],
                         want)
        self.assertEqual(publish.block(once, publish.SUMMARY_BEGIN,
                                       publish.SUMMARY_END)[-len(want):],
                         want)
        # publishing again changes nothing
        with contextlib.redirect_stdout(io.StringIO()):
            publish.publish(bench, self.top)
        self.assertEqual(self.read(path), once)
        self.assertEqual(self.read(self.readme), readme)

    def test_summary_from_readme(self):
        # BENCHMARKS.md without a summary block: the other columns come
        # from README.md's, where publish() wrote the summary before; that
        # block is left as it is, and read only that once
        bench = self.report()
        self.set_summary(None)
        old = README + "\n%s\n\n%s\n%s\n" % (
            publish.SUMMARY_BEGIN, OLD_SUMMARY, publish.SUMMARY_END)
        with open(self.readme, "w") as f:
            f.write(old)
        with contextlib.redirect_stdout(io.StringIO()) as said:
            publish.publish(bench, self.top)
        self.assertIn("the other columns of the summary taken from %s's "
                      "bench-summary block, no longer written" % self.readme,
                      said.getvalue())
        once = self.read(self.doc)
        self.check_summary(once)
        self.check_readme(self.read(self.readme), old)
        with open(self.readme, "w") as f:
            f.write(old.replace(UML, "uml uml-9.9 (ns)"))
        with contextlib.redirect_stdout(io.StringIO()) as said:
            publish.publish(bench, self.top)
        self.assertNotIn("bench-summary block", said.getvalue())
        self.assertEqual(self.read(self.doc), once)

    def test_no_summary_yet(self):
        # neither file has a summary: this run's columns alone
        bench = self.report()
        self.set_summary(None)
        with contextlib.redirect_stdout(io.StringIO()) as said:
            publish.publish(bench, self.top)
        self.assertIn("bench-report: no bench-summary block in %s or %s: "
                      "the summary has only this run's columns"
                      % (self.doc, self.readme), said.getvalue())
        text = self.read(self.doc)
        sm = summary.parse_summary(publish.block(
            text, publish.SUMMARY_BEGIN, publish.SUMMARY_END))
        self.assertEqual(sm["columns"], [IC61])
        self.assertEqual(sm["rows"]["ALF MPMC, per element, bulk 1"],
                         {IC61: "97.2"})
        head = publish.block(self.read(self.readme),
                             publish.HEADLINE_BEGIN, publish.HEADLINE_END)
        self.assertEqual(head[1], "| case | %s | RFC 2014, Xeon E5-2695 "
                         "(ns) |" % IC61)
        # no forwarding on another CPU: it ran under TCG only
        self.assertEqual([r.split(" | ")[0]
                          for r in head[3:head.index("", 1)]], [
            "| slab alloc+free, reuse (softirq)",
            "| qmempool alloc+free, reuse (softirq)",
            "| slab, NIC pattern 256 (softirq)",
            "| qmempool, NIC pattern 256 (softirq)",
            "| skb head, NAPI cache, pattern 256",
            "| skb head, skb pool, pattern 256",
            "| vnic early drop (nftables raw, prerouting), stock (1 CPU)",
            "| vnic early drop (nftables raw, prerouting), skb pool "
            "(1 CPU)"])

    def test_sections_before_the_markers(self):
        path = os.path.join(self.top, "BENCHMARKS.md")
        with_markers = publish.split_sections(path)
        with open(path) as f:
            text = f.read()
        with open(path, "w") as f:
            f.write(re.sub(r"(?m)^<!-- bench-run: .*\n", "", text))
        self.assertEqual(publish.split_sections(path), with_markers)
        self.assertEqual(len(with_markers), 7)

    def test_errors(self):
        with self.assertRaises(SystemExit) as e:
            publish.publish(os.path.join(self.tmp, "nothing"), self.top)
        self.assertIn("run `make bench` first", e.exception.code)
        bench = self.report()
        # README.md without both headline markers (one with only the
        # summary block of before among them): nothing is written
        doc = self.read(self.doc)
        pngs = sorted(os.listdir(os.path.join(self.top, "benchmarks")))
        for readme in ("# qmempool\n",
                       "\n".join([publish.SUMMARY_BEGIN, OLD_SUMMARY,
                                  publish.SUMMARY_END]),
                       README.replace(publish.HEADLINE_END, ""),
                       README.replace(publish.HEADLINE_BEGIN, "")):
            with open(self.readme, "w") as f:
                f.write(readme)
            with self.assertRaises(SystemExit) as e, \
                    contextlib.redirect_stdout(io.StringIO()):
                publish.publish(bench, self.top)
            self.assertEqual(e.exception.code, "bench-report: %s has no "
                             "<!-- bench-headline:begin --> ... <!-- "
                             "bench-headline:end --> block" % self.readme)
            self.assertEqual(self.read(self.doc), doc)
            self.assertEqual(self.read(self.readme), readme)
            self.assertEqual(sorted(os.listdir(
                os.path.join(self.top, "benchmarks"))), pngs)
        d = self.run_dir("icount-x", "icount_console.log",
                         "icount_console.log")
        with self.assertRaises(SystemExit) as e:
            parse.load_run("icount", "x", d, "make bench")
        self.assertIn("did not run with init_on_alloc=0", e.exception.code)


class CommandTest(TempDir):
    """scripts/bench-report itself, as scripts/bench runs it."""

    def bench_report(self, *args):
        return subprocess.run([sys.executable, BENCH_REPORT] + list(args),
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              encoding="utf-8", timeout=300, check=False)

    def report_with_plots(self, out, *specs):
        """bench-report --out @out @specs, a run with plots: the command
        where python3-matplotlib is installed, else (make check's
        machines) its write_report() with the plot stand-ins."""
        if HAVE_MATPLOTLIB:
            p = self.bench_report("--out", out, *specs)
            self.assertEqual((p.returncode, p.stderr), (0, ""))
            return
        with mock.patch.object(publish, "plots", fake_plots), \
                mock.patch.object(publish, "ring_plot", fake_ring_plot), \
                contextlib.redirect_stdout(io.StringIO()):
            publish.write_report(list(specs), out, "plots", "make bench")

    def test_umlfwd_run(self):
        d = self.run_dir("umlfwd-7.3", "umlfwd_console.log")
        out = os.path.join(self.tmp, "bench", "BENCHMARKS.md")
        self.report_with_plots(out, "umlfwd:uml-7.3:" + d)
        with open(out) as f:
            doc = f.read()
        self.assertIn("\n<!-- bench-run: umlfwd uml-7.3 -->\n## qmp_vnic "
                      "forwarding in User-Mode Linux (linux-source-7.3, SLUB "
                      "with sheaves, -O2, nftables), 1 CPU, native, kernel "
                      "uml-7.3\n", doc)
        self.assertIn("(packets per run: 1000000, runs=3, median reported; "
                      "3 boots, the median of their medians, each boot's in "
                      "results.json; CPUs per test in the table)", doc)
        # its figures in the summary's uml column, with their targets
        with open(os.path.join(self.tmp, "bench", "summary.md")) as f:
            sm = f.read()
        self.assertIn("| case | uml uml-7.3 (ns, slab with sheaves) |", sm)
        self.assertIn("| target <= 0.97: forwarding, early drop, pool / "
                      "stock, ns/packet, same boot | 0.94 (median of 3 "
                      "boots: 0.94 0.93 0.95) met |", sm)

    def test_tcg_run(self):
        d = self.run_dir("tcg-" + K612, "tcg_console.log")
        out = os.path.join(self.tmp, "bench", "BENCHMARKS.md")
        p = self.bench_report("--out", out, "tcg:%s:%s" % (K612, d))
        self.assertEqual((p.returncode, p.stdout, p.stderr), (0, "", ""))
        with open(os.path.join(self.tmp, "bench", "summary.md")) as f:
            self.assertEqual(f.read(), "No summary column: the summary "
                             "shows the icount, uml, host, fwd, umlfwd and "
                             "user vehicles; this run (tcg) is in "
                             "BENCHMARKS.md.\n")
        with open(out) as f:
            doc = f.read()
        self.assertIn("\n<!-- bench-run: tcg %s -->\n## QEMU plain TCG "
                      "(emulated), 2 vCPUs, parallel cases only, kernel %s\n"
                      % (K612, K612), doc)
        self.assertIn("command: `make bench` (loops=20000", doc)
        self.assertIn("- raw lines: `build/bench/tcg-%s/console.log`\n"
                      % K612, doc)
        self.assertTrue(os.path.exists(os.path.join(d, "results.md")))

    def test_usage(self):
        p = self.bench_report("--out", os.path.join(self.tmp, "B.md"))
        self.assertEqual(p.returncode, 2)
        self.assertIn("--out and at least one run are needed", p.stderr)

    def test_no_results(self):
        d = os.path.join(self.tmp, "empty")
        os.makedirs(d)
        with open(os.path.join(d, "console.log"), "w") as f:
            f.write("qmp: DONE\n")
        p = self.bench_report("--out", os.path.join(self.tmp, "B.md"),
                              "icount:k:" + d)
        self.assertEqual((p.returncode, p.stderr),
                         (1, "bench-report: no result lines in %s\n" % d))

    @unittest.skipUnless(HAVE_MATPLOTLIB, "python3-matplotlib missing")
    def test_every_vehicle(self):
        specs = ["icount:%s:%s" % (K61, self.run_dir(
                     "icount", "icount_console.log",
                     "icount_console-init0.log")),
                 "uml:uml-6.1:" + self.run_dir("uml", "uml_console.log"),
                 "tcg:%s:%s" % (K612, self.run_dir("tcg", "tcg_console.log")),
                 "user:6.18:" + self.run_dir("user", "user_console.log"),
                 "fwd:%s:%s" % (K61, self.run_dir("fwd", "fwd_console.log")),
                 "host:6.18:" + self.run_dir("host", "host_console.log")]
        out = os.path.join(self.tmp, "bench", "BENCHMARKS.md")
        p = self.bench_report("--command", "make bench", "--out", out,
                              "--plots", "pl", *specs)
        # (matplotlib warns of the host's empty legend: no complete line)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertNotIn("bench-report", p.stderr)
        self.assertEqual(sorted(os.listdir(os.path.join(self.tmp, "bench",
                                                        "pl"))),
                         ["fwd-%s-fwd.png" % K61,
                          "host-6.18-alf_bulk.png", "host-6.18-qmempool.png",
                          "icount-%s-alf_bulk.png" % K61,
                          "icount-%s-qmempool.png" % K61,
                          "icount-%s-skb.png" % K61,
                          "uml-uml-6.1-alf_bulk.png",
                          "uml-uml-6.1-qmempool.png", "uml-uml-6.1-skb.png",
                          "user-6.18-ring_user.png"])


@unittest.skipUnless(HAVE_MATPLOTLIB, "python3-matplotlib missing")
class PlotTest(TempDir):
    """The PNG plots (python3-matplotlib)."""

    def assertPngs(self, names):
        for name in names:
            with open(os.path.join(self.tmp, name), "rb") as f:
                self.assertEqual(f.read(8), b"\x89PNG\r\n\x1a\n", name)

    def test_kernel_suites(self):
        recs = recs_of("icount_console.log") + \
            recs_of("icount_console-init0.log", INIT0)
        made = plots.plots(recs, self.tmp, "title", "instructions/op",
                           "6.1.0-57-amd64")
        self.assertEqual(made, ["alf_bulk.png", "qmempool.png", "skb.png"])
        self.assertPngs(made)

    def test_fwd(self):
        made = plots.plots(recs_of("fwd_console.log"), self.tmp, "title",
                           "instructions/packet", "6.1.0-57-amd64")
        self.assertEqual(made, ["fwd.png"])
        self.assertPngs(made)

    def test_rings(self):
        plots.ring_plot(recs_of("user_console.log"), self.tmp, "title",
                        "ns/op")
        self.assertPngs(["ring_user.png"])

    def test_incomplete_lines_left_out(self):
        drawn = []
        with mock.patch("matplotlib.axes.Axes.plot",
                        lambda ax, xs, ys, **kw: drawn.append(kw["label"])), \
                mock.patch("matplotlib.axes.Axes.legend"):
            plots.plots(recs_of("uml_console.log"), self.tmp, "title",
                        "ns/op", "uml-6.1")
        # mpsc and spmc have no bulk cases in that log
        self.assertEqual(drawn, ["MPMC", "SPSC", "ptr_ring (kernel)"])


class ProseTest(unittest.TestCase):
    """prose.txt, the template of the Markdown's paragraphs."""

    def test_format(self):
        with tempfile.NamedTemporaryFile("w", suffix=".txt") as f:
            f.write("head, a comment\n@a\n# Title {x}\n\none\ntwo.  "
                    "Three\n\n\n@b\nsingle\n")
            f.flush()
            self.assertEqual(prose.load(f.name),
                             {"a": ["# Title {x}", "one two.  Three"],
                              "b": ["single"]})
            f.write("@a\nagain\n")
            f.flush()
            with self.assertRaises(ValueError):
                prose.load(f.name)

    def test_every_block_used(self):
        used = set()
        for name in os.listdir(os.path.join(SCRIPTS, "benchreport")):
            if name.endswith(".py"):
                with open(os.path.join(SCRIPTS, "benchreport", name)) as f:
                    used |= set(re.findall(
                        r'prose\.(?:lines|text)\(\s*"(\w+)"', f.read()))
        self.assertEqual(used, set(prose.BLOCKS))


class KtapResult(unittest.TestResult):
    """Prints one KTAP result per test; what a test prints is kept, and
    shown as diagnostics if it fails."""
    UNSAFE = re.compile(r"Sanitizer|runtime error:")  # see harness-test

    def __init__(self, out):
        super().__init__()
        self.out, self.num = out, 0
        self.counts = {"pass": 0, "fail": 0, "skip": 0}

    def diag(self, text):
        for line in text.rstrip("\n").split("\n"):
            line = self.UNSAFE.sub(lambda m: m.group(0).replace("i", "!"),
                                   line)
            print("# " + line, file=self.out)

    def startTest(self, test):
        super().startTest(test)
        self.problems, self.skip = [], None
        self.saved = sys.stdout, sys.stderr
        sys.stdout = sys.stderr = self.captured = io.StringIO()

    def addError(self, test, err):
        super().addError(test, err)
        self.problems.append("".join(traceback.format_exception(*err)))

    addFailure = addError

    def addSubTest(self, test, subtest, err):
        super().addSubTest(test, subtest, err)
        if err is not None:
            self.problems.append("%s\n%s" % (subtest, "".join(
                traceback.format_exception(*err))))

    def addUnexpectedSuccess(self, test):
        super().addUnexpectedSuccess(test)
        self.problems.append("unexpected success")

    def addSkip(self, test, reason):
        super().addSkip(test, reason)
        self.skip = reason

    def stopTest(self, test):
        sys.stdout, sys.stderr = self.saved
        super().stopTest(test)
        self.num += 1
        name = test.id().split(".", 1)[-1]
        if self.problems:
            self.diag(self.captured.getvalue() + "".join(self.problems))
            print("not ok %d %s" % (self.num, name), file=self.out)
            self.counts["fail"] += 1
        elif self.skip is not None:
            print("ok %d %s # SKIP %s" % (self.num, name, self.skip),
                  file=self.out)
            self.counts["skip"] += 1
        else:
            print("ok %d %s" % (self.num, name), file=self.out)
            self.counts["pass"] += 1


def main():
    if "--ktap" not in sys.argv[1:]:
        unittest.main()
        return 0
    suite = unittest.defaultTestLoader.loadTestsFromModule(
        sys.modules[__name__])
    out = sys.stdout
    print("KTAP version 1", file=out)
    print("1..%d" % suite.countTestCases(), file=out)
    result = KtapResult(out)
    suite.run(result)
    print("# bench_report: pass:%(pass)d fail:%(fail)d skip:%(skip)d"
          % result.counts, file=out)
    return 1 if result.counts["fail"] else 0


if __name__ == "__main__":
    sys.exit(main())
