# IPROUTE2_SRC: the Debian source of the installed iproute2, fetched by
# scripts/iproute2-src.sh when absent or of another version. Included by
# the Makefiles that compile against it (userspace/tc, tests/fuzz); TOP
# must be set.
ifeq ($(filter clean,$(MAKECMDGOALS)),)
IPROUTE2_SRC ?= $(shell bash $(TOP)/scripts/iproute2-src.sh)
ifeq ($(IPROUTE2_SRC),)
$(error scripts/iproute2-src.sh failed: no iproute2 source)
endif
endif
