#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The forked driver loads beside the stock ixgbe, as README's host
# procedure has it (a port bound to each): it must export no symbol that
# ixgbe exports, or whichever of the two loads second is refused
# ("exports duplicate symbol").  Loads ixgbe (modprobe: a module, or
# built in), then ixgbe_qmp.ko from this directory, and unloads what it
# loaded.
# KTAP on stdout (scripts/ktap.sh: at the same place in the payload).
dir=$(dirname "$0")
ko=$dir/ixgbe_qmp.ko
name=beside_stock_ixgbe
# shellcheck source=scripts/ktap.sh
. "$dir/../scripts/ktap.sh"
ktap_begin 1
if ! modprobe ixgbe; then
	ktap_skip "$name" "the stock ixgbe does not load here"
	exit 0
fi
if ! insmod "$ko"; then
	ktap_diag "$name: $(dmesg | grep -m1 'duplicate symbol' || dmesg | tail -n 1)"
	ktap_not_ok "$name" "insmod ixgbe_qmp.ko failed with ixgbe loaded"
elif [ -d /sys/module/ixgbe ] && [ -d /sys/module/ixgbe_qmp ]; then
	ktap_ok "$name"
else
	ktap_not_ok "$name" "ixgbe or ixgbe_qmp missing from /sys/module"
fi
[ ! -d /sys/module/ixgbe_qmp ] || rmmod ixgbe_qmp
[ ! -e /sys/module/ixgbe/initstate ] || rmmod ixgbe
exit 0
