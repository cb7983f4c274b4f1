#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# qmempool.ko unloaded while the shrinker's drain works of a pool that
# its user never destroyed are still queued: the works' function is in
# qmempool.ko, so its exit must cancel them (an oops in freed module text
# otherwise, as soon as they run).  From this directory it loads
# qmempool.ko and qmempool_unload_test.ko (a pool with objects in every
# CPU's local cache, left behind at rmmod), then qmp_cpu_hold.ko, which
# holds the per-CPU workqueues of every CPU but this script's (a work
# item spinning on each; workqueue.cpu_intensive_thresh_us raised
# meanwhile, so that 6.5+ does not start another worker beside it),
# drops the slab caches (the shrinker queues a drain work on each CPU:
# those of the held CPUs wait), unloads qmempool_unload_test.ko and
# qmempool.ko, and only then qmp_cpu_hold.ko, which lets the waiting
# works run.  Passes if the unload worked, qmempool.ko said it cancelled
# a pending drain work (else the works already ran: the test could not
# have failed) and no oops followed (scripts/ktap-check fails the script
# on one).  Run it where qmempool.ko is not loaded.  KTAP on stdout.
dir=$(dirname "$0")
name=unload_with_leaked_pool
thresh=/sys/module/workqueue/parameters/cpu_intensive_thresh_us
thresh_was=
echo "KTAP version 1"
echo "1..1"
result() { # ok|not ok, reason
	[ ! -d /sys/module/qmp_cpu_hold ] || rmmod qmp_cpu_hold
	[ -z "$thresh_was" ] || echo "$thresh_was" >"$thresh"
	echo "$1 1 $name${2:+ # $2}"
	exit 0
}
[ "$(nproc)" -ge 2 ] || result ok "SKIP needs 2 CPUs"
[ ! -d /sys/module/qmempool ] || result "not ok" "qmempool.ko is loaded already"
taskset -pc 0 $$ >/dev/null
insmod "$dir/qmempool.ko" || result "not ok" "insmod qmempool.ko failed"
if ! insmod "$dir/qmempool_unload_test.ko"; then
	rmmod qmempool
	result "not ok" "insmod qmempool_unload_test.ko failed"
fi
if [ -w "$thresh" ]; then
	thresh_was=$(cat "$thresh")
	echo 1000000000 >"$thresh"
fi
insmod "$dir/qmp_cpu_hold.ko" except=0 || result "not ok" "insmod qmp_cpu_hold.ko failed"
echo 2 >/proc/sys/vm/drop_caches
rmmod qmempool_unload_test
rmmod qmempool
rc=$?
dmesg | grep -E 'qmempool_unload_test: |qmp_cpu_hold: ' | sed 's/^\[[ 0-9.]*\] /# /'
rmmod qmp_cpu_hold
sleep 1		# the works run now, if any was left
line=$(dmesg | grep 'was never destroyed by its user' | tail -n 1)
echo "# ${line#\[*\] }"
[ "$rc" -eq 0 ] || result "not ok" "rmmod qmempool failed ($rc)"
n=$(echo "$line" | sed -n 's/.*(\([0-9]*\) drain works cancelled).*/\1/p')
[ -n "$n" ] || result "not ok" "qmempool.ko did not report the leaked pool's drain works"
[ "$n" -gt 0 ] || result "not ok" "no drain work was pending at the unload: the test could not fail"
result ok
