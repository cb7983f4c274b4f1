# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
#
# vnic-lib.sh - what the guest scripts of qmp_vnic.ko share (sourced by
# vnic-test.sh, vnic-hook-test.sh and forward-bench.sh, which sit next
# to it and to qmp_vnic.ko in the payload; never run).  The sourcing
# script sets VNIC_PROG, its name in the kernel log, first.
#
# The network every script builds: vnic0 198.18.0.1/24, vnic1
# 198.19.0.1/24 with a permanent neighbour 198.19.0.2 (MAC VNIC_PEER),
# the destination of the frames vnic0 generates (source 198.18.0.2,
# UDP port 9); IPv6 off, no reverse-path filter, IPv4 forwarding on.

VNIC_DIR=$(cd "$(dirname "$0")" && pwd)
VNIC_KO=$VNIC_DIR/qmp_vnic.ko
DBG=/sys/kernel/debug/qmp_vnic
# shellcheck disable=SC2034 # for the scripts that source this file
HOOK=/sys/module/skb_pool_hook/parameters/hook
VNIC_PEER=02:51:4d:50:ff:fe	# the frames' source MAC, vnic1's neighbour

# ---- KTAP --------------------------------------------------------------

# ktap_begin, ktap_ok, ktap_not_ok, ktap_skip, ktap_diag: the project's
# KTAP writer, at the same place in the payload as in the source tree
# shellcheck source=scripts/ktap.sh
. "$VNIC_DIR/../scripts/ktap.sh"
# shellcheck source=scripts/perf-profile.sh
. "$VNIC_DIR/../scripts/perf-profile.sh"
# Progress in the kernel log, in case the guest dies in the middle
progress() { echo "$VNIC_PROG: $*" >/dev/kmsg 2>/dev/null; }

# ---- counters ----------------------------------------------------------

# vsum DEV NAME...: the sum of the totals NAME... of DEV's debugfs stats
# (0 if none)
vsum() {
	vs_dev=$1
	shift
	awk -v k=" $* " 'BEGIN { v = 0 } $1 == "queue" { exit }
		index(k, " " $1 " ") { v += $2 } END { printf "%.0f\n", v }' \
		"$DBG/$vs_dev/stats" 2>/dev/null
}
# qdrops DEV: packets dropped by DEV's qdiscs (the root sums its children)
qdrops() {
	tc -s qdisc show dev "$1" 2>/dev/null | awk 'BEGIN { v = 0 } /^qdisc/ { root = / root/ }
		root && /dropped/ { sub(/.*dropped /, ""); sub(/,.*/, ""); v = $0; exit }
		END { print v + 0 }'
}
# snmp NAME: the IPv4 MIB counter NAME (/proc/net/snmp, "Ip:" lines)
snmp() {
	awk -v k="$1" '$1 == "Ip:" { if (!h) { for (i = 1; i <= NF; i++) c[$i] = i; h = 1 }
		else print $c[k] }' /proc/net/snmp
}
# nft_count: packets counted by the early-drop rule (0 without one)
nft_count() {
	nft list chain ip raw prerouting 2>/dev/null | awk 'BEGIN { v = 0 }
		/counter packets/ { for (i = 1; i < NF; i++) if ($i == "packets") v = $(i + 1) }
		END { print v }'
}

# pool_stat NAME: a counter of skb_pool's qmempool, the pool on the skb
# head cache (debugfs names a pool <cache>-<id>)
pool_stat() {
	for f in /sys/kernel/debug/qmempool/skbuff_head_cache-*; do
		[ -f "$f" ] && awk -v k="$1" '$1 == k { print $2 }' "$f" && return
	done
	echo 0
}
# The skb head cache: its name in SLUB's sysfs on every kernel here
# (6.1's skbuff_head_cache, 6.9+'s net_hotdata.skbuff_cache)
HEAD_CACHE=skbuff_head_cache
HEAD_SLAB=/sys/kernel/slab/$HEAD_CACHE

# napi_cache_max: the heads a CPU's NAPI skb cache holds at most on this
# kernel (napi_consume_skb() frees into it, napi_build_skb() takes from
# it; the slab counts them as in use): 64 before 7.x, 128 in 7.x
napi_cache_max() {
	case $(uname -r) in
	[1-6].*) echo 64 ;;
	*) echo 128 ;;
	esac
}

# heads_in_use: the skb head cache's objects in use, per the slab's own
# count (its sysfs "objects", after a shrink, which flushes the per-CPU
# slabs), less the heads the pool holds (in use for the slab): read
# again, up to 10 times, while the pool's count moved meanwhile (its
# shrinker may be giving heads back)
heads_in_use() {
	hu_try=0
	while :; do
		hu_p=$(pool_stat cached)
		echo 1 >"$HEAD_SLAB/shrink" 2>/dev/null
		hu_o=$(sed 's/ .*//' "$HEAD_SLAB/objects")
		hu_try=$((hu_try + 1))
		if [ "$(pool_stat cached)" = "$hu_p" ] || [ "$hu_try" -ge 10 ]; then
			break
		fi
		sleep 0.2
	done
	echo $((hu_o - hu_p))
}

# settle N COMMAND...: run COMMAND, which prints a count, every 0.2 s
# until the count reaches N or has not moved for 2 s; print the last one
settle() {
	st_n=$1
	shift
	st_last=-1 st_same=0
	while :; do
		st_c=$("$@")
		[ "$st_c" -lt "$st_n" ] || break
		if [ "$st_c" -eq "$st_last" ]; then
			st_same=$((st_same + 1))
			[ "$st_same" -lt 10 ] || break
		else
			st_same=0
		fi
		st_last=$st_c
		sleep 0.2
	done
	echo "$st_c"
}

# ---- set-up ------------------------------------------------------------

# net_sysctl: IPv6 off, no reverse-path filter, IPv4 forwarding on
net_sysctl() {
	for f in /proc/sys/net/ipv6/conf/default/disable_ipv6 \
		/proc/sys/net/ipv6/conf/all/disable_ipv6; do
		[ -f "$f" ] && echo 1 >"$f"
	done
	echo 0 >/proc/sys/net/ipv4/conf/all/rp_filter
	echo 0 >/proc/sys/net/ipv4/conf/default/rp_filter
	echo 1 >/proc/sys/net/ipv4/ip_forward
}

# load [PARAMS...]: insmod qmp_vnic.ko, then the addresses, routes and
# the neighbour
load() {
	insmod "$VNIC_KO" "$@" || return 1
	for d in vnic0 vnic1; do
		[ -d "/proc/sys/net/ipv6/conf/$d" ] &&
			echo 1 >"/proc/sys/net/ipv6/conf/$d/disable_ipv6"
		echo 0 >"/proc/sys/net/ipv4/conf/$d/rp_filter"
	done
	ip link set vnic0 up && ip link set vnic1 up &&
		ip addr add 198.18.0.1/24 dev vnic0 &&
		ip addr add 198.19.0.1/24 dev vnic1 &&
		ip neigh replace 198.19.0.2 lladdr "$VNIC_PEER" dev vnic1 nud permanent
}

unload() { rmmod qmp_vnic 2>/dev/null; }

# drop_rule off | drop_rule on MATCH...: the early drop (table ip raw,
# prerouting hook) of the frames MATCH selects, counted
drop_rule() {
	nft delete table ip raw 2>/dev/null
	[ "$1" = on ] || return 0
	shift
	nft add table ip raw &&
		nft add chain ip raw prerouting '{ type filter hook prerouting priority raw; policy accept; }' &&
		nft add rule ip raw prerouting "$@" counter drop
}
