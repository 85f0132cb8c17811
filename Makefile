# specnet: one entry point.
#
#   make                 modules (+ userspace) for the default kernel(s)
#   make KVER=<release>  modules for one kernel (headers in /lib/modules/<release>/build)
#   make setup           install everything the project needs (idempotent, root)
#   make test            host unit tests, then the VM suite on every supported kernel
#   make demo            the lossy satellite-link scenario in the VM (results/ + PNG)
#   make check           W=1 + sparse (C=2) on every kernel, warnings are errors
#   make install         modules into /lib/modules/<release>/updates + depmod
#   make clean

TOP      := $(abspath $(dir $(lastword $(MAKEFILE_LIST))))
BUILD    := $(TOP)/build
VENV     ?= $(TOP)/.venv
PY       := $(VENV)/bin/python

# Supported kernels: every installed Debian kernel with headers, 6.1 and 6.12.
SUPPORTED_RE := ^6\.(1|12)\.
ALL_KVERS := $(shell for d in /lib/modules/*/build; do \
	[ -e "$$d/Makefile" ] && basename "$$(dirname "$$d")"; done | grep -E '$(SUPPORTED_RE)' | sort -V)
RUNNING  := $(shell uname -r)
ifeq ($(origin KVER),undefined)
  ifneq ($(wildcard /lib/modules/$(RUNNING)/build/Makefile),)
    KVERS ?= $(RUNNING)
  else
    KVERS ?= $(ALL_KVERS)
  endif
else
  KVERS := $(KVER)
endif

# The module sources copied (as symlinks) into each kernel's output tree.
MODSRC   := Kbuild kernel tcp_spec tcp_cpecn tcp_tp sch_redopt
MODULES  := tcp_spec tcp_cpecn tcp_tp sch_redopt
SRC_SUB  ?= src
EXTRA    ?=

.PHONY: all modules userspace setup test test-host test-vm demo bench check \
	install clean help print-kvers demo-run bench-run test-run

all: modules userspace

help:
	@sed -n '3,12p' $(TOP)/Makefile | sed 's/^# \{0,1\}//'

define modules_for
modules: modules-$(1)
.PHONY: modules-$(1)
modules-$(1):
	@test -e /lib/modules/$(1)/build/Makefile || \
		{ echo "no headers for kernel $(1): install linux-headers-$(1) (make setup)"; exit 1; }
	@mkdir -p $(BUILD)/$(1)/$(SRC_SUB)
	@cp -as --remove-destination $(addprefix $(TOP)/,$(MODSRC)) $(BUILD)/$(1)/$(SRC_SUB)/
	$(MAKE) -C /lib/modules/$(1)/build M=$(BUILD)/$(1)/$(SRC_SUB) W=1 $(EXTRA) modules
	@if [ "$(SRC_SUB)" = src ]; then for m in $(MODULES); do \
		ln -sf src/$$$$m/$$$$m.ko $(BUILD)/$(1)/$$$$m.ko; done; fi
endef
$(foreach k,$(KVERS),$(eval $(call modules_for,$(k))))

userspace:
	@$(MAKE) --no-print-directory -C $(TOP)/userspace O=$(BUILD)/userspace

# SETUP: the set-up command (tests replace it to simulate a fresh machine).
SETUP ?= bash $(TOP)/scripts/setup.sh
setup:
	@$(SETUP)

# W=1 and sparse over every supported kernel; any warning fails.
check:
	@set -e; for k in $(ALL_KVERS); do \
		log=$(BUILD)/check-$$k.log; \
		rm -rf $(BUILD)/$$k/check; \
		$(MAKE) --no-print-directory KVER=$$k SRC_SUB=check EXTRA="C=2" modules >$$log 2>&1 || { cat $$log; exit 1; }; \
		if grep -E 'warning:|error:' $$log; then echo "check: warnings on $$k ($$log)"; exit 1; fi; \
		echo "check: $$k: W=1 + sparse clean"; \
	done
	@bash $(TOP)/scripts/checkpatch.sh 2>/dev/null

# demo, bench and test run a second make after `setup`: the kernel list
# (ALL_KVERS) is read when make parses the Makefile, so on a fresh machine
# it is empty until setup has installed the kernels.
NOKERNEL = { echo "$@: no supported kernel (6.1 or 6.12) with headers in /lib/modules: run make setup"; exit 1; }

test: setup
	@$(MAKE) --no-print-directory test-run
test-run:
	@[ -n "$(ALL_KVERS)" ] || $(NOKERNEL)
	@echo "test: kernels $(ALL_KVERS)"
	@$(if $(DRY),true,$(PY)) $(TOP)/tests/run.py --kernels "$(ALL_KVERS)" $(if $(K),-k "$(K)")

test-host: setup
	@$(PY) $(TOP)/tests/run.py --host-only

# DRY=1: resolve the kernels after setup, print them and stop (the
# fresh-machine test, tests/host/test_fresh_machine.py).
demo: setup
	@$(MAKE) --no-print-directory demo-run
demo-run:
	@[ -n "$(firstword $(ALL_KVERS))" ] || $(NOKERNEL)
	@echo "demo: kernel $(firstword $(ALL_KVERS))"
ifeq ($(DRY),)
	@$(MAKE) --no-print-directory KVERS="$(firstword $(ALL_KVERS))" modules
	@$(PY) $(TOP)/mininet/demo.py --kernel "$(firstword $(ALL_KVERS))"
endif

# specnet-bench in the VM. SUITE=headline (default: the figures docs/results
# quotes, medians over repetitions), full or tiny; or SCENARIO=<name> for one
# scenario with its full set of cases. BENCH_OUT is the results directory: a
# run stopped half way resumes when given the same one (SCENARIO runs use a
# fixed one by default, so they always resume). BENCH_ARGS for more (e.g.
# --seconds 30 --reps 5). The summary and plots are published under
# docs/results/bench-<suite or scenario>/.
SUITE ?= headline
BENCH_NAME = $(if $(SCENARIO),$(SCENARIO),$(SUITE))
BENCH_STAMP := $(shell date -u +%Y%m%dT%H%M%SZ)
BENCH_OUT ?= $(TOP)/results/bench-$(BENCH_NAME)-$(BENCH_K)$(if $(SCENARIO),,-$(BENCH_STAMP))
bench: setup
	@$(MAKE) --no-print-directory bench-run
BENCH_K = $(or $(BENCH_KVER),$(firstword $(ALL_KVERS)))
bench-run:
	@[ -n "$(BENCH_K)" ] || $(NOKERNEL)
	@echo "bench: kernel $(BENCH_K)"
ifeq ($(DRY),)
	@$(MAKE) --no-print-directory KVERS="$(BENCH_K)" modules userspace
	@$(PY) $(TOP)/tests/vm/vm.py --kernel "$(BENCH_K)" --timeout 14400 -- \
		$(PY) $(TOP)/mininet/specnet_bench.py \
		$(if $(SCENARIO),--scenario $(SCENARIO),--suite $(SUITE)) --out $(BENCH_OUT) \
		$(BENCH_ARGS); rc=$$?; \
	if [ -e $(BENCH_OUT)/summary.md ]; then \
		$(PY) $(TOP)/mininet/publish.py $(BENCH_OUT) bench-$(BENCH_NAME) || rc=1; fi; exit $$rc
endif

TC_LIB   ?= /usr/lib/x86_64-linux-gnu/tc
SBINDIR  ?= /usr/local/sbin
UNITDIR  ?= /usr/local/lib/systemd/system
DOCDIR   ?= /usr/local/share/doc/specnet
MANDIR   ?= /usr/local/share/man

install: modules userspace
	@for k in $(KVERS); do for m in $(MODULES); do \
		install -D -m 0644 $(BUILD)/$$k/$$m.ko /lib/modules/$$k/updates/specnet/$$m.ko; done; \
		depmod -a $$k; echo "installed modules into /lib/modules/$$k/updates/specnet"; done
	@install -D -m 0644 $(BUILD)/userspace/tc/q_redopt.so $(TC_LIB)/q_redopt.so
	@install -D -m 0755 $(BUILD)/userspace/specctl $(SBINDIR)/specctl
	@install -D -m 0755 $(BUILD)/userspace/specd $(SBINDIR)/specd
	@install -D -m 0644 $(TOP)/userspace/specd/specd.service $(UNITDIR)/specd.service
	@install -D -m 0644 $(TOP)/userspace/specd/rt_protos.d/specnet.conf \
		/etc/iproute2/rt_protos.d/specnet.conf
	@if [ -e /etc/specnet/specd.conf ]; then echo "kept /etc/specnet/specd.conf"; else \
		install -D -m 0644 $(TOP)/userspace/specd/specd.conf /etc/specnet/specd.conf; fi
	@install -D -m 0644 -t $(DOCDIR) $(TOP)/README.md $(TOP)/CHANGELOG.md $(TOP)/docs/*.md
	@install -D -m 0644 -t $(MANDIR)/man8 $(TOP)/man/*.8
	@install -D -m 0644 -t $(MANDIR)/man5 $(TOP)/man/*.5
	@echo "installed $(TC_LIB)/q_redopt.so, $(SBINDIR)/specctl, $(SBINDIR)/specd," \
		"$(UNITDIR)/specd.service, /etc/iproute2/rt_protos.d/specnet.conf, $(DOCDIR)," \
		"man pages under $(MANDIR)"

print-kvers:
	@echo $(ALL_KVERS)

clean:
	rm -rf $(BUILD)
