# SPDX-License-Identifier: GPL-2.0
#
# qmempool: out-of-tree kernel modules (alf_queue, qmempool, skb_pool_hook)
#
#   make                 build every module for the running kernel (its
#                        headers: linux-headers-$(uname -r))
#   make KDIR=<dir>      ... against another kernel build/headers directory
#   make W=1 / C=2       extra warnings / sparse on every file (kbuild)
#   make check           build + run all tests in QEMU guests (every test
#                        kernel in the cache) and the user-space TSan run
#   make check-debug     the guest tests on debug kernels built from
#                        linux-source-6.12 (KASAN + lockdep, KCSAN; cached):
#                        any sanitizer or lockdep report fails
#                        (DEBUG_KERNELS="kasan" only kernel A)
#   make bench           benchmark figures (QEMU -icount, UML, TCG, user)
#                        into build/bench/ (tables, JSON, plots; prints the
#                        summary); QMP_BENCH_VEHICLES="..." picks vehicles
#   make bench HOST=1    the same in the running kernel (root, headers)
#   make bench-publish   merge build/bench/'s last run into BENCHMARKS.md,
#                        benchmarks/*.png and README.md's summary, replacing
#                        only the vehicles and kernels that run measured
#   make deps            as root: install the tools the build and the tests
#                        need (never a kernel) and fetch the test kernels
#                        into /var/cache/qmempool/kernels (not installed)
#   make lint            checkpatch.pl on every source file
#   make user-check      only the user-space tests of the ALF queue
#   make deb             the Debian package qmempool-dkms_<VERSION>_all.deb in
#                        build/deb/ (debian/, dh --with dkms; DEB_DIR=<dir>)
#   make dkms-install    this tree in DKMS as qmempool/<VERSION> (root): copied
#                        to /usr/src/qmempool-<VERSION>, built and installed for
#                        every kernel with headers (DKMS_KERNELS="<k>..." some)
#   make dkms-remove     dkms remove --all of what dkms-install added (root)
#   make pkg-journey     the package's journey: install, boot, purge (root)
#   make clean
#
# KDIR defaults to the running kernel's build directory (Debian: package
# linux-headers-$(uname -r)).  The test kernels' are in the cache, e.g.
# KDIR=/var/cache/qmempool/kernels/<version>/usr/src/linux-headers-<version>.

KREL := $(shell uname -r)
KDIR ?= /lib/modules/$(KREL)/build

TOP := $(abspath $(dir $(lastword $(MAKEFILE_LIST))))

DEBUG_KERNELS ?= kasan kcsan

.PHONY: all modules clean check check-debug bench bench-publish deps lint
.PHONY: user-check modules_install help
.PHONY: deb dkms-install dkms-remove pkg-journey

all: modules

modules:
	@if [ ! -d "$(KDIR)" ]; then \
		echo "qmempool: no kernel headers in $(KDIR)." >&2; \
		if [ "$(KDIR)" = "/lib/modules/$(KREL)/build" ]; then \
			echo "qmempool: for the running kernel, as root:" \
				"apt-get install linux-headers-$(KREL)" >&2; \
		fi; \
		echo "qmempool: or pass KDIR=<kernel build dir>." >&2; \
		exit 1; \
	fi
	$(MAKE) -C $(KDIR) M=$(TOP) modules

modules_install: modules
	$(MAKE) -C $(KDIR) M=$(TOP) modules_install

clean:
	@if [ -n "$(KDIR)" ] && [ -d "$(KDIR)" ]; then \
		$(MAKE) -C $(KDIR) M=$(TOP) clean; fi
	$(MAKE) -C $(TOP)/alf_queue/user clean
	rm -rf $(TOP)/build

deps:
	$(TOP)/scripts/setup

check:
	$(TOP)/scripts/check

check-debug:
	QMP_DEBUG_KERNELS="$(DEBUG_KERNELS)" $(TOP)/scripts/check-debug

bench:
	QMP_BENCH_HOST=$(HOST) $(TOP)/scripts/bench

bench-publish:
	$(TOP)/scripts/bench-report --publish $(TOP)/build/bench

lint:
	$(TOP)/scripts/lint

user-check:
	$(MAKE) -C $(TOP)/alf_queue/user check

# The Debian package, DKMS from this tree (scripts/pkg/), the journey of
# the package through a guest of every kernel (scripts/pkg-journey)
DEB_DIR ?= $(TOP)/build/deb
DKMS_KERNELS ?=

deb:
	$(TOP)/scripts/pkg/mkdeb $(DEB_DIR)

dkms-install:
	$(TOP)/scripts/pkg/dkms-tree install $(DKMS_KERNELS)

dkms-remove:
	$(TOP)/scripts/pkg/dkms-tree remove

pkg-journey:
	$(TOP)/scripts/pkg-journey

help:
	@sed -n '3,/^$$/s/^# \{0,1\}//p' $(TOP)/Makefile
