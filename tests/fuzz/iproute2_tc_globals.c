// SPDX-License-Identifier: GPL-2.0
/*
 * A shim, not iproute2 code: the globals of iproute2's tc/tc.c that the
 * code linked into fuzz_tc_redopt reads (q_redopt.c: show_details;
 * tc/tc_util.c: use_iec, use_names). tc.c itself cannot be linked: it is
 * tc's main() and pulls in all of tc. The values are tc.c's defaults, as
 * for a command line without -d, -iec or -nm.
 */
#include <stdbool.h>

#include "utils.h"
#include "tc_common.h"

int show_details;
int use_iec;
bool use_names;
