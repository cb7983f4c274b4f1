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
#     64 flows over every queue; by the pool's own counters, stock mode
#     leaves the pool alone, and pool mode takes every head from the
#     pool, frees the completed ones into it and reuses them
#     (pool_verdict);
#   - the mode switched while frames flow: nothing lost, and the pool
#     handed out more heads than its refills from the slab could give;
#   - both devices down and up while frames flow, then as good as new;
#   - TX completion on another CPU (tx_cpu=): nothing lost, the
#     completions are remote, and in pool mode heads come back to the
#     RX CPUs through the pool's shared layer;
#   - rmmod while frames flow both ways, 5 times (the harness fails on
#     any oops or warning in the console), after which the skb head
#     cache's objects in use and the kernel's untracked pages are what
#     they were (a leak of a few hundred heads shows, as does one of the
#     RX rings' pages).
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
	if "$@"; then ktap_ok "$cname"; else ktap_not_ok "$cname" "$creason"; fi
}

# qstat DEV NAME: the counter NAME of each queue of DEV, one per line
qstat() {
	awk -v k="$2" '$1 == "queue" { for (i = 1; i <= NF; i++) if ($i == k) c = i; next }
		c { print $c }' "$DBG/$1/stats"
}
# min_qstat DEV NAME: the smallest of them
min_qstat() { qstat "$1" "$2" | sort -n | head -n 1; }

# pool_mark: note the pool's counters and the heads it holds
pool_mark() {
	pa0=$(pool_stat alloc_fast) ps0=$(pool_stat alloc_shared)
	pl0=$(pool_stat alloc_slab) pf0=$(pool_stat free_fast)
	pc0=$(pool_stat cached)
}
# pool_since: their increments since pool_mark: pa heads handed out by
# the local caches, ps refills of a local cache from the shared layer
# (each hands out one head besides), pl heads the slab gave the pool
# (one of each bulk handed out at once, the rest to a local cache), pf
# heads freed into a local cache.  The heads the pool handed out are at
# least pa + ps, at most pa + ps + pl.
pool_since() {
	pa=$(($(pool_stat alloc_fast) - pa0))
	ps=$(($(pool_stat alloc_shared) - ps0))
	pl=$(($(pool_stat alloc_slab) - pl0))
	pf=$(($(pool_stat free_fast) - pf0))
}
# pool_verdict NAME MODE G C REUSE: why the pool's counters since
# pool_mark do not fit G frames received and C completed in MODE, in
# perr (empty if they fit).  Nothing but qmp_vnic uses the pool here.
#   stock: the pool untouched;
#   pool:  every head out of the pool (pa + ps + pl >= G); at least 90%
#          of the C completed heads freed into a local cache (a free that
#          finds it full moves half of it to the shared layer and is not
#          counted: 1 in 32, or 1 in 16 when the shared layer is full
#          too); with REUSE=1 (RX and TX completion on the same CPUs) at
#          most 10% of the G heads fresh from the slab (pl): the others
#          were heads the completions gave back.
# A pool mode that falls back to napi_build_skb() or napi_consume_skb()
# fails one or the other.
pool_verdict() {
	pool_since
	ktap_diag "$1: pool: $pa heads from the local caches, $ps refills from the shared layer, $pl heads from the slab, $pf freed into the local caches"
	perr=
	if [ "$2" = stock ]; then
		[ $((pa + ps + pl + pf)) -eq 0 ] ||
			perr="stock mode used the pool ($pa + $ps + $pl heads out, $pf in)"
	elif [ $((pa + ps + pl)) -lt "$3" ]; then
		perr="the pool handed out at most $((pa + ps + pl)) heads for $3 frames"
	elif [ $((pf * 10)) -lt $(($4 * 9)) ]; then
		perr="only $pf of $4 completed heads were freed into the pool"
	elif [ "$5" = 1 ] && [ $((pl * 10)) -gt "$3" ]; then
		perr="$pl of $3 heads fresh from the slab: the completed ones not reused"
	fi
}

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
		ktap_not_ok "$rname" "insmod$rparams succeeded"
	elif ! dmesg | grep -q "qmp_vnic: $rmsg"; then
		ktap_not_ok "$rname" "no \"qmp_vnic: $rmsg\" in the kernel log"
	else
		ktap_ok "$rname"
	fi
}

# drop_case NAME MODE FLOWS: COUNT frames on vnic0, all dropped by nft
drop_case() {
	progress "$1"
	if ! { set_dbg vnic0 mode "$2" && set_dbg vnic0 flows "$3" && drop_rule on iifname vnic0 udp dport 9; }; then
		ktap_not_ok "$1" "set-up failed"
		return
	fi
	g0=$(vsum vnic0 rx_generated) f0=$(snmp ForwDatagrams)
	pool_mark
	set_dbg vnic0 rx_count "$COUNT"
	if ! wait_rx vnic0; then
		ktap_not_ok "$1" "vnic0 still has $(cat "$DBG/vnic0/rx_pending") frames to generate after ${TIMEOUT}s"
		drop_rule off
		return
	fi
	# Until the counter has them all, or did not move for 2 s
	c=$(settle "$COUNT" nft_count)
	g=$(($(vsum vnic0 rx_generated) - g0))
	fw=$(($(snmp ForwDatagrams) - f0))
	drop_rule off
	ktap_diag "$1: generated $g, dropped by nft $c, forwarded $fw"
	# The dropped heads go to the slab (kfree_skb(), no free hook)
	pool_verdict "$1" "$2" "$g" 0 0
	if [ "$g" -ne "$COUNT" ] || [ "$c" != "$COUNT" ] || [ "$fw" -ne 0 ]; then
		ktap_not_ok "$1" "requested $COUNT, generated $g, dropped $c, forwarded $fw"
	elif [ "$3" -gt 1 ] && [ "$(min_qstat vnic0 rx_generated)" -eq 0 ]; then
		ktap_not_ok "$1" "a queue of vnic0 generated nothing: $(qstat vnic0 rx_generated | tr '\n' ' ')"
	elif [ -n "$perr" ]; then
		ktap_not_ok "$1" "$perr"
	else
		ktap_ok "$1"
	fi
}

# fwd_start MODE FLOWS N: start N frames forwarded vnic0 -> vnic1
fwd_start() {
	set_dbg vnic0 mode "$1" && set_dbg vnic1 mode "$1" &&
		set_dbg vnic0 flows "$2" || return 1
	g0=$(vsum vnic0 rx_generated) c0=$(vsum vnic1 tx_completed)
	d0=$(($(qdrops vnic1) + $(vsum vnic1 tx_dropped)))
	f0=$(snmp ForwDatagrams) r0=$(vsum vnic1 tx_completed_remote)
	pool_mark
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
		ktap_not_ok "$1" "vnic0 still has $(cat "$DBG/vnic0/rx_pending") frames to generate after ${TIMEOUT}s"
		return 1
	fi
	# Until every frame is accounted for, or nothing moved for 2 s
	settle "$2" fwd_accounted >/dev/null
	c=$(($(vsum vnic1 tx_completed) - c0))
	d=$(($(qdrops vnic1) + $(vsum vnic1 tx_dropped) - d0))
	g=$(($(vsum vnic0 rx_generated) - g0)) fw=$(($(snmp ForwDatagrams) - f0))
	r=$(($(vsum vnic1 tx_completed_remote) - r0))
	ktap_diag "$1: generated $g, forwarded $fw, completed on vnic1 $c (remote $r), dropped $d"
	if [ "$g" -ne "$2" ] || [ "$fw" -ne "$2" ] || [ $((c + d)) -ne "$2" ]; then
		ktap_not_ok "$1" "requested $2, generated $g, forwarded $fw, completed $c + dropped $d"
		return 1
	fi
}

# fwd_case NAME MODE FLOWS: COUNT frames forwarded, every one accounted for
fwd_case() {
	progress "$1"
	if ! fwd_start "$2" "$3" "$COUNT"; then
		ktap_not_ok "$1" "set-up failed"
		return
	fi
	fwd_end "$1" "$COUNT" || return
	pool_verdict "$1" "$2" "$g" "$c" 1
	if [ "$3" -gt 1 ] && [ "$(min_qstat vnic1 tx_completed)" -eq 0 ]; then
		ktap_not_ok "$1" "a queue of vnic1 completed nothing: $(qstat vnic1 tx_completed | tr '\n' ' ')"
	elif [ -n "$perr" ]; then
		ktap_not_ok "$1" "$perr"
	else
		ktap_ok "$1"
	fi
}

# ---- the document ------------------------------------------------------

ktap_begin 24
net_sysctl
unload
possible=$(($(sed 's/.*[-,]//' /sys/devices/system/cpu/possible) + 1))
last_cpu=$(sed 's/.*[-,]//' /sys/devices/system/cpu/online)
ktap_diag "count=$COUNT, $possible possible CPUs, last online CPU $last_cpu"

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
	ktap_skip "refuse_tx_cpu_offline" "cannot take CPU $last_cpu offline"
fi

# 10: the default load
progress "load"
online=$(grep -c ^processor /proc/cpuinfo)
if ! load; then
	ktap_not_ok "load_defaults" "insmod or the network set-up failed"
	unload
	# The rest cannot run
	while [ "$KTAP_N" -lt 24 ]; do ktap_skip "case_$((KTAP_N + 1))" "no device"; done
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
# frames, each followed by a switch of both devices, from pool mode to
# stock and back, so that the last switch leaves them in pool mode for
# the frames still pending (most of them).  The pool must have reused
# heads: of the heads it handed out (at least pa + ps), at most pc0 (what
# it held at the start) + pl (what the slab gave it) can be other than
# heads freed into it meanwhile and handed out again; the rest, at least
# COUNT, only the completions of pool mode can have given back (with no
# free into the pool, its refills from the slab alone, pa + ps <= pc0 + pl)
progress "mode switch"
if fwd_start pool 64 0; then
	switches=0 m=pool
	for i in 1 2 3 4 5 6 7 8 9 10; do
		set_dbg vnic0 rx_count $((COUNT * 5))
		if [ "$m" = stock ]; then m=pool; else m=stock; fi
		set_dbg vnic0 mode "$m" && set_dbg vnic1 mode "$m"
		# A switch counts if frames were still pending after it
		[ "$(cat "$DBG/vnic0/rx_pending")" = 0 ] || switches=$((switches + 1))
		sleep 0.1
	done
	ktap_diag "mode switched 10 times, $switches times while frames were pending"
	if fwd_end "mode_switch_under_traffic" $((COUNT * 50)); then
		pool_since
		reused=$((pa + ps - pl - pc0))
		ktap_diag "mode_switch_under_traffic: pool: $pa heads from the local caches, $ps refills from the shared layer, $pl heads from the slab, $pc0 held at the start, $pf freed into the local caches: at least $reused heads reused"
		if [ "$switches" -lt 5 ]; then
			ktap_not_ok "mode_switch_under_traffic" "only $switches switches under traffic"
		elif [ "$reused" -lt "$COUNT" ]; then
			ktap_not_ok "mode_switch_under_traffic" "at least $reused heads reused by the pool, not $COUNT ($pa + $ps out, $pl from the slab, $pc0 held before)"
		else
			ktap_ok "mode_switch_under_traffic"
		fi
	fi
else
	ktap_not_ok "mode_switch_under_traffic" "set-up failed"
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
	ktap_diag "$dname: $x frames discarded by vnic0's ndo_stop"
	if [ "$rc" -ne 0 ]; then
		ktap_not_ok "$dname" "ip link set down/up failed"
	elif [ "$(cat "$DBG/vnic0/rx_pending")" != 0 ] || [ "$x" -eq 0 ]; then
		ktap_not_ok "$dname" "vnic0 down did not discard the pending frames ($x discarded)"
	elif fwd_start pool 64 "$COUNT" && fwd_end "$dname" "$COUNT"; then
		pool_verdict "$dname" pool "$g" "$c" 1
		if [ -n "$perr" ]; then
			ktap_not_ok "$dname" "$perr"
		else
			ktap_ok "$dname"
		fi
	fi
else
	ktap_not_ok "$dname" "set-up failed"
fi
unload

# 21-22: TX completion on another CPU than RX
progress "tx_cpu"
for m in pool stock; do
	name="forward_tx_cpu_$m"
	if [ "$online" -lt 2 ]; then
		ktap_skip "$name" "one CPU"
		continue
	fi
	if [ "$m" = pool ] && ! load "tx_cpu=$last_cpu"; then
		ktap_not_ok "$name" "insmod tx_cpu=$last_cpu or the set-up failed"
		continue
	fi
	progress "$name"
	a0=$(pool_stat alloc_shared) i0=$(vsum vnic1 tx_ipi)
	if ! fwd_start "$m" 64 "$COUNT"; then
		ktap_not_ok "$name" "set-up failed"
		continue
	fi
	fwd_end "$name" "$COUNT" || continue
	a=$(($(pool_stat alloc_shared) - a0)) i=$(($(vsum vnic1 tx_ipi) - i0))
	ktap_diag "$name: $i completion IPIs, $a pool refills from the shared layer"
	# The completing CPU's local cache overflows to the shared layer,
	# and that to the slab: no bound on the heads fresh from the slab
	pool_verdict "$name" "$m" "$g" "$c" 0
	if [ "$r" -eq 0 ] || [ "$i" -eq 0 ]; then
		ktap_not_ok "$name" "no completion on another CPU ($r remote, $i IPIs)"
	elif [ "$m" = pool ] && [ "$a" -eq 0 ]; then
		ktap_not_ok "$name" "no head came back through the pool's shared layer"
	elif [ -n "$perr" ]; then
		ktap_not_ok "$name" "$perr"
	else
		ktap_ok "$name"
	fi
done
unload

# 23-24: rmmod while frames flow both ways, 5 times; then what the
# rings and the skbs in flight held must be back, by the allocators' own
# counts: the skb head cache's objects in use outside the pool
# (heads_in_use) and the pages the page allocator gave out that no
# counter of /proc/meminfo claims (kernel_kib), where the RX rings' pages
# and the frames' data in them are.  Measured from the end of the first
# cycle to the end of the last: what the first load leaves for good
# (tables of the network stack grown to their working size) is not a
# leak, and 4 more cycles show a per-cycle leak 4 times over.  The first
# cycle has vnic0 in stock mode, the others both devices in pool mode:
# the kernel's NAPI skb caches, whose heads are in use for the slab (up
# to 64 or 128 per CPU), are not touched between the two measures, and
# a leak of 64 heads shows.  Pages: 2 MiB (the per-CPU page fragment
# caches and the like; a few hundred KiB move), where a leak of the RX
# rings' pages is 12 MiB per cycle (2 devices of 3 queues of 512 pages)
progress "unload under traffic"
kib=$(($(getconf PAGESIZE 2>/dev/null || echo 4096) / 1024))
# kernel_kib: KiB the page allocator gave out (MemTotal less MemFree and
# the pages on the per-CPU free lists, which MemFree does not count)
# less what /proc/meminfo says whom it went to: the slab, the page and
# swap caches, user memory, page tables, kernel stacks, per-CPU areas,
# vmalloc; what is left is the pages a driver takes for itself
# (dev_alloc_page(), page fragments) and the kernel's other untracked
# pages
kernel_kib() {
	pcp=$(awk '$1 == "count:" { s += $2 } END { print s + 0 }' /proc/zoneinfo)
	awk -v pcp="$pcp" -v kib="$kib" -v known=" Buffers: Cached: SwapCached: \
AnonPages: Slab: KernelStack: PageTables: SecPageTables: Percpu: VmallocUsed: " '
		$1 == "MemTotal:" { t = $2 } $1 == "MemFree:" { f = $2 }
		index(known, " " $1 " ") { k += $2 }
		END { print t - f - pcp * kib - k }' /proc/meminfo
}
h0=$(heads_in_use) k0=$(kernel_kib) h1=0 k1=0
uerr='' moving=''
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
	[ "$cycle" -eq 1 ] || set_dbg vnic0 mode pool
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
	[ "$cycle" -ne 1 ] || { h1=$(heads_in_use) k1=$(kernel_kib); }
done
unload
ktap_diag "unload_under_traffic: completions on vnic1/vnic0 before each rmmod:$moving"
if [ -n "$uerr" ]; then
	ktap_not_ok "unload_under_traffic" "$uerr"
	ktap_skip "no_memory_leak" "unload failed"
else
	ktap_ok "unload_under_traffic"
	h5=$(heads_in_use) k5=$(kernel_kib)
	dh=$((h5 - h1)) dk=$((k5 - k1)) hbound=64
	ktap_diag "no_memory_leak: skb heads in use outside the pool $h0 before, $h1 after the first cycle, $h5 after 4 more ($dh, bound $hbound); the kernel's untracked pages $k0 KiB, $k1 KiB, $k5 KiB ($dk KiB, bound 2048 KiB)"
	lerr=
	[ "$dh" -le "$hbound" ] || lerr="$dh skb heads more in use after cycles 2 to 5 (bound $hbound)"
	[ "$dk" -le 2048 ] || lerr="${lerr:+$lerr; }$dk KiB more untracked kernel pages after cycles 2 to 5 (bound 2048 KiB)"
	if [ -n "$lerr" ]; then
		ktap_not_ok "no_memory_leak" "$lerr"
	else
		ktap_ok "no_memory_leak"
	fi
fi
nft delete table ip raw 2>/dev/null
progress "done: $KTAP_FAILED failed"
[ "$KTAP_FAILED" -eq 0 ]
