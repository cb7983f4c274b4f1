#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# skb_pool_hook_unload_test.sh - writes of the free hook's parameter
# racing `rmmod skb_pool_hook`, in the test guest (scripts/guest-run's
# "script" kind, with no module of the project loaded: this script loads
# and unloads them itself, from the payload).
#
# rmmod marks the module going once its references are gone (the hook
# holds one while on) and only then runs its exit and removes its
# parameter files: a write of 1 to the hook parameter in between must be
# refused, else the ftrace handler is registered again on a module that
# is being freed (the next free of an skb calls into freed memory, or,
# after the exit freed the filter, every traced function calls the
# handler).  skb_pool_hook.ko built with QMP_TEST=1 (make check does)
# has the parameter test_exit_delay_ms, a sleep at the start of its
# exit, which widens that window to DELAY_MS.  Prints one KTAP document:
#   1 load_libs          alf_queue, qmempool, skb_pool loaded
#   2 hook_write_vs_rmmod ROUNDS rounds of: insmod skb_pool_hook (hook
#                        off), rmmod in the background and, once the
#                        module is going (its initstate), writes of 1 to
#                        the hook parameter as fast as they go until its
#                        files are gone, then netlink traffic (each
#                        message an skb freed through kfree_skbmem());
#                        every round must end unloaded, no write of 1 may
#                        succeed, one must have been refused at least
#                        once (else the race was never run), and no
#                        kernel report (scripts/ktap-check fails the run
#                        on any)
#   3 hook_works_after   skb_pool_hook loaded with the hook on: ftrace's
#                        enabled_functions name kfree_skbmem once; after
#                        hook=0 and rmmod, not at all
#   4 unload_libs        every module unloaded
# QEMU 7.2's multi-threaded TCG mis-executes code that ftrace patches
# while other vCPUs run it: boot this guest with -accel tcg,thread=single.

ROUNDS=20
DELAY_MS=100
TOP=$(cd "$(dirname "$0")/.." && pwd)
HOOK=/sys/module/skb_pool_hook/parameters/hook
STATE=/sys/module/skb_pool_hook/initstate
LIBS="alf_queue/alf_queue qmempool/qmempool skb_pool/skb_pool"
PLAN=4

n=0
failed=0
# result CASE [REASON]: the KTAP line of the next case, "not ok" with a
# REASON; `result CASE "# SKIP why"` skips it
result() {
	n=$((n + 1))
	case ${2-} in
	'') echo "ok $n $1" ;;
	'# SKIP '*) echo "ok $n $1 $2" ;;
	*) failed=$((failed + 1)) && echo "not ok $n $1 # $2" ;;
	esac
}
# stop REASON: the cases not run yet skipped, the modules unloaded, exit 1
stop() {
	while [ "$n" -lt "$PLAN" ]; do result "case_$((n + 1))" "# SKIP $1"; done
	unload_libs
	exit 1
}
# Progress in the kernel log, in case the guest dies in the middle
progress() { echo "skb_pool_hook_unload_test: $*" >/dev/kmsg 2>/dev/null; }

unload_libs() {
	for m in skb_pool_hook skb_pool qmempool alf_queue; do
		[ ! -d "/sys/module/$m" ] || rmmod "$m" || return 1
	done
}

# The lines of ftrace's enabled_functions that name kfree_skbmem
hooked_functions() {
	grep -c '^kfree_skbmem\b' "$TRACING/enabled_functions" 2>/dev/null
}

# writes PID: while rmmod (PID) runs, once the module is going (its
# initstate) and until its files are gone, write 1 to the hook parameter
# as fast as it goes: each write refused is counted in $refused, each
# that succeeds (the bug) in $accepted, and the hook is turned off again
writes() {
	while kill -0 "$1" 2>/dev/null; do
		{ read -r st <"$STATE"; } 2>/dev/null || break
		[ "$st" = going ] || continue
		if echo 1 2>/dev/null >"$HOOK"; then
			accepted=$((accepted + 1))
			echo 0 2>/dev/null >"$HOOK"
		elif [ -e "$HOOK" ]; then
			refused=$((refused + 1))
		fi
	done
}

echo "KTAP version 1"
echo "1..$PLAN"
echo "# rounds=$ROUNDS delay_ms=$DELAY_MS, $(grep -c ^processor /proc/cpuinfo) CPUs, kernel $(uname -r)"
TRACING=/sys/kernel/tracing
[ -r "$TRACING/enabled_functions" ] || mount -t tracefs tracefs "$TRACING" 2>/dev/null

# 1: the libraries
progress "load"
lerr=
for m in $LIBS skb_pool/skb_pool_hook; do
	if [ -d "/sys/module/${m##*/}" ]; then
		lerr="${m##*/} was loaded before this script"
		break
	fi
done
if [ -z "$lerr" ]; then
	for m in $LIBS; do
		insmod "$TOP/$m.ko" || { lerr="insmod $m.ko failed"; break; }
	done
fi
if [ -z "$lerr" ] && ! modinfo -F parm "$TOP/skb_pool/skb_pool_hook.ko" |
	grep -q '^test_exit_delay_ms:'; then
	lerr="skb_pool_hook.ko has no test_exit_delay_ms: not built with QMP_TEST=1"
fi
result "load_libs" "$lerr"
[ -z "$lerr" ] || stop "not loaded"

# 2: writes against rmmod
progress "hook writes against rmmod"
rerr='' i=0 refused=0 accepted=0 t0=$(date +%s)
while [ "$i" -lt "$ROUNDS" ] && [ -z "$rerr" ]; do
	i=$((i + 1))
	if ! insmod "$TOP/skb_pool/skb_pool_hook.ko" hook=0 test_exit_delay_ms="$DELAY_MS"; then
		rerr="round $i: insmod skb_pool_hook failed"
		break
	fi
	rmmod skb_pool_hook &
	rpid=$!
	writes "$rpid"
	if ! wait "$rpid"; then
		rerr="round $i: rmmod skb_pool_hook failed"
	elif [ -d /sys/module/skb_pool_hook ]; then
		rerr="round $i: skb_pool_hook still loaded after rmmod"
	fi
	# skbs freed through kfree_skbmem(): netlink requests and replies
	ip link show >/dev/null
	ip addr show >/dev/null
	[ $((i % 5)) -ne 0 ] || progress "$i rounds"
done
echo "# hook_write_vs_rmmod: $i rounds in $(($(date +%s) - t0))s; writes of 1 while the module was going: $refused refused, $accepted accepted"
if [ -z "$rerr" ] && [ "$accepted" -ne 0 ]; then
	rerr="$accepted writes of 1 turned the hook on while the module was going"
elif [ -z "$rerr" ] && [ "$refused" -eq 0 ]; then
	rerr="no write landed while the module was going: the race was not run"
fi
result "hook_write_vs_rmmod" "$rerr"

# 3: the hook still works, and is gone once unloaded
progress "hook after the races"
herr=
if [ -d /sys/module/skb_pool_hook ]; then
	herr="skb_pool_hook loaded before the check"
elif ! insmod "$TOP/skb_pool/skb_pool_hook.ko" hook=1; then
	herr="insmod skb_pool_hook hook=1 failed"
elif [ ! -r "$TRACING/enabled_functions" ]; then
	herr="no $TRACING/enabled_functions"
elif [ "$(hooked_functions)" != 1 ]; then
	herr="hook on: kfree_skbmem $(hooked_functions) times in enabled_functions"
elif ! echo 0 >"$HOOK" || ! rmmod skb_pool_hook; then
	herr="hook off and rmmod failed"
elif [ "$(hooked_functions)" != 0 ]; then
	herr="unloaded: kfree_skbmem $(hooked_functions) times in enabled_functions"
fi
result "hook_works_after" "$herr"

# 4: everything unloaded
progress "unload"
[ ! -w "$HOOK" ] || echo 0 >"$HOOK"
uerr=
unload_libs || uerr="rmmod failed: $(lsmod | awk 'NR > 1 { printf "%s ", $1 }')"
result "unload_libs" "$uerr"
progress "done: $failed failed"
[ "$failed" -eq 0 ]
