#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# forward-bench.sh [count=N] [runs=R] [tests=LIST] [flows=F] [warmup=W]
#                  [clock=time|icount|tcg|uml] [profile=LIST] [period=P]
#                  [locks=LIST] [modes=stock,pool] [ksyms=1] [timeout=S]
#
# Forwarding benchmarks of qmp_vnic.ko, stock against pool, in the guest
# (scripts/guest-run's "script" kind, after alf_queue.ko, qmempool.ko,
# skb_pool.ko and, where built, skb_pool_hook.ko were loaded).  It loads
# qmp_vnic.ko (next to this script) with the parameters of each test and
# unloads it.  The tests (LIST: a comma-separated subset, default all):
#
#   drop           N frames on vnic0 dropped early, in nftables' raw
#                  table (table ip raw, prerouting hook); 1 queue
#   forward        N frames forwarded vnic0 -> route -> vnic1, one flow,
#                  TX completion (which frees the skb) on the RX CPU
#   forward_txcpu  the same with every TX completion on another CPU
#                  (tx_cpu=, the last online CPU; skipped on 1 CPU)
#   multiflow      F (default 64) flows over one queue per online CPU,
#                  every CPU forwarding at once
#
# each in mode "stock" (napi_build_skb() and napi_consume_skb(); the skb
# pool's free hook off) and in mode "pool" (skb_pool_build_skb() and
# skb_pool_consume_skb(); the free hook on where skb_pool_hook.ko is
# loaded, so the heads that nftables frees go back to the pool too), in
# the order modes= gives (default stock,pool; a benchmark in time that
# boots several times alternates it, so neither mode always runs first;
# one mode alone, for a profile of it taken from outside).
# Per test and mode: a warm-up of W frames (default 10000), then R runs
# (default 3) of N frames (default 100000), each wrapped in
#   perf stat -a -A -x, -D -1 --control fifo:... -e <events>
# the events enabled just before the frames are requested and disabled
# when they are all done: generated, and dropped, or forwarded and
# completed by vnic1 (or counted as dropped on the way).  Every frame
# must be accounted for, else the case fails and the script exits 1.
#
# The figure: "ns" per frame is the CPU time the frames took, from perf's
# task-clock, divided by N, the median of the R runs.  It holds the
# generation of the frames by vnic0 (the "hardware"), the stack, the TX
# completion, and the run's own overhead, the same in both modes (the
# polling of rx_pending every 0.1 s, perf's control, reading the idle
# times: a few million instructions per run, some 75 per frame at
# N=100000):
#   - with -a perf counts every CPU's whole time, idle included (a 2-CPU
#     guest sleeping 1 s has 2000 msec of task-clock), so each CPU's idle
#     time in the run is subtracted: the tick's own idle accounting
#     (idle + iowait time, read through qmp_vnic's debugfs file
#     cpu_idle_us; every CPU woken through vm.stat_refresh right before
#     it is read so that no idle period is left open), which ends an
#     idle period at every
#     interrupt: softirq work on an otherwise idle CPU counts as busy;
#   - clock=time (default, hosts) and clock=tcg (plain TCG, the same, but
#     the time is emulated: host time spent emulating the guest, not a
#     figure to quote): the busy time summed over the CPUs (perf's
#     task-clock minus idle);
#   - clock=uml (User-Mode Linux, which has no perf events): no perf;
#     each CPU's busy time is the run's wall time (CLOCK_MONOTONIC from
#     /proc/timer_list, read before the first idle snapshot and after the
#     last) minus its idle time, summed over the CPUs (UML here has 1):
#     native time.  Starting a process costs some 6 ms in UML, as much as
#     a few thousand packets, so the window starts none but the polling's
#     sleep, once a second instead of every 0.1 s, and the final count's
#     (the clock and idle times are read with the shell's builtins):
#     about 6 ms a second, 0.6%, in both modes.  profile= and locks= are
#     refused;
#   - clock=icount (QEMU -icount shift=0,sleep=off): the guest clock
#     advances 1 ns per guest instruction, so the figure is INSTRUCTIONS
#     per frame, not time.  With several vCPUs the clock is shared: it
#     advances with every vCPU's instructions, so a CPU's busy time holds
#     the instructions of all the CPUs that ran meanwhile, and the sum
#     would count them twice; then the figure is the busiest CPU's busy
#     time, which is every vCPU's instructions in the run as long as that
#     CPU is busy throughout, as the RX CPUs are here (it can only miss
#     work done while that CPU idles, e.g. completions after the last
#     frame was generated).  With one vCPU both are the same.
# "packets/s" is N over the busiest CPU's busy time: the rate of the CPU
# that limits it (under icount: at one instruction per ns).  Cycles
# (and instructions, cache misses, iTLB misses) are counted only where
# `perf stat -e cycles true` works, i.e. on a host with a PMU; under QEMU
# TCG perf has software events only, and the line says cycles=-.
#
# profile=LIST (tests, comma-separated; default none): after the runs of
# each of these tests and modes, one more run of N frames under
#   perf record -a -e cpu-clock -c P (default P=100000 ns: under icount
#   a sample every 100000 instructions)
# and the symbols with at least 0.2% of the samples (perf report --sort
# sym), as
#   # profile: fwd/<test>_<mode> samples=<S> sym=<symbol> period=P n=N
# lines, from which scripts/bench-report makes the per-function cost of
# each mode (a function's share of the samples outside the idle loop
# times the mode's figure) and their difference.  The sampling's own cost
# is in the profile run only, never in the result lines.
#
# locks=LIST (tests, comma-separated; default none): after the runs of
# each of these tests and modes, one more run of N frames under
#   perf record -a -g -e cpu-clock -c P   (call chains)
# (for a test in both lists, the one sampled run gives both: its
# profile, from each sample's leaf, and its locks), whose samples that
# fell in a lock's wait loop (the spinlock, rwlock,
# mutex and rwsem slow paths) are charged to the function that took the
# lock, the first frame below the lock's own functions, as
#   # locks: fwd/<test>_<mode> samples=<S> caller=<function> via=<the lock
#     function it called> type=spinlock|rwlock|mutex|rwsem period=P n=N
# lines, the callers with the most samples first, and a last
#   # locks: fwd/<test>_<mode> busy=<samples outside the idle loop>
#     callers=<K> period=P n=N
# Not the kernel's lock:contention_begin tracepoint (perf lock): it is
# not reached while a spinlock has a single waiter (the pending bit) nor
# in a guest (virt_spin_lock(), when the CPU says it runs under a
# hypervisor), i.e. never with 2 vCPUs.  A spin with interrupts off is
# sampled only when they are on again, so such a lock's wait shows as
# the caller of _raw_spin_unlock_irqrestore, not here.
#
# ksyms=1: after the runs of each test, while qmp_vnic.ko is loaded, the
# text symbols and ends of the loaded modules (perf_profile_modsyms of
# scripts/perf-profile.sh) as
#   # ksym: <address> <symbol>      # ksym: <address> -
# lines, for a profile taken from outside the guest (scripts/bench's UML
# forwarding profile: the host sees UML's addresses, not its modules).
#
# Output, per test and mode: a KTAP result, the runs as "#" lines, and
#   time_bench: fwd/<test>_<mode> ns=<median> ns_min=<best run> cycles=<per
#     frame|-> n=<N> runs=<R> cpus=<CPUs used> ctx=softirq
#   # perf: fwd/<test>_<mode>: <the perf stat counts of the median run>
#   # fwd: fwd/<test>_<mode> pps=... busy_ms=... task_clock_ms=... ...
# (scripts/bench-line.re; the lines reach the console prefixed with
# "forward_bench: ", which scripts/bench-report strips).  Addresses as in
# vnic-test.sh: vnic0 198.18.0.1/24, vnic1 198.19.0.1/24 and a permanent
# neighbour 198.19.0.2, the frames' destination (UDP port 9).

VNIC_PROG=forward-bench
# shellcheck source=vnic/vnic-lib.sh
. "$(dirname "$0")/vnic-lib.sh"
SELF=$VNIC_DIR/$(basename "$0")

# ---- counters ----------------------------------------------------------

# fwd_done EXPECTED Q0: frames vnic1 is done with (completed, or dropped
# by its TX path) and, only when those fall short of EXPECTED, plus the
# drops of its qdisc since they were Q0
fwd_done() {
	fd_n=$(vsum vnic1 tx_completed tx_dropped)
	[ "$fd_n" -ge "$1" ] || fd_n=$((fd_n + $(qdrops vnic1) - $2))
	echo "$fd_n"
}
# idle_snapshot: "cpu:ns ..." every online CPU's idle time so far, from
# qmp_vnic's cpu_idle_us (the tick's idle accounting, whose own file
# moved between kernels: /proc/timer_list until 6.x, none since 7.0), in
# microseconds.  It counts an idle period that is still open; stat_refresh
# first runs a work item on every CPU, which ends them all, as it did when
# the figures were read from /proc/timer_list (the same work in both
# modes).
idle_snapshot() {
	echo 1 >/proc/sys/vm/stat_refresh 2>/dev/null
	idle_ns <"$DBG/cpu_idle_us"
}
# idle_ns: cpu_idle_us's line (stdin) in nanoseconds, CPUs without "-"
idle_ns() {
	awk '{ for (i = 1; i <= NF; i++) {
			split($i, f, ":")
			if (f[2] != "-")
				printf "%s:%.0f ", f[1], f[2] * 1000
		} }'
}
# idle_raw VAR: idle_snapshot's line as cpu_idle_us has it (idle_ns
# converts it later) into VAR, and now_ns VAR: CLOCK_MONOTONIC in ns, from
# /proc/timer_list's "now at N nsecs" (its third line), into VAR: with the
# shell's builtins only, no process nor subshell, where starting one
# costs what a few thousand packets do (UML: some 6 ms)
idle_raw() {
	echo 1 >/proc/sys/vm/stat_refresh 2>/dev/null
	read -r "$1" <"$DBG/cpu_idle_us"
}
now_ns() {
	{ read -r _; read -r _; read -r _ _ "$1" _; } </proc/timer_list
}

# wait_done KIND EXPECTED Q0 TIMEOUT [POLL]: until every requested frame
# is generated and (KIND forward) fwd_done EXPECTED Q0 reaches EXPECTED;
# 1 after TIMEOUT seconds, or if that count did not move for 20 polls;
# it looks every POLL seconds (0.1, or 1: where the sleep's process is
# dear, as in UML, fewer of them)
wait_done() {
	wd_poll=${5:-0.1}
	wd_left=$(($4 * 10)) wd_last=-1 wd_same=0
	[ "$wd_poll" = 0.1 ] || wd_left=$4
	while :; do
		read -r wd_rx <"$DBG/vnic0/rx_pending"
		wd_tx=0
		[ "$1" = drop ] || read -r wd_tx <"$DBG/vnic1/tx_pending"
		if [ "$wd_rx" = 0 ] && [ "$wd_tx" = 0 ]; then
			[ "$1" = drop ] && return 0
			wd_n=$(fwd_done "$2" "$3")
			[ "$wd_n" -lt "$2" ] || return 0
			if [ "$wd_n" -eq "$wd_last" ]; then
				wd_same=$((wd_same + 1))
				[ "$wd_same" -lt 20 ] || return 1
			else
				wd_same=0
			fi
			wd_last=$wd_n
		fi
		wd_left=$((wd_left - 1))
		[ "$wd_left" -gt 0 ] || return 1
		sleep "$wd_poll"
	done
}

# The measured window, run by perf stat or perf record as its workload
# (started with the events disabled; CTL perf), or on its own with the
# monotonic clock read around it (CTL wall, clock=uml: no process started
# in it but the polling's sleep, every second, and the final count's):
# __window TMP KIND N EXPECTED Q0 TIMEOUT CTL
if [ "${1:-}" = __window ]; then
	if [ "$8" = wall ]; then
		now_ns w0 && idle_raw i0 || exit 2
		echo "$4" >"$DBG/vnic0/rx_count"
		wait_done "$3" "$5" "$6" "$7" 1
		rc=$?
		idle_raw i1 && now_ns w1 || exit 2
		echo "wall0 $w0"
		echo "idle0us $i0"
		echo "idle1us $i1"
		echo "wall1 $w1"
		exit "$rc"
	fi
	echo enable >"$2/ctl" && read -r _ <"$2/ack" || exit 2
	echo "idle0 $(idle_snapshot)"
	echo "$4" >"$DBG/vnic0/rx_count"
	wait_done "$3" "$5" "$6" "$7"
	rc=$?
	echo "idle1 $(idle_snapshot)"
	echo disable >"$2/ctl" && read -r _ <"$2/ack"
	exit "$rc"
fi

COUNT=100000			# frames per run
RUNS=3
TESTS=drop,forward,forward_txcpu,multiflow
FLOWS=64			# multiflow's flows
WARMUP=10000			# frames before the runs of each mode
CLOCK="time"
PROFILE=
PERIOD=100000			# ns between perf record's samples
# The idle loop's functions (a sample there is no work)
IDLE_SYMS='safe_halt|default_idle|idle_poll|mwait_idle|acpi_idle|intel_idle|poll_idle|do_idle$'
LOCKS=
MODES="stock pool"
KSYMS=
TIMEOUT=600			# seconds a run may take
for arg; do
	case $arg in
	count=*) COUNT=${arg#count=} ;;
	runs=*) RUNS=${arg#runs=} ;;
	tests=*) TESTS=${arg#tests=} ;;
	flows=*) FLOWS=${arg#flows=} ;;
	warmup=*) WARMUP=${arg#warmup=} ;;
	clock=*) CLOCK=${arg#clock=} ;;
	profile=*) PROFILE=$(echo "${arg#profile=}" | tr , ' ') ;;
	period=*) PERIOD=${arg#period=} ;;
	locks=*) LOCKS=$(echo "${arg#locks=}" | tr , ' ') ;;
	modes=*) MODES=$(echo "${arg#modes=}" | tr , ' ') ;;
	ksyms=*) KSYMS=${arg#ksyms=} ;;
	timeout=*) TIMEOUT=${arg#timeout=} ;;
	*) echo "forward-bench.sh: unknown argument '$arg'" >&2; exit 2 ;;
	esac
done
case $CLOCK in time | icount | tcg | uml) ;; *) echo "forward-bench.sh: clock=time|icount|tcg|uml" >&2; exit 2 ;; esac
if [ "$CLOCK" = uml ] && [ -n "$PROFILE$LOCKS" ]; then
	echo "forward-bench.sh: profile= and locks= need perf, which clock=uml has not" >&2
	exit 2
fi
case " $MODES " in
" stock pool " | " pool stock " | " stock " | " pool ") ;;
*) echo "forward-bench.sh: modes=stock,pool, pool,stock, stock or pool" >&2; exit 2 ;;
esac
TESTS=$(echo "$TESTS" | tr , ' ')
for t in $TESTS $PROFILE $LOCKS; do
	case $t in drop | forward | forward_txcpu | multiflow) ;;
	*) echo "forward-bench.sh: unknown test '$t'" >&2; exit 2 ;;
	esac
done

# ---- set-up ------------------------------------------------------------

TMP=${TMPDIR:-/tmp}/forward-bench.$$
rm -rf "$TMP"
mkdir -p "$TMP" && mkfifo "$TMP/ctl" "$TMP/ack" || exit 1
hook0=
[ -r "$HOOK" ] && read -r hook0 <"$HOOK"
# shellcheck disable=SC2317 # run by the trap
cleanup() {
	nft delete table ip raw 2>/dev/null
	rmmod qmp_vnic 2>/dev/null
	[ -z "$hook0" ] || echo "$hook0" >"$HOOK" 2>/dev/null
	rm -rf "$TMP"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# set_mode MODE: both devices, and the pool's free hook (off for stock)
set_mode() {
	echo "$1" >"$DBG/vnic0/mode" && echo "$1" >"$DBG/vnic1/mode" || return 1
	[ -w "$HOOK" ] || return 0
	if [ "$1" = pool ]; then echo 1 >"$HOOK"; else echo 0 >"$HOOK"; fi
}

# The software events everywhere, the PMU's where perf can count them
# (clock=uml: none, no perf)
EVENTS=task-clock,context-switches,cpu-migrations,page-faults
[ "$CLOCK" != uml ] || EVENTS=-
for ev in cycles instructions cache-misses iTLB-load-misses; do
	[ "$CLOCK" != uml ] || break
	v=$(perf stat -x, -e "$ev" true 2>&1 | awk -F, -v e="$ev" '$3 == e { print $1 }')
	case $v in '' | *[!0-9.]*) ;; *) EVENTS=$EVENTS,$ev ;; esac
done

# ---- one run -----------------------------------------------------------

# snap N: the counters before a run of N frames; exp: what fwd_done
# must reach
snap() {
	g0=$(vsum vnic0 rx_generated) f0=$(snmp ForwDatagrams)
	pa0=$(vsum vnic0 rx_page_alloc)
	if [ "$kind" = drop ]; then
		k0=$(nft_count) q0=0 exp=0
	else
		k0=$(vsum vnic1 tx_completed tx_dropped) q0=$(qdrops vnic1)
		exp=$((k0 + $1))
	fi
}

# nft_since: the frames dropped by the rule since snap
# shellcheck disable=SC2317 # run by settle
nft_since() { echo $(($(nft_count) - k0)); }

# account N: after a run of N frames, every frame accounted for (waits
# until vnic1 is done with them, or nothing moved for 2 s); acct says
# what was counted
account() {
	if [ "$kind" = forward ]; then
		wait_done forward "$exp" "$q0" 10
		done_=$(($(fwd_done "$exp" "$q0") - k0))
	else
		done_=$(settle "$1" nft_since)
	fi
	g=$(($(vsum vnic0 rx_generated) - g0)) fw=$(($(snmp ForwDatagrams) - f0))
	pa=$(($(vsum vnic0 rx_page_alloc) - pa0))
	if [ "$kind" = drop ]; then
		acct="generated $g, dropped by nftables $done_, forwarded $fw"
		[ "$g" -eq "$1" ] && [ "$done_" -eq "$1" ] && [ "$fw" -eq 0 ]
	else
		acct="generated $g, forwarded $fw, completed or dropped by vnic1 $done_"
		[ "$g" -eq "$1" ] && [ "$fw" -eq "$1" ] && [ "$done_" -eq "$1" ]
	fi
}

# measure N: one run of N frames in perf stat (clock=uml: on its own,
# timed by the wall clock); sets res (key=value ...) and writes the perf
# counts of the run to $TMP/perf.txt.  1 on failure (reason in res).
measure() {
	snap "$1"
	rm -f "$TMP/perf.out" "$TMP/win.out"
	if [ "$CLOCK" = uml ]; then
		: >"$TMP/perf.out"
		taskset -c "$pin" sh "$SELF" __window "$TMP" "$kind" "$1" \
			"$exp" "$q0" "$TIMEOUT" wall >"$TMP/win.out" 2>"$TMP/perf.err"
	else
		taskset -c "$pin" perf stat -a -A -x, -D -1 \
			--control "fifo:$TMP/ctl,$TMP/ack" -e "$EVENTS" \
			-o "$TMP/perf.out" -- sh "$SELF" __window "$TMP" "$kind" "$1" \
			"$exp" "$q0" "$TIMEOUT" perf >"$TMP/win.out" 2>"$TMP/perf.err"
	fi
	mrc=$?
	if ! account "$1"; then
		res="frames lost: requested $1, $acct"
		return 1
	fi
	if [ "$mrc" -ne 0 ]; then
		res="perf stat or the run failed (rc=$mrc): $(tail -n 3 "$TMP/perf.err" | tr '\n' ' ')"
		return 1
	fi
	res=$(awk -F, -v n="$1" -v clock="$CLOCK" -v evs="$EVENTS" \
		-v i0="$(sed -n 's/^idle0 //p' "$TMP/win.out"; sed -n 's/^idle0us //p' "$TMP/win.out" | idle_ns)" \
		-v i1="$(sed -n 's/^idle1 //p' "$TMP/win.out"; sed -n 's/^idle1us //p' "$TMP/win.out" | idle_ns)" \
		-v w0="$(sed -n 's/^wall0 //p' "$TMP/win.out")" \
		-v w1="$(sed -n 's/^wall1 //p' "$TMP/win.out")" \
		-v out="$TMP/perf.txt" '
		function idle(s, a,   k, i, p) {
			k = split(s, p, " ")
			for (i = 1; i <= k; i++) { split(p[i], f, ":"); a[f[1]] = f[2] }
			return k
		}
		BEGIN {
			na0 = idle(i0, a0); na1 = idle(i1, a1)
			# clock=uml: every CPU was there for the wall time
			if (clock == "uml" && w1 > w0) {
				for (c in a1) {
					tc[c] = w1 - w0
					cl = cl (ntc++ ? "," : "") c
				}
				tot["wall-clock"] = ntc * (w1 - w0) / 1e6
				unit["wall-clock"] = "msec"
				evs = "wall-clock"
			}
		}
		/^#/ || NF < 4 { next }
		{
			cpu = $1; sub(/^CPU/, "", cpu)
			if ($2 !~ /^[0-9.]+$/) { bad[$4] = $2; next }
			tot[$4] += $2; unit[$4] = $3
			if ($4 == "task-clock") {
				tc[cpu] = $2 * 1e6
				cl = cl (ntc++ ? "," : "") cpu
			}
		}
		END {
			if (!ntc || !na0 || !na1) {
				print "error=no-task-clock-or-idle"; exit
			}
			for (c in tc) {
				id = a1[c] - a0[c]; b = tc[c] - id
				if (b < 0) b = 0
				sum += b; tcs += tc[c]; ids += id
				if (b >= max) { max = b; maxc = c }
			}
			busy = clock == "icount" ? max : sum
			cyc = ("cycles" in tot) ? sprintf("%.3f", tot["cycles"] / n) : "-"
			printf "ns=%.3f cycles=%s pps=%.0f busy_ms=%.3f busy_sum_ms=%.3f busiest_cpu=%s busiest_ms=%.3f task_clock_ms=%.3f idle_ms=%.3f\n",
				busy / n, cyc, (max > 0 ? n * 1e9 / max : 0), busy / 1e6,
				sum / 1e6, maxc, max / 1e6, tcs / 1e6, ids / 1e6
			ne = split(evs, e, ",")
			s = ""
			for (i = 1; i <= ne; i++) {
				if (e[i] in tot)
					v = unit[e[i]] == "msec" ? sprintf("%.2f msec", tot[e[i]]) : sprintf("%.0f", tot[e[i]])
				else
					v = (e[i] in bad) ? bad[e[i]] : "n/a"
				s = s (i > 1 ? ", " : "") e[i] " " v
			}
			print s " (summed over CPUs " cl ")" >out
		}
		' "$TMP/perf.out")
	case $res in ns=*) res="$res rx_pages=$pa"; return 0 ;; esac
	res="cannot read perf stat's output: $res $(head -c 300 "$TMP/perf.out" | tr '\n' ' ')"
	return 1
}

# record_run WHAT N PERF-RECORD...: one more run of N frames under the
# perf record command PERF-RECORD (its output $TMP/perf.data); 1 if a
# frame was lost (res says so), 2 if perf failed (a diagnostic line)
record_run() {
	rr_what=$1 rr_n=$2
	shift 2
	snap "$rr_n"
	rm -f "$TMP/perf.data"
	taskset -c "$pin" "$@" -o "$TMP/perf.data" -- \
		sh "$SELF" __window "$TMP" "$kind" "$rr_n" "$exp" "$q0" "$TIMEOUT" \
		perf >"$TMP/win.out" 2>"$TMP/perf.err"
	prc=$?
	if ! account "$rr_n"; then
		res="$rr_what run: frames lost: requested $rr_n, $acct"
		return 1
	fi
	[ "$prc" -eq 0 ] && return 0
	ktap_diag "$bname: $rr_what run: perf failed (rc=$prc): $(tail -n 3 "$TMP/perf.err" | tr '\n' ' ')"
	return 2
}

# sample_run NAME N PROFILE LOCKS: one more run of N frames under perf
# record, with call chains (-g) where LOCKS is 1; from its samples the
# symbols with the most samples as "# profile:" lines where PROFILE is 1
# (profile_report), the functions whose lock waits were sampled as
# "# locks:" lines where LOCKS is 1 (locks_report)
sample_run() {
	sr_g=
	[ "$4" != 1 ] || sr_g=-g
	progress "$1: perf record $sr_g"
	# shellcheck disable=SC2086 # sr_g: no word or -g
	record_run profile "$2" perf record -a $sr_g -e cpu-clock -c "$PERIOD" \
		-B -N -q -D -1 --control "fifo:$TMP/ctl,$TMP/ack"
	case $? in 1) return 1 ;; 2) return 0 ;; esac
	[ "$3" != 1 ] || profile_report "$1" "$2"
	[ "$4" != 1 ] || locks_report "$1" "$2"
}

# profile_report NAME N: the symbols of $TMP/perf.data (the leaf of each
# sample) with at least 0.2% of the samples (scripts/perf-profile.sh)
profile_report() {
	progress "$1: perf report"
	perf_profile_report "$TMP/perf.data" "$1" "$PERIOD" "$2"
}

# locks_report NAME N: the functions of $TMP/perf.data (recorded with -g)
# whose lock waits were sampled
locks_report() {
	progress "$1: perf script"
	# One paragraph per sample, one frame per line: address, symbol
	perf script -i "$TMP/perf.data" -F ip,sym 2>/dev/null |
		awk -v name="$1" -v p="$PERIOD" -v n="$2" -v idle="$IDLE_SYMS" '
			BEGIN { RS = ""; FS = "\n" }
			{
				split($1, f, " ")
				if (f[2] ~ idle)
					next
				busy++
				leaf = f[2]
				if (leaf ~ /queued_spin_lock_slowpath|virt_spin_lock/)
					type = "spinlock"
				else if (leaf ~ /queued_(read|write)_lock_slowpath/)
					type = "rwlock"
				else if (leaf ~ /mutex_spin_on_owner|osq_lock|__mutex_lock/)
					type = "mutex"
				else if (leaf ~ /rwsem_(spin_on_owner|optimistic_spin|down)/)
					type = "rwsem"
				else
					next
				via = "-"
				for (i = 2; i <= NF; i++) {
					split($i, f, " ")
					if (f[2] ~ /^_raw_|^do_raw_|^queued_|^__?mutex_lock|^down_(read|write)|^rwsem_|^osq_lock$/) {
						if (f[2] ~ /^_raw_|^__?mutex_lock|^down_/)
							via = f[2]
						continue
					}
					break
				}
				caller = i <= NF ? f[2] : "?"
				k = caller " " via " " type
				if (!(k in cnt))
					keys[++nk] = k
				cnt[k]++
			}
			END {
				for (i = 1; i <= nk; i++)
					for (j = i + 1; j <= nk; j++)
						if (cnt[keys[j]] > cnt[keys[i]]) {
							t = keys[i]; keys[i] = keys[j]; keys[j] = t
						}
				for (i = 1; i <= nk; i++) {
					split(keys[i], f, " ")
					printf "# locks: %s samples=%d caller=%s via=%s type=%s period=%s n=%s\n",
						name, cnt[keys[i]], f[1], f[2], f[3], p, n
				}
				printf "# locks: %s busy=%d callers=%d period=%s n=%s\n",
					name, busy, nk, p, n
			}'
}

# The modules' text symbols and ends as "# ksym:" lines (ksyms=1)
print_ksyms() {
	perf_profile_modsyms "$TMP/ksyms"
	sed -n 's/^[0-9a-f]/# ksym: &/p' "$TMP/ksyms"
}

# field KEY "key=value ...": the value of KEY
field() { echo "$2" | tr ' ' '\n' | sed -n "s/^$1=//p"; }

# bench NAME MODE CPUS: warm-up, R runs, the result line of the median
bench() {
	bname=fwd/$1_$2
	progress "$bname"
	if ! set_mode "$2"; then
		ktap_not_ok "fwd_$1_$2" "cannot set mode $2"
		return
	fi
	hook=off
	[ -r "$HOOK" ] && read -r hook <"$HOOK" && case $hook in Y | 1) hook=on ;; *) hook=off ;; esac
	if [ "$WARMUP" -gt 0 ]; then
		progress "$bname: warm-up"
		snap "$WARMUP"
		echo "$WARMUP" >"$DBG/vnic0/rx_count"
		if ! wait_done "$kind" "$exp" "$q0" "$TIMEOUT" || ! account "$WARMUP"; then
			ktap_not_ok "fwd_$1_$2" "warm-up: requested $WARMUP, $acct"
			return
		fi
	fi
	rm -f "$TMP"/run.*
	r=1
	while [ "$r" -le "$RUNS" ]; do
		progress "$bname: run $r"
		if ! measure "$COUNT"; then
			ktap_diag "$bname: run $r: $res"
			ktap_not_ok "fwd_$1_$2" "run $r: $res"
			return
		fi
		echo "$res" >"$TMP/run.$r"
		cp "$TMP/perf.txt" "$TMP/perf.$r"
		ktap_diag "$bname: run $r: $res"
		ktap_diag "$bname: run $r: $acct"
		r=$((r + 1))
	done
	# The median run (the upper one for an even R, as time_bench.ko)
	sorted=$(for f in "$TMP"/run.*; do echo "$(field ns "$(cat "$f")") ${f##*.}"; done | sort -n)
	med=$(echo "$sorted" | sed -n "$((RUNS / 2 + 1))p")
	mrun=${med#* } ns=${med% *}
	ns_min=$(echo "$sorted" | sed -n 1p | cut -d' ' -f1)
	mres=$(cat "$TMP/run.$mrun")
	echo "time_bench: $bname ns=$ns ns_min=$ns_min cycles=$(field cycles "$mres") n=$COUNT runs=$RUNS cpus=$3 ctx=softirq"
	echo "# perf: $bname: $(cat "$TMP/perf.$mrun")"
	echo "# perf: $bname: idle $(field idle_ms "$mres") msec (tick accounting), busy $(field busy_sum_ms "$mres") msec summed, busiest CPU $(field busiest_cpu "$mres") $(field busiest_ms "$mres") msec; $(field pps "$mres") packets/s; $(field rx_pages "$mres") pages allocated by vnic0's RX rings"
	echo "# fwd: $bname $mres run=$mrun hook=$hook clock=$CLOCK"
	# One sampled run for the profile and the lock waits both
	prof=0 lk=0
	case " $PROFILE " in *" $1 "*) prof=1 ;; esac
	case " $LOCKS " in *" $1 "*) lk=1 ;; esac
	if [ "$prof$lk" != 00 ] && ! sample_run "$bname" "$COUNT" "$prof" "$lk"; then
		ktap_not_ok "fwd_$1_$2" "$res"
		return
	fi
	ktap_ok "fwd_$1_$2"
}

# ---- the document ------------------------------------------------------

planned=0
for t in $TESTS; do
	for m in $MODES; do planned=$((planned + 1)); done
done
ktap_begin "$planned"
net_sysctl
unload
online=$(grep -c ^processor /proc/cpuinfo)
last_cpu=$(sed 's/.*[-,]//' /sys/devices/system/cpu/online)
ktap_diag "count=$COUNT runs=$RUNS warmup=$WARMUP flows=$FLOWS clock=$CLOCK, $online CPUs, events $EVENTS"
ktap_diag "kernel $(uname -r); $(dmesg | grep -o 'mem auto-init: .*' | head -n 1)"
[ -w "$HOOK" ] || ktap_diag "no skb_pool_hook: in pool mode the heads that nftables frees go to the slab"

for t in $TESTS; do
	kind=forward pin=0 flows=1 cpus=1
	case $t in
	drop) kind=drop params=queues=1 ;;
	forward) params=queues=1 ;;
	forward_txcpu)
		params="queues=1 tx_cpu=$last_cpu" cpus=2
		if [ "$online" -lt 2 ]; then
			ktap_diag "forward_txcpu needs 2 CPUs or more: skipped"
			for m in $MODES; do ktap_skip "fwd_${t}_$m" "one CPU"; done
			continue
		fi
		;;
	multiflow) params=queues=$online flows=$FLOWS cpus=$online ;;
	esac
	progress "$t: insmod qmp_vnic.ko $params"
	# shellcheck disable=SC2086 # parameters split on purpose
	if ! load $params || ! echo "$flows" >"$DBG/vnic0/flows" ||
		{ [ "$kind" = drop ] && ! drop_rule on iifname vnic0; }; then
		for m in $MODES; do
			ktap_not_ok "fwd_${t}_$m" "insmod $params or the set-up failed"
		done
		drop_rule off
		rmmod qmp_vnic 2>/dev/null
		continue
	fi
	progress "$t: set up"
	for m in $MODES; do
		bench "$t" "$m" "$cpus"
	done
	[ "$KSYMS" != 1 ] || print_ksyms
	drop_rule off
	rmmod qmp_vnic || ktap_diag "rmmod qmp_vnic failed"
done
progress "done: $KTAP_FAILED failed"
if [ "$KTAP_FAILED" -ne 0 ]; then
	echo "forward-bench.sh: $KTAP_FAILED case(s) failed: frames not accounted for, or a run failed" >&2
	exit 1
fi
exit 0
