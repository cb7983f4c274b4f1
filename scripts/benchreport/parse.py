# SPDX-License-Identifier: GPL-2.0
"""Console logs to records: parse() reads one log, load_run() a run's
directory (console.log and, for icount, console-init0.log and the profile
boots' console-profile*.log) and writes its results.json.

The benchmark line is scripts/bench-line.re's, the format's one
definition (include/qmp/time_bench.h prints it); a line that starts like
one and does not match it stops the report.  A test script's lines
(vnic/forward-bench.sh: suite fwd) reach the console behind its name,
"forward_bench: time_bench: ...", and come with "# perf:", "# fwd:",
"# profile:" and "# locks:" comment lines, kept with their case.
"""
import datetime
import json
import os
import platform
import re
import statistics
import sys

from .cases import INIT0, describe

SCRIPTS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
with open(os.path.join(SCRIPTS, "bench-line.re")) as _f:
    LINE = re.compile(_f.read().strip())
FIELDS = re.compile(r"(\w+)=(\S+)")
# A test script's output line, as scripts/guest-run relays it
SCRIPT_PREFIX = re.compile(r"^[a-z0-9_]+: "
                           r"(?=time_bench: |# (perf|fwd|profile|locks): )")
# A test script's comment line: kind, the case it is about, the rest
COMMENT = re.compile(r"# (perf|fwd|profile|locks): (\S+?):? (.*)$")
AUTO_INIT = re.compile(r"mem auto-init: .*"
                       r"heap alloc:(on|off), heap free:(on|off)")


def parse(path, variant=""):
    """Return (records, settings) from one console log."""
    recs, settings, boot = [], {}, {}
    # fwd case -> the comment lines of its latest record (they follow its
    # time_bench line; a log of several boots has one record per boot):
    # {"perf": [...], "fwd": {...}, "profile": [...], "locks": [...],
    #  "locks_run": {...}}
    extra = {}
    with open(path, errors="replace") as log:
        lines = log.readlines()
    for raw in lines:
        raw = re.sub(r"^\[\s*[0-9.]+\]\s*", "", raw.rstrip())
        m = re.search(r"qmempool_bench: (init_on_alloc=.*)", raw)
        if m:
            settings.update(dict(FIELDS.findall(m.group(1))))
        m = AUTO_INIT.search(raw)
        if m:
            boot = {"init_on_alloc": str(int(m.group(1) == "on")),
                    "init_on_free": str(int(m.group(2) == "on"))}
        raw = SCRIPT_PREFIX.sub("", raw)
        m = COMMENT.match(raw)
        if m:
            kind, name, text = m.groups()
            x = extra.setdefault(name, new_extra())
            f = dict(FIELDS.findall(text))
            if kind == "perf":
                x["perf"].append(text)
            elif kind == "fwd":
                x["fwd"] = f
            elif kind == "profile":
                if "sym" in f:
                    x["profile"].append(f)
            elif "caller" in f:
                x["locks"].append(f)
            elif "busy" in f:
                x["locks_run"] = {k: int(f[k]) for k in ("busy", "period",
                                                         "n")}
            continue
        if not raw.startswith("time_bench: "):
            continue
        if not LINE.match(raw):
            sys.exit("bench-report: malformed line in %s: %r" % (path, raw))
        name = raw.split()[1]
        rec = dict(FIELDS.findall(raw))
        suite, case = name.split("/", 1)
        rec.update(suite=suite, case=case, variant=variant)
        for k in ("ns", "ns_min"):
            rec[k] = float(rec[k])
        rec["cycles"] = None if rec["cycles"] == "-" else float(rec["cycles"])
        for k in ("n", "runs", "cpus"):
            rec[k] = int(rec[k])
        extra[name] = rec["_extra"] = new_extra()
        recs.append(rec)
    for r in recs:
        x = r.pop("_extra")
        if x["perf"] or x["fwd"] or x["profile"] or "locks_run" in x:
            r["perf"], r["profile"] = x["perf"], x["profile"]
            if "locks_run" in x:
                r["locks"], r["locks_run"] = x["locks"], x["locks_run"]
            r.update({"fwd_" + k: v for k, v in x["fwd"].items()})
    for k, v in boot.items():
        settings.setdefault(k, v)
    return merge_boots(recs), settings


def new_extra():
    """The comment lines of one forwarding record, none yet."""
    return {"perf": [], "fwd": {}, "profile": [], "locks": []}


def profiles(path):
    """The "# profile:" lines of a profile boot's console log
    (bench_modules/bench-profile.sh): {"<suite>/<case>:<ctx>": [fields of
    each line]}.  Its time_bench lines are not figures: the case ran
    under perf record."""
    out = {}
    with open(path, errors="replace") as log:
        for raw in log:
            raw = re.sub(r"^\[\s*[0-9.]+\]\s*", "", raw.rstrip())
            m = COMMENT.match(SCRIPT_PREFIX.sub("", raw))
            if m and m.group(1) == "profile":
                f = dict(FIELDS.findall(m.group(3)))
                out.setdefault(m.group(2), [])
                if "sym" in f:
                    out[m.group(2)].append(f)
    return out


def add_profiles(recs, d):
    """Give each record of @recs its profile from the run directory @d's
    profile boots (console-profile.log: init_on_alloc=1, -init0.log: =0),
    where it was profiled."""
    for log, variant in (("console-profile.log", ""),
                         ("console-profile-init0.log", INIT0)):
        path = os.path.join(d, log)
        if not os.path.exists(path):
            continue
        prof = profiles(path)
        for r in recs:
            key = "%s/%s:%s" % (r["suite"], r["case"], r["ctx"])
            if r["variant"] == variant and prof.get(key):
                r["profile"] = prof[key]


def merge_boots(recs):
    """A log of several boots has each case once per boot: keep one record
    with the median of the boots' medians (ns_boots: every boot's, in
    boot order), the fastest run of all, and boots=<count>; the rest of
    it (a forwarding record's packets/s, perf lines) is the median boot's
    (of an even count, the lower middle one's), but a profile or lock run
    of any boot's (a profile taken from outside follows the last boot)."""
    groups = {}
    for r in recs:
        groups.setdefault((r["suite"], r["case"], r["ctx"]), []).append(r)
    out = []
    for rs in groups.values():
        r = dict(sorted(rs, key=lambda x: x["ns"])[(len(rs) - 1) // 2])
        r["boots"] = len(rs)
        for k in ("profile", "locks_run", "locks"):
            r[k] = next((x[k] for x in rs if x.get(k)), r.get(k))
            if r[k] is None:
                del r[k]
        if len(rs) > 1:
            r["ns_boots"] = [x["ns"] for x in rs]
            r["ns"] = statistics.median(r["ns_boots"])
            r["ns_min"] = min(x["ns_min"] for x in rs)
            cyc = [x["cycles"] for x in rs if x["cycles"] is not None]
            r["cycles"] = statistics.median(cyc) if cyc else None
        out.append(r)
    return out


# The x86 extensions a run's host CPU is named with: the ones whose
# register state a UML kernel must save and restore (issue 25: UML 6.1 and
# 6.12 could not start a process on a host with AVX-512 and AMX)
CPU_FLAGS = (("avx512f", "AVX-512"), ("amx_tile", "AMX"))


def host_cpu(path="/proc/cpuinfo"):
    """The host CPU, as a section names it: its model name, family and
    model, its extensions of CPU_FLAGS (or "no AVX-512") and its count
    of CPUs, from @path's first processor."""
    info, cpus = {}, 0
    with open(path) as f:
        for line in f:
            key, _, value = line.partition(":")
            key = key.strip()
            cpus += key == "processor"
            if cpus == 1 and key:
                info[key] = value.strip()
    if "model name" not in info:
        return "unknown"
    flags = info.get("flags", "").split()
    ext = [name for flag, name in CPU_FLAGS if flag in flags]
    return "%s (family %s, model %s; %s; %d CPU%s)" % (
        info["model name"], info.get("cpu family", "?"),
        info.get("model", "?"), ", ".join(ext) or "no AVX-512", cpus,
        "s" * (cpus != 1))


def load_run(vehicle, kernel, d, command):
    """Parse run directory @d's console logs: (records, meta); writes
    results.json there."""
    what, unit = describe(vehicle, kernel)
    recs, settings = parse(os.path.join(d, "console.log"))
    if not recs:
        sys.exit("bench-report: no result lines in %s" % d)
    settings0 = {}
    if os.path.exists(os.path.join(d, "console-init0.log")):
        recs0, settings0 = parse(os.path.join(d, "console-init0.log"), INIT0)
        if settings0.get("init_on_alloc") != "0":
            sys.exit("bench-report: %s/console-init0.log did not run "
                     "with init_on_alloc=0" % d)
        recs += recs0
    add_profiles(recs, d)
    # The date of the measurement (the log's), not of this report
    stamp = os.path.getmtime(os.path.join(d, "console.log"))
    date = datetime.datetime.fromtimestamp(
        stamp, datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    meta = {"vehicle": what, "vehicle_key": vehicle, "unit": unit,
            "kernel": kernel, "host_cpu": host_cpu(),
            "host": platform.node(), "date": date, "command": command,
            "loops": recs[0]["n"], "runs": recs[0]["runs"],
            "settings": settings, "settings_init0": settings0,
            "dir": os.path.basename(os.path.normpath(d))}
    with open(os.path.join(d, "results.json"), "w") as f:
        json.dump({"meta": meta, "results": recs}, f, indent=1)
    return recs, meta
