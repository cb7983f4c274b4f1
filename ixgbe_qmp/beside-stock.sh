#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The forked driver loads beside the stock ixgbe, as README's host
# procedure has it (a port bound to each): it must export no symbol that
# ixgbe exports, or whichever of the two loads second is refused
# ("exports duplicate symbol").  Loads ixgbe (modprobe: a module, or
# built in), then ixgbe_qmp.ko from this directory, and unloads what it
# loaded.  KTAP on stdout.
ko=$(dirname "$0")/ixgbe_qmp.ko
name=beside_stock_ixgbe
echo "KTAP version 1"
echo "1..1"
if ! modprobe ixgbe; then
	echo "ok 1 $name # SKIP the stock ixgbe does not load here"
	exit 0
fi
if ! insmod "$ko"; then
	echo "# $name: $(dmesg | grep -m1 'duplicate symbol' || dmesg | tail -n 1)"
	echo "not ok 1 $name # insmod ixgbe_qmp.ko failed with ixgbe loaded"
elif [ -d /sys/module/ixgbe ] && [ -d /sys/module/ixgbe_qmp ]; then
	echo "ok 1 $name"
else
	echo "not ok 1 $name # ixgbe or ixgbe_qmp missing from /sys/module"
fi
[ ! -d /sys/module/ixgbe_qmp ] || rmmod ixgbe_qmp
[ ! -e /sys/module/ixgbe/initstate ] || rmmod ixgbe
exit 0
