#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# bench-profile.sh CASE... [loops=N] [period=P]: in a guest of
# scripts/bench (the icount vehicle's profile boots), each benchmark case
# alone under perf record, and where its instructions go.
#
# CASE is <suite>/<case> or <suite>/<case>:<ctx> (process or softirq), as
# time_bench.ko's only= takes it; the suite's module is
# bench_modules/<suite>_bench.ko.  For each case: only= set to it, the
# module inserted with loops=N runs=1 under `perf record -g -e cpu-clock
# -c P` (insmod's task: the case runs in its module's init; under QEMU
# -icount the clock advances one ns per instruction; the kernel samples
# cpu-clock every 10 us at most often, whatever P asks), perf report read
# while the module is still loaded (its symbols resolve), the module
# removed.  Only the samples with time_bench.ko's runner in their call
# chain count (the case's calls; not the module's loading, which under
# -icount costs more than the case).  A case of time_bench_run_parallel()
# runs in kthreads: not profiled.  Output: one KTAP result per case and
# the functions with at least 0.2% of its samples,
#
#   # profile: <suite>/<case>[:<ctx>] samples=<S> sym=<symbol> period=P n=N
#
# (scripts/perf-profile.sh), in the profile boot's console log
# (scripts/bench), where scripts/benchreport/parse.py gives them to the
# case's record of the timed boots.  time_bench.ko and the modules the
# cases need must be loaded (lib lines of the guest's list); only= is
# empty again at the end.

DIR=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=scripts/ktap.sh
. "$DIR/../scripts/ktap.sh"
# shellcheck source=scripts/perf-profile.sh
. "$DIR/../scripts/perf-profile.sh"

ONLY=/sys/module/time_bench/parameters/only
# time_bench.ko's function that runs a case, timed (never inlined)
RUNNER='^tb_once$'
LOOPS=100000 PERIOD=10000 CASES=
for arg; do
	case $arg in
	loops=*) LOOPS=${arg#loops=} ;;
	period=*) PERIOD=${arg#period=} ;;
	*/*) CASES="$CASES $arg" ;;
	*)
		echo "bench-profile.sh: unknown argument '$arg'" >&2
		exit 2
		;;
	esac
done
TMP=$(mktemp -d) || exit 1
trap 'rm -rf "$TMP"' EXIT

if ! command -v perf >/dev/null || [ ! -w "$ONLY" ] || [ -z "$CASES" ]; then
	ktap_begin 1
	ktap_not_ok profile "no case, no perf, or time_bench.ko not loaded"
	ktap_end bench_profile
	exit 1
fi
# shellcheck disable=SC2086 # one word per case
ktap_begin "$(set -- $CASES && echo $#)"
for c in $CASES; do
	suite=${c%%/*}
	name=$(echo "$c" | tr /: __)
	ko=$DIR/${suite}_bench.ko mod=${suite}_bench
	printf '%s\n' "$c" >"$ONLY"
	rm -f "$TMP/perf.data"
	seen=$(dmesg | wc -l)
	if ! perf record -g -e cpu-clock -c "$PERIOD" -B -N -q \
		-o "$TMP/perf.data" -- insmod "$ko" loops="$LOOPS" runs=1 \
		>"$TMP/err" 2>&1; then
		ktap_not_ok "$name" "perf record -- insmod $ko failed: $(tail -n 3 "$TMP/err" | tr '\n' ' ')"
		rmmod "$mod" 2>/dev/null
		continue
	fi
	# The cases that ran: only= must have left every other one out
	ran=$(dmesg | tail -n "+$((seen + 1))" |
		sed -n 's/.*time_bench: \([^ ]*\) .* ctx=\([a-z]*\).*/\1:\2/p' |
		sort -u | tr '\n' ' ')
	perf_profile_report "$TMP/perf.data" "$c" "$PERIOD" "$LOOPS" \
		"$RUNNER" >"$TMP/out"
	rmmod "$mod"
	cat "$TMP/out"
	ok='' bad=''
	for r in $ran; do
		case $r in
		"$c" | "$c:"*) ok=1 ;;
		*) bad="$bad $r" ;;
		esac
	done
	if [ -z "$ok" ] || [ -n "$bad" ]; then
		ktap_not_ok "$name" "only=$c ran: ${ran:-no case}"
		continue
	fi
	if grep -q ' samples=' "$TMP/out"; then
		ktap_ok "$name"
	else
		ktap_not_ok "$name" "no samples with time_bench.ko's runner in the call chain"
	fi
done
: >"$ONLY"
ktap_end bench_profile
