#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# vnic-test.sh [count=N] [timeout=S] - the tests of qmp_vnic.ko, in the
# test guest (scripts/guest-run's "script" kind, after alf_queue.ko,
# qmempool.ko and skb_pool.ko were loaded): prints one KTAP document.
#
# It loads and unloads qmp_vnic.ko (next to this script) itself:
#   - bad parameters are refused (insmod fails, the reason in the log);
#   - in stock and in pool mode: N frames dropped early (nftables, table
#     ip raw, prerouting) are counted there exactly; N frames forwarded
#     vnic0 -> vnic1 are all completed by vnic1's TX path, or counted as
#     dropped on the way (vnic1's qdisc, its tx_dropped), single flow and
#     64 flows over every queue;
#   - the mode switched while frames flow: nothing lost;
#   - both devices down and up while frames flow, then as good as new;
#   - TX completion on another CPU (tx_cpu=): nothing lost, the
#     completions are remote, and in pool mode heads come back to the
#     RX CPUs through the pool's shared layer;
#   - rmmod while frames flow both ways, 5 times (the harness fails on
#     any oops or warning in the console), after which the free memory
#     is what it was, within 8 MiB (the RX rings' pages are 16 MiB per
#     cycle: a leak of them shows, a few hundred skbs would not).
# Everything stays in the guest: vnic0 has 198.18.0.1/24, vnic1
# 198.19.0.1/24 and a permanent neighbour 198.19.0.2, the destination of
# the generated frames (source 198.18.0.2, UDP port 9).

COUNT=20000			# frames per case
TIMEOUT=300			# seconds a run may take
for arg; do
	case $arg in
	count=*) COUNT=${arg#count=} ;;
	timeout=*) TIMEOUT=${arg#timeout=} ;;
	esac
done
VNIC_PROG=vnic-test
# shellcheck source=vnic/vnic-lib.sh
. "$(dirname "$0")/vnic-lib.sh"

# check NAME REASON COMMAND...: ok if COMMAND succeeds, else not ok
check() {
	cname=$1 creason=$2
	shift 2
	if "$@"; then ok "$cname"; else not_ok "$cname" "$creason"; fi
}

# qstat DEV NAME: the counter NAME of each queue of DEV, one per line
qstat() {
	awk -v k="$2" '$1 == "queue" { for (i = 1; i <= NF; i++) if ($i == k) c = i; next }
		c { print $c }' "$DBG/$1/stats"
}
# min_qstat DEV NAME: the smallest of them
min_qstat() { qstat "$1" "$2" | sort -n | head -n 1; }

# set_dbg DEV FILE VALUE: write a debugfs file
set_dbg() { echo "$3" >"$DBG/$1/$2"; }

# wait_rx DEV: until DEV generated every requested frame
wait_rx() {
	wt=$((TIMEOUT * 5))
	while [ "$(cat "$DBG/$1/rx_pending")" != 0 ]; do
		wt=$((wt - 1))
		[ "$wt" -gt 0 ] || return 1
		sleep 0.2
	done
}

# ---- cases -------------------------------------------------------------

# refuse NAME PARAMS... MESSAGE: insmod with PARAMS fails, MESSAGE logged
refuse() {
	rname=$1
	shift
	rmsg=$(eval echo "\${$#}")
	rparams=
	while [ $# -gt 1 ]; do rparams="$rparams $1"; shift; done
	dmesg -C 2>/dev/null
	# shellcheck disable=SC2086 # parameters split on purpose
	if insmod "$VNIC_KO" $rparams 2>/dev/null; then
		unload
		not_ok "$rname" "insmod$rparams succeeded"
	elif ! dmesg | grep -q "qmp_vnic: $rmsg"; then
		not_ok "$rname" "no \"qmp_vnic: $rmsg\" in the kernel log"
	else
		ok "$rname"
	fi
}

# drop_case NAME MODE FLOWS: COUNT frames on vnic0, all dropped by nft
drop_case() {
	progress "$1"
	if ! { set_dbg vnic0 mode "$2" && set_dbg vnic0 flows "$3" && drop_rule on iifname vnic0 udp dport 9; }; then
		not_ok "$1" "set-up failed"
		return
	fi
	g0=$(vsum vnic0 rx_generated) f0=$(snmp ForwDatagrams)
	set_dbg vnic0 rx_count "$COUNT"
	if ! wait_rx vnic0; then
		not_ok "$1" "vnic0 still has $(cat "$DBG/vnic0/rx_pending") frames to generate after ${TIMEOUT}s"
		drop_rule off
		return
	fi
	# Until the counter has them all, or did not move for 2 s
	c=$(settle "$COUNT" nft_count)
	g=$(($(vsum vnic0 rx_generated) - g0))
	fw=$(($(snmp ForwDatagrams) - f0))
	drop_rule off
	diag "$1: generated $g, dropped by nft $c, forwarded $fw"
	if [ "$g" -ne "$COUNT" ] || [ "$c" != "$COUNT" ] || [ "$fw" -ne 0 ]; then
		not_ok "$1" "requested $COUNT, generated $g, dropped $c, forwarded $fw"
	elif [ "$3" -gt 1 ] && [ "$(min_qstat vnic0 rx_generated)" -eq 0 ]; then
		not_ok "$1" "a queue of vnic0 generated nothing: $(qstat vnic0 rx_generated | tr '\n' ' ')"
	else
		ok "$1"
	fi
}

# fwd_start MODE FLOWS N: start N frames forwarded vnic0 -> vnic1
fwd_start() {
	set_dbg vnic0 mode "$1" && set_dbg vnic1 mode "$1" &&
		set_dbg vnic0 flows "$2" || return 1
	g0=$(vsum vnic0 rx_generated) c0=$(vsum vnic1 tx_completed)
	d0=$(($(qdrops vnic1) + $(vsum vnic1 tx_dropped)))
	f0=$(snmp ForwDatagrams) r0=$(vsum vnic1 tx_completed_remote)
	set_dbg vnic0 rx_count "$3"
}

# fwd_accounted: frames vnic1 completed or dropped since fwd_start
fwd_accounted() {
	echo $(($(vsum vnic1 tx_completed) - c0 + $(qdrops vnic1) +
		$(vsum vnic1 tx_dropped) - d0))
}

# fwd_end NAME N: wait, then N generated == forwarded == vnic1's
# completions + drops on vnic1; sets g c d fw r (the run's counters)
fwd_end() {
	if ! wait_rx vnic0; then
		not_ok "$1" "vnic0 still has $(cat "$DBG/vnic0/rx_pending") frames to generate after ${TIMEOUT}s"
		return 1
	fi
	# Until every frame is accounted for, or nothing moved for 2 s
	settle "$2" fwd_accounted >/dev/null
	c=$(($(vsum vnic1 tx_completed) - c0))
	d=$(($(qdrops vnic1) + $(vsum vnic1 tx_dropped) - d0))
	g=$(($(vsum vnic0 rx_generated) - g0)) fw=$(($(snmp ForwDatagrams) - f0))
	r=$(($(vsum vnic1 tx_completed_remote) - r0))
	diag "$1: generated $g, forwarded $fw, completed on vnic1 $c (remote $r), dropped $d"
	if [ "$g" -ne "$2" ] || [ "$fw" -ne "$2" ] || [ $((c + d)) -ne "$2" ]; then
		not_ok "$1" "requested $2, generated $g, forwarded $fw, completed $c + dropped $d"
		return 1
	fi
}

# fwd_case NAME MODE FLOWS: COUNT frames forwarded, every one accounted for
fwd_case() {
	progress "$1"
	if ! fwd_start "$2" "$3" "$COUNT"; then
		not_ok "$1" "set-up failed"
		return
	fi
	fwd_end "$1" "$COUNT" || return
	if [ "$3" -gt 1 ] && [ "$(min_qstat vnic1 tx_completed)" -eq 0 ]; then
		not_ok "$1" "a queue of vnic1 completed nothing: $(qstat vnic1 tx_completed | tr '\n' ' ')"
	else
		ok "$1"
	fi
}

# ---- the document ------------------------------------------------------

echo "KTAP version 1"
echo "1..24"
net_sysctl
unload
possible=$(($(sed 's/.*[-,]//' /sys/devices/system/cpu/possible) + 1))
last_cpu=$(sed 's/.*[-,]//' /sys/devices/system/cpu/online)
diag "count=$COUNT, $possible possible CPUs, last online CPU $last_cpu"

# 1-9: bad parameters
progress "bad parameters"
refuse "refuse_ndev_0" ndev=0 "ndev=0"
refuse "refuse_ndev_17" ndev=17 "ndev=17"
refuse "refuse_queues_over_nr_cpu_ids" "queues=$((possible + 1))" "queues=$((possible + 1))"
refuse "refuse_bad_mode" mode=fast "mode=fast"
refuse "refuse_tx_cpu_out_of_range" "tx_cpu=$possible" "tx_cpu=$possible"
refuse "refuse_tx_ring_not_power_of_2" tx_ring=1000 "tx_ring=1000"
refuse "refuse_rx_ring_too_small" rx_ring=32 "rx_ring=32"
refuse "refuse_flows_0" flows=0 "flows=0"
off=/sys/devices/system/cpu/cpu$last_cpu/online
if [ "$last_cpu" -gt 0 ] && [ -w "$off" ] && echo 0 >"$off"; then
	refuse "refuse_tx_cpu_offline" "tx_cpu=$last_cpu" "tx_cpu=$last_cpu"
	echo 1 >"$off"
else
	skip "refuse_tx_cpu_offline" "cannot take CPU $last_cpu offline"
fi

# 10: the default load
progress "load"
online=$(grep -c ^processor /proc/cpuinfo)
if ! load; then
	not_ok "load_defaults" "insmod or the network set-up failed"
	unload
	# The rest cannot run
	while [ "$n" -lt 24 ]; do skip "case_$((n + 1))" "no device"; done
	exit 1
fi
nq=$(vsum vnic0 queues)
check "load_defaults" "vnic0 has $nq queues for $online CPUs" \
	[ "$nq" = "$online" ] && [ -d "$DBG/vnic1" ] && [ -d /sys/class/net/vnic1 ]

# 11-18: early drop and forwarding, stock and pool
for m in stock pool; do
	drop_case "drop_1_flow_$m" "$m" 1
	drop_case "drop_64_flows_$m" "$m" 64
	fwd_case "forward_1_flow_$m" "$m" 1
	fwd_case "forward_64_flows_$m" "$m" 64
done

# 19: the mode switched while frames flow: 10 requests of 5 * COUNT
# frames, each followed by a switch of both devices
progress "mode switch"
if fwd_start stock 64 0; then
	p0=$(pool_stat alloc_fast) switches=0 m=stock
	for i in 1 2 3 4 5 6 7 8 9 10; do
		set_dbg vnic0 rx_count $((COUNT * 5))
		if [ "$m" = stock ]; then m=pool; else m=stock; fi
		set_dbg vnic0 mode "$m" && set_dbg vnic1 mode "$m"
		# A switch counts if frames were still pending after it
		[ "$(cat "$DBG/vnic0/rx_pending")" = 0 ] || switches=$((switches + 1))
		sleep 0.1
	done
	diag "mode switched 10 times, $switches times while frames were pending"
	if fwd_end "mode_switch_under_traffic" $((COUNT * 50)); then
		p=$(($(pool_stat alloc_fast) - p0))
		if [ "$switches" -lt 5 ]; then
			not_ok "mode_switch_under_traffic" "only $switches switches under traffic"
		elif [ "$p" -eq 0 ]; then
			not_ok "mode_switch_under_traffic" "no head taken from the pool"
		else
			ok "mode_switch_under_traffic"
		fi
	fi
else
	not_ok "mode_switch_under_traffic" "set-up failed"
fi

# 20: both devices down and up while frames flow (vnic0's pending frames
# are discarded, vnic1's TX ring flushed); then they work as before
progress "down and up"
dname=down_up_under_traffic
if fwd_start pool 64 $((COUNT * 50)); then
	sleep 0.5
	x0=$(vsum vnic0 rx_discarded)
	ip link set vnic1 down && ip link set vnic1 up &&
		ip link set vnic0 down && ip link set vnic0 up &&
		ip neigh replace 198.19.0.2 lladdr "$VNIC_PEER" dev vnic1 nud permanent
	rc=$?
	x=$(($(vsum vnic0 rx_discarded) - x0))
	diag "$dname: $x frames discarded by vnic0's ndo_stop"
	if [ "$rc" -ne 0 ]; then
		not_ok "$dname" "ip link set down/up failed"
	elif [ "$(cat "$DBG/vnic0/rx_pending")" != 0 ] || [ "$x" -eq 0 ]; then
		not_ok "$dname" "vnic0 down did not discard the pending frames ($x discarded)"
	elif fwd_start pool 64 "$COUNT" && fwd_end "$dname" "$COUNT"; then
		ok "$dname"
	fi
else
	not_ok "$dname" "set-up failed"
fi
unload

# 21-22: TX completion on another CPU than RX
progress "tx_cpu"
for m in pool stock; do
	name="forward_tx_cpu_$m"
	if [ "$online" -lt 2 ]; then
		skip "$name" "one CPU"
		continue
	fi
	if [ "$m" = pool ] && ! load "tx_cpu=$last_cpu"; then
		not_ok "$name" "insmod tx_cpu=$last_cpu or the set-up failed"
		continue
	fi
	progress "$name"
	a0=$(pool_stat alloc_shared) i0=$(vsum vnic1 tx_ipi)
	if ! fwd_start "$m" 64 "$COUNT"; then
		not_ok "$name" "set-up failed"
		continue
	fi
	fwd_end "$name" "$COUNT" || continue
	a=$(($(pool_stat alloc_shared) - a0)) i=$(($(vsum vnic1 tx_ipi) - i0))
	diag "$name: $i completion IPIs, $a pool refills from the shared layer"
	if [ "$r" -eq 0 ] || [ "$i" -eq 0 ]; then
		not_ok "$name" "no completion on another CPU ($r remote, $i IPIs)"
	elif [ "$m" = pool ] && [ "$a" -eq 0 ]; then
		not_ok "$name" "no head came back through the pool's shared layer"
	else
		ok "$name"
	fi
done
unload

# 23-24: rmmod while frames flow both ways, 5 times; then the memory
# of the rings and of the skbs in flight must be back (a leak of the RX
# rings' pages alone is 16 MiB per cycle with 2 devices of 4 queues).
# Measured from the end of the first cycle to the end of the last: what
# the first load leaves for good (slabs and tables of the network stack
# grown to their working size, 13 MiB once on 6.1) is not a leak, and
# 4 more cycles show a per-cycle leak 4 times over
progress "unload under traffic"
# Free memory in KiB: MemFree plus the pages on the per-CPU free lists
# (which MemFree does not count, and which drop_caches leaves there),
# after the page cache is dropped, every shrinker asked (the pools' too)
# and every slab cache's empty slabs given back
mem_free() {
	sync
	echo 3 >/proc/sys/vm/drop_caches
	for f in /sys/kernel/slab/*/shrink; do
		[ -w "$f" ] && echo 1 >"$f" 2>/dev/null
	done
	pcp=$(awk '$1 == "count:" { s += $2 } END { print s + 0 }' /proc/zoneinfo)
	kib=$(($(getconf PAGESIZE 2>/dev/null || echo 4096) / 1024))
	awk -v pcp="$pcp" -v kib="$kib" '$1 == "MemFree:" { print $2 + pcp * kib }' /proc/meminfo
}
free0=$(mem_free)
uerr='' moving='' free1=0
# The frames flow on every queue, all CPUs but the last, where this
# shell and rmmod run: on a CPU that NET_RX keeps busy, a task may not
# run for seconds under QEMU's TCG (a soft lockup, with HZ=250 each
# interrupt's softirq runs until the next tick)
uparams=
if [ "$online" -gt 1 ]; then
	uparams="queues=$((online - 1))"
	taskset -pc "$last_cpu" $$ >/dev/null
fi
for cycle in 1 2 3 4 5; do
	# shellcheck disable=SC2086 # empty or one parameter
	if ! load $uparams; then
		uerr="cycle $cycle: insmod or the set-up failed"
		break
	fi
	# vnic0 -> vnic1 as before; vnic1 -> vnic0 to 198.18.0.2
	ip neigh replace 198.18.0.2 lladdr "$VNIC_PEER" dev vnic0 nud permanent
	set_dbg vnic1 ip_src 198.19.0.2
	set_dbg vnic1 ip_dst 198.18.0.2
	set_dbg vnic0 flows 64
	set_dbg vnic1 flows 64
	set_dbg vnic1 mode pool
	set_dbg vnic0 rx_count 1000000000
	set_dbg vnic1 rx_count 1000000000
	sleep 1
	done0=$(vsum vnic0 tx_completed) done1=$(vsum vnic1 tx_completed)
	moving="$moving $done1/$done0"
	rmmod qmp_vnic
	rc=$?
	if [ "$rc" -ne 0 ]; then
		uerr="cycle $cycle: rmmod failed (rc=$rc)"
	elif [ -e /sys/class/net/vnic0 ] || [ -e "$DBG" ] || [ -d /sys/module/qmp_vnic ]; then
		uerr="cycle $cycle: vnic0, its debugfs or the module still there"
	elif [ "$done0" -eq 0 ] || [ "$done1" -eq 0 ]; then
		uerr="cycle $cycle: no frame flowed both ways before rmmod"
	fi
	[ -z "$uerr" ] || break
	[ "$cycle" -ne 1 ] || free1=$(mem_free)
done
unload
diag "unload_under_traffic: completions on vnic1/vnic0 before each rmmod:$moving"
if [ -n "$uerr" ]; then
	not_ok "unload_under_traffic" "$uerr"
	skip "no_memory_leak" "unload failed"
else
	ok "unload_under_traffic"
	free5=$(mem_free)
	lost=$((free1 - free5))
	diag "no_memory_leak: $((free0 - free1)) KiB less free memory after the first cycle, $lost KiB less after 4 more"
	check "no_memory_leak" "$lost KiB less free memory after cycles 2 to 5" \
		[ "$lost" -lt 8192 ]
fi
nft delete table ip raw 2>/dev/null
progress "done: $failed failed"
[ "$failed" -eq 0 ]
