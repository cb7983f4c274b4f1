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
#                         CPU but the last (this shell's): vnic0 in stock
#                         mode (heads from the NAPI skb cache), vnic1 in
#                         pool mode (heads from the pool); every other
#                         frame is dropped early (nftables, raw
#                         prerouting), and kfree_skb() frees it through
#                         kfree_skbmem(), which the hook redirects to the
#                         pool while on; the others are forwarded, vnic0's
#                         to vnic1 and vnic1's to vnic0, and freed by the
#                         other device's TX completion: vnic1's
#                         skb_pool_consume_skb() (into the pool), vnic0's
#                         napi_consume_skb() (into the NAPI skb cache);
#                         every switch must succeed, frames must flow in
#                         every on/off cycle and the pool must have taken
#                         heads
#   3 hook_toggle_accounting
#                         then the last frames requested are generated,
#                         and every one was dropped by the rule, or
#                         forwarded and then completed or dropped by the
#                         other device's TX path (its qdisc, tx_dropped);
#                         the drop and both TX completions carried frames
#   4 unload_all          the hook off, every module unloaded
#   5 skb_head_cache_back_to_baseline
#                         the slab's own count of the skb head cache's
#                         objects in use (/sys/kernel/slab/<cache>/objects
#                         after a shrink, which flushes the per-CPU slabs)
#                         is the baseline, within what the kernel's NAPI
#                         skb caches may hold: their heads count as in use
#                         for the slab, and up to 64 per CPU (128 on 7.x)
#                         may have joined them (vnic0's stock RX and TX
#                         completion fill them); the frames dropped
#                         early and those each device's TX completion
#                         freed are each at least 100 times that bound,
#                         so a leak of 1% of the heads of any of these
#                         paths shows
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
PLAN=6
CHUNK=300000			# frames requested at a time per device

# slab_bugs: reports of the slab's sanity checks on the cache so far
slab_bugs() { dmesg | grep -c "BUG $HEAD_CACHE"; }
# generated: frames both devices generated so far
generated() { echo $(($(vsum vnic0 rx_generated) + $(vsum vnic1 rx_generated))); }
# both NAME...: the sum of the totals NAME... of both devices
both() { echo $(($(vsum vnic0 "$@") + $(vsum vnic1 "$@"))); }
# tx_drops: frames both devices' TX paths dropped (qdiscs, tx_dropped)
tx_drops() { echo $(($(qdrops vnic0) + $(qdrops vnic1) + $(both tx_dropped))); }
# accounted: frames dropped by the rule, completed or dropped on TX
# since the toggles started
accounted() {
	echo $(($(nft_count) - k0 + $(both tx_completed) - cb + $(tx_drops) - d0))
}
# pending: frames requested and not generated yet, both devices
pending() {
	echo $(($(cat "$DBG/vnic0/rx_pending") + $(cat "$DBG/vnic1/rx_pending")))
}
# feed: CHUNK more frames for each device with fewer than CHUNK pending
# (the generation never stops during the toggles, and ends soon after)
feed() {
	for d in vnic0 vnic1; do
		[ "$(cat "$DBG/$d/rx_pending")" -ge "$CHUNK" ] ||
			echo "$CHUNK" >"$DBG/$d/rx_count"
	done
}
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
rest() { while [ "$KTAP_N" -lt "$PLAN" ]; do ktap_skip "case_$((KTAP_N + 1))" "$1"; done; }

ktap_begin "$PLAN"
net_sysctl
online=$(grep -c ^processor /proc/cpuinfo)
ktap_diag "toggles=$TOGGLES, $online CPUs, kernel $(uname -r)"

# 1: baseline, then everything loaded
progress "load"
for m in $MODS qmp_vnic; do
	if [ -d "/sys/module/${m##*/}" ]; then
		ktap_not_ok "load_all" "${m##*/} was loaded before this script: no baseline"
		rest "no baseline"
		exit 1
	fi
done
if [ ! -r "$HEAD_SLAB/objects" ]; then
	ktap_not_ok "load_all" "no $HEAD_SLAB/objects"
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
# vnic0's frames to 198.19.0.2 through vnic1, vnic1's (198.19.0.2 ->
# 198.18.0.2) to 198.18.0.2 through vnic0; every other one dropped
# shellcheck disable=SC2086 # empty or one parameter
if [ -z "$lerr" ] && ! { load $qparams && echo stock >"$DBG/vnic0/mode" &&
	echo pool >"$DBG/vnic1/mode" && echo 64 >"$DBG/vnic0/flows" &&
	echo 64 >"$DBG/vnic1/flows" &&
	echo 198.19.0.2 >"$DBG/vnic1/ip_src" &&
	echo 198.18.0.2 >"$DBG/vnic1/ip_dst" &&
	ip neigh replace 198.18.0.2 lladdr "$VNIC_PEER" dev vnic0 nud permanent &&
	drop_rule on udp dport 9 numgen inc mod 2 0; }; then
	lerr="qmp_vnic or the network set-up failed"
fi
if [ -n "$lerr" ]; then
	ktap_not_ok "load_all" "$lerr"
	drop_rule off
	unload_all
	rest "not loaded"
	exit 1
fi
nq=$(vsum vnic0 queues)
ktap_diag "load_all: $base heads in use before, vnic0 has $nq queues"
ktap_ok "load_all"

# 2: the hook on and off under traffic
progress "hook toggles"
g0=$(generated) k0=$(nft_count) ff0=$(pool_stat free_fast)
f0=$(snmp ForwDatagrams) d0=$(tx_drops)
c00=$(vsum vnic0 tx_completed) c10=$(vsum vnic1 tx_completed)
cb=$((c00 + c10))
feed
terr='' moving=0 i=0 t0=$(date +%s)
while [ "$i" -lt "$TOGGLES" ]; do
	i=$((i + 1))
	feed
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
ktap_diag "hook_toggle_under_traffic: $i on/off cycles in ${secs}s, $moving with frames flowing, $(($(generated) - g0)) frames, $ff heads into the pool's local queues"
if [ -n "$terr" ]; then
	ktap_not_ok "hook_toggle_under_traffic" "$terr"
elif [ "$moving" -lt "$TOGGLES" ]; then
	ktap_not_ok "hook_toggle_under_traffic" "frames flowed in only $moving of $TOGGLES cycles"
elif [ "$ff" -eq 0 ]; then
	ktap_not_ok "hook_toggle_under_traffic" "no head went into the pool"
else
	ktap_ok "hook_toggle_under_traffic"
fi

# 3: the last frames generated, every one accounted for, then stop
progress "accounting"
wt=$((TIMEOUT * 5))
while [ "$(pending)" -ne 0 ] && [ "$wt" -gt 0 ]; do
	wt=$((wt - 1))
	sleep 0.2
done
left=$(pending)
g=$(($(generated) - g0))
settle "$g" accounted >/dev/null
k=$(($(nft_count) - k0)) fw=$(($(snmp ForwDatagrams) - f0))
c0=$(($(vsum vnic0 tx_completed) - c00)) c1=$(($(vsum vnic1 tx_completed) - c10))
d=$(($(tx_drops) - d0))
ip link set vnic0 down
ip link set vnic1 down
ktap_diag "hook_toggle_accounting: generated $g, dropped by nft $k, forwarded $fw, completed on vnic0 $c0 and on vnic1 $c1, dropped on TX $d"
if [ "$left" -ne 0 ]; then
	ktap_not_ok "hook_toggle_accounting" "$left frames still pending after ${TIMEOUT}s"
elif [ "$g" -eq 0 ] || [ "$g" -ne $((k + fw)) ] || [ "$fw" -ne $((c0 + c1 + d)) ]; then
	ktap_not_ok "hook_toggle_accounting" "generated $g, dropped $k, forwarded $fw, completed $c0 + $c1, dropped on TX $d"
elif [ "$k" -eq 0 ] || [ "$c0" -eq 0 ] || [ "$c1" -eq 0 ]; then
	ktap_not_ok "hook_toggle_accounting" "a path carried no frame: dropped $k, completed on vnic0 $c0, on vnic1 $c1"
else
	ktap_ok "hook_toggle_accounting"
fi
drop_rule off

# 4: everything unloaded
progress "unload"
if unload_all; then
	ktap_ok "unload_all"
else
	ktap_not_ok "unload_all" "rmmod failed: $(lsmod | awk 'NR > 1 { printf "%s ", $1 }')"
	rest "not unloaded"
	exit 1
fi

# 5: the head cache's objects in use, as before
after=$(heads_in_use)
bound=$(($(napi_cache_max) * online))
delta=$((after - base))
ktap_diag "skb_head_cache_back_to_baseline: $base heads in use before, $after after ($delta), bound +-$bound for $g frames: $k dropped early, $c0 completed by vnic0, $c1 by vnic1"
least=$k
[ "$c0" -ge "$least" ] || least=$c0
[ "$c1" -ge "$least" ] || least=$c1
if [ "$least" -lt $((100 * bound)) ]; then
	ktap_not_ok "skb_head_cache_back_to_baseline" "only $least frames on a path: a leak of 1% would not show"
elif [ "$delta" -gt "$bound" ] || [ "$delta" -lt $((-bound)) ]; then
	ktap_not_ok "skb_head_cache_back_to_baseline" "$delta heads more in use than before (bound +-$bound)"
else
	ktap_ok "skb_head_cache_back_to_baseline"
fi

# 6: no double free when the pool's heads went back to the slab
if [ "$(cat "$HEAD_SLAB/sanity_checks" 2>/dev/null)" != 1 ]; then
	ktap_skip "no_head_freed_twice" "no sanity checks on $HEAD_CACHE (slub_debug=F,$HEAD_CACHE)"
else
	bugs=$(($(slab_bugs) - bugs0))
	check_msg="$bugs reports of the slab's sanity checks on $HEAD_CACHE"
	if [ "$bugs" -ne 0 ]; then
		ktap_not_ok "no_head_freed_twice" "$check_msg: $(dmesg | grep -m1 "BUG $HEAD_CACHE")"
	else
		ktap_ok "no_head_freed_twice"
	fi
fi
progress "done: $KTAP_FAILED failed"
[ "$KTAP_FAILED" -eq 0 ]
