#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# vnic-hook-test.sh [toggles=N] [timeout=S] - the skb pool's free hook
# under traffic, and the skb head cache after everything is unloaded, in
# the test guest (scripts/guest-run's "script" kind, before any module
# is loaded: this script loads and unloads all of them itself, from the
# payload).  Prints one KTAP document:
#   1 load_all            baseline of the skb head cache, then alf_queue,
#                         qmempool, skb_pool, skb_pool_hook (hook off)
#                         and qmp_vnic loaded, the network set up
#   2 hook_toggle_under_traffic
#                         the hook switched on and off N times (default
#                         50) while both devices receive frames on every
#                         CPU but the last (this shell's), all dropped
#                         early (nftables, raw prerouting): vnic0 in stock
#                         mode (heads from the NAPI skb cache), vnic1 in
#                         pool mode (heads from the pool); kfree_skb()
#                         frees them through kfree_skbmem(), which the
#                         hook redirects to the pool while on; every
#                         switch must succeed, frames must flow in every
#                         on/off cycle and the pool must have taken heads
#   3 hook_toggle_accounting
#                         then both devices down (the pending frames are
#                         discarded): every generated frame was dropped
#                         by the rule, none forwarded
#   4 unload_all          the hook off, every module unloaded
#   5 skb_head_cache_back_to_baseline
#                         the slab's own count of the skb head cache's
#                         objects in use (/sys/kernel/slab/<cache>/objects
#                         after a shrink, which flushes the per-CPU slabs)
#                         is the baseline, within what the kernel's NAPI
#                         skb caches may hold: their heads count as in use
#                         for the slab, and up to 64 per CPU may have
#                         joined them (vnic0's stock RX refills them, 16
#                         at a time); the traffic is at least 100 times
#                         that bound, so a leak of 1% of the heads shows
#   6 no_head_freed_twice the pool gave its heads back to the slab when
#                         skb_pool was unloaded: with the slab's sanity
#                         checks on the cache (slub_debug=F,<cache> on the
#                         command line; else skipped), a head in the pool
#                         twice is a double free, which SLUB reports in the
#                         kernel log ("BUG <cache>...: Object already free")
#                         and which this case looks for
# Any oops or warning in the console fails the run in scripts/ktap-check.
# QEMU 7.2's multi-threaded TCG mis-executes code that ftrace patches
# while other vCPUs run it: boot this guest with -accel tcg,thread=single.

TOGGLES=50
TIMEOUT=600			# seconds the toggles may take
for arg; do
	case $arg in
	toggles=*) TOGGLES=${arg#toggles=} ;;
	timeout=*) TIMEOUT=${arg#timeout=} ;;
	esac
done
VNIC_PROG=vnic-hook-test
# shellcheck source=vnic/vnic-lib.sh
. "$(dirname "$0")/vnic-lib.sh"
TOP=$(dirname "$VNIC_DIR")
MODS="alf_queue/alf_queue qmempool/qmempool skb_pool/skb_pool skb_pool/skb_pool_hook"
SLAB=/sys/kernel/slab/skbuff_head_cache
CACHE=skbuff_head_cache
PLAN=6

# heads_in_use: the skb head cache's objects in use, per the slab
heads_in_use() {
	echo 1 >"$SLAB/shrink" 2>/dev/null
	sed 's/ .*//' "$SLAB/objects"
}
# slab_bugs: reports of the slab's sanity checks on the cache so far
slab_bugs() { dmesg | grep -c "BUG $CACHE"; }
# nft_since: the frames dropped by the rule since the toggles started
nft_since() { echo $(($(nft_count) - k0)); }
# generated: frames both devices generated so far
generated() { echo $(($(vsum vnic0 rx_generated) + $(vsum vnic1 rx_generated))); }
# unload_all: the hook off, then every module, in reverse order
unload_all() {
	[ ! -w "$HOOK" ] || echo 0 >"$HOOK" || return 1
	unload
	[ ! -d /sys/module/qmp_vnic ] || return 1
	for m in skb_pool_hook skb_pool qmempool alf_queue; do
		[ ! -d "/sys/module/$m" ] || rmmod "$m" || return 1
	done
}
# rest REASON: the remaining cases skipped
rest() { while [ "$n" -lt "$PLAN" ]; do skip "case_$((n + 1))" "$1"; done; }

echo "KTAP version 1"
echo "1..$PLAN"
net_sysctl
online=$(grep -c ^processor /proc/cpuinfo)
diag "toggles=$TOGGLES, $online CPUs, kernel $(uname -r)"

# 1: baseline, then everything loaded
progress "load"
for m in $MODS qmp_vnic; do
	if [ -d "/sys/module/${m##*/}" ]; then
		not_ok "load_all" "${m##*/} was loaded before this script: no baseline"
		rest "no baseline"
		exit 1
	fi
done
if [ ! -r "$SLAB/objects" ]; then
	not_ok "load_all" "no $SLAB/objects"
	rest "no slab accounting"
	exit 1
fi
base=$(heads_in_use) bugs0=$(slab_bugs)
lerr=
for m in $MODS; do
	p=
	[ "${m##*/}" != skb_pool_hook ] || p=hook=0
	# shellcheck disable=SC2086 # no parameter or one
	insmod "$TOP/$m.ko" $p || { lerr="insmod $m.ko $p failed"; break; }
done
# The frames flow on every CPU but the last, where this shell runs: on a
# CPU that NET_RX keeps busy, a task may not run for seconds under TCG
qparams=
if [ "$online" -gt 1 ]; then
	qparams="queues=$((online - 1))"
	taskset -pc "$(sed 's/.*[-,]//' /sys/devices/system/cpu/online)" $$ >/dev/null
fi
# shellcheck disable=SC2086 # empty or one parameter
if [ -z "$lerr" ] && ! { load $qparams && echo stock >"$DBG/vnic0/mode" &&
	echo pool >"$DBG/vnic1/mode" && echo 64 >"$DBG/vnic0/flows" &&
	echo 64 >"$DBG/vnic1/flows" && drop_rule on udp dport 9; }; then
	lerr="qmp_vnic or the network set-up failed"
fi
if [ -n "$lerr" ]; then
	not_ok "load_all" "$lerr"
	drop_rule off
	unload_all
	rest "not loaded"
	exit 1
fi
nq=$(vsum vnic0 queues)
diag "load_all: $base heads in use before, vnic0 has $nq queues"
ok "load_all"

# 2: the hook on and off under traffic
progress "hook toggles"
g0=$(generated) k0=$(nft_count) ff0=$(pool_stat free_fast)
f0=$(snmp ForwDatagrams)
echo 1000000000 >"$DBG/vnic0/rx_count"
echo 1000000000 >"$DBG/vnic1/rx_count"
terr='' moving=0 i=0 t0=$(date +%s)
while [ "$i" -lt "$TOGGLES" ]; do
	i=$((i + 1))
	gi=$(generated)
	if ! echo 1 >"$HOOK"; then
		terr="toggle $i: hook on failed"
		break
	fi
	if ! echo 0 >"$HOOK"; then
		terr="toggle $i: hook off failed"
		break
	fi
	[ "$(generated)" -eq "$gi" ] || moving=$((moving + 1))
	[ $((i % 10)) -ne 0 ] || progress "$i toggles"
	if [ $(($(date +%s) - t0)) -gt "$TIMEOUT" ]; then
		terr="toggle $i: over ${TIMEOUT}s"
		break
	fi
done
secs=$(($(date +%s) - t0))
ff=$(($(pool_stat free_fast) - ff0))
diag "hook_toggle_under_traffic: $i on/off cycles in ${secs}s, $moving with frames flowing, $(($(generated) - g0)) frames, $ff heads into the pool's local queues"
if [ -n "$terr" ]; then
	not_ok "hook_toggle_under_traffic" "$terr"
elif [ "$moving" -lt "$TOGGLES" ]; then
	not_ok "hook_toggle_under_traffic" "frames flowed in only $moving of $TOGGLES cycles"
elif [ "$ff" -eq 0 ]; then
	not_ok "hook_toggle_under_traffic" "no head went into the pool"
else
	ok "hook_toggle_under_traffic"
fi

# 3: stop (ndo_stop discards what is pending), then every frame counted
progress "accounting"
ip link set vnic0 down
ip link set vnic1 down
g=$(($(generated) - g0))
k=$(settle "$g" nft_since)
fw=$(($(snmp ForwDatagrams) - f0))
diag "hook_toggle_accounting: generated $g, dropped by nft $k, forwarded $fw"
if [ "$g" -eq 0 ] || [ "$g" -ne "$k" ] || [ "$fw" -ne 0 ]; then
	not_ok "hook_toggle_accounting" "generated $g, dropped $k, forwarded $fw"
else
	ok "hook_toggle_accounting"
fi
drop_rule off

# 4: everything unloaded
progress "unload"
if unload_all; then
	ok "unload_all"
else
	not_ok "unload_all" "rmmod failed: $(lsmod | awk 'NR > 1 { printf "%s ", $1 }')"
	rest "not unloaded"
	exit 1
fi

# 5: the head cache's objects in use, as before
after=$(heads_in_use)
bound=$((64 * online))
delta=$((after - base))
diag "skb_head_cache_back_to_baseline: $base heads in use before, $after after ($delta), bound +-$bound for $g frames"
if [ "$g" -lt $((100 * bound)) ]; then
	not_ok "skb_head_cache_back_to_baseline" "only $g frames: a leak of 1% would not show"
elif [ "$delta" -gt "$bound" ] || [ "$delta" -lt $((-bound)) ]; then
	not_ok "skb_head_cache_back_to_baseline" "$delta heads more in use than before (bound +-$bound)"
else
	ok "skb_head_cache_back_to_baseline"
fi

# 6: no double free when the pool's heads went back to the slab
if [ "$(cat "$SLAB/sanity_checks" 2>/dev/null)" != 1 ]; then
	skip "no_head_freed_twice" "no sanity checks on $CACHE (slub_debug=F,$CACHE)"
else
	bugs=$(($(slab_bugs) - bugs0))
	check_msg="$bugs reports of the slab's sanity checks on $CACHE"
	if [ "$bugs" -ne 0 ]; then
		not_ok "no_head_freed_twice" "$check_msg: $(dmesg | grep -m1 "BUG $CACHE")"
	else
		ok "no_head_freed_twice"
	fi
fi
progress "done: $failed failed"
[ "$failed" -eq 0 ]
