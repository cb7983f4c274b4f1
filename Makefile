# SPDX-License-Identifier: GPL-2.0
#
# qmempool: out-of-tree kernel modules (`make help` lists them, from
# modules.list)
#
#   make                 build every module for the running kernel (its
#                        headers: linux-headers-$(uname -r))
#   make KDIR=<dir>      ... against another kernel build/headers directory
#   make W=1 / C=2       extra warnings / sparse on every file (kbuild)
#   make install         as root, after `make`: the product modules
#                        (alf_queue, qmempool, skb_pool, skb_pool_hook) into
#                        /lib/modules/<kernel>/updates/qmempool, depmod; then
#                        `modprobe qmempool` (make uninstall: remove them)
#   make QMP_TEST=1      with the test-only knobs (make check's build;
#                        never a package's): skb_pool_hook's
#                        test_exit_delay_ms
#   make check           build + run all tests in QEMU guests (every test
#                        kernel in the cache) and the user-space TSan run
#   make check-debug     the guest tests on debug kernels built from
#                        the newest series' linux-source (KASAN + lockdep,
#                        KCSAN; cached):
#                        any sanitizer or lockdep report fails
#                        (DEBUG_KERNELS="kasan" only kernel A)
#   make bench           benchmark figures (QEMU -icount, UML, TCG, user)
#                        into build/bench/ (tables, JSON, plots; prints the
#                        summary); QMP_BENCH_VEHICLES="..." picks vehicles
#   make bench HOST=1    the same in the running kernel (root, headers)
#   make bench-publish   merge build/bench/'s last run into BENCHMARKS.md
#                        (sections, summary) and benchmarks/*.png, replacing
#                        only the vehicles and kernels that run measured,
#                        and write README.md's headline table from the
#                        summary
#   make deps            as root: install the tools the build and the tests
#                        need (never a kernel), fetch the test kernels into
#                        /var/cache/qmempool/kernels (not installed), build
#                        the guest image; BENCH=1: make bench's tools too.
#                        The only target that installs packages: the others
#                        name what they lack
#   make mutants         as root: each fix of the correctness issue taken
#                        out again (scripts/mutants): its test must fail,
#                        on every test kernel (MUTANTS="pool ..." some groups)
#   make lint            checkpatch.pl on every source file, sparse, the
#                        module lists against modules.list, lintian
#   make user-check      only the user-space tests of the ALF queue
#   make deb             the Debian packages <package>_<version>_all.deb of
#                        debian/control in build/deb/ (dpkg-buildpackage;
#                        the version is debian/changelog's; DEB_DIR=<dir>)
#   make dkms-install    this tree in DKMS as the packages put it (root):
#                        /usr/src/<name>-<version>, built and installed for
#                        every kernel with headers (DKMS_KERNELS="<k>..." some)
#   make dkms-remove     dkms remove --all of what dkms-install added (root)
#   make pkg-journey     the packages' journey: install, boot, purge (root)
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
.PHONY: mutants
.PHONY: user-check modules_install install uninstall help
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
	+$(TOP)/scripts/kmake $(KDIR) M=$(TOP) modules

modules_install: modules
	+$(TOP)/scripts/kmake $(KDIR) M=$(TOP) modules_install

install:
	$(TOP)/scripts/install-modules install $(KDIR)

uninstall:
	$(TOP)/scripts/install-modules uninstall $(KDIR)

clean:
	@if [ -n "$(KDIR)" ] && [ -d "$(KDIR)" ]; then \
		$(MAKE) -C $(KDIR) M=$(TOP) clean; fi
	$(MAKE) -C $(TOP)/alf_queue/user clean
	rm -rf $(TOP)/build

deps:
	$(TOP)/scripts/setup $(if $(BENCH),bench)

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

mutants:
	$(TOP)/scripts/mutants $(MUTANTS)

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
	@printf '\nThe modules (modules.list), their packages:\n'
	@$(TOP)/scripts/module-list help
