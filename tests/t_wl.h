/* SPDX-License-Identifier: MIT */
/*
 * t_wl.h - what the workload parser's tests (test-experiments-parse-*) parse into: one workload
 * file and the parser's message. Header-only; include once.
 */
#ifndef T_WL_H
#define T_WL_H

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "t_cunit.h"
#include "wl.h"

static struct hsaqm_wl_file t_wl;
static char t_wl_err[512];

#define T_WL_HEAD "[workload]\nname=b\nlength=1s\n[model k]\nkernel = wg=1 time=1ms\n" \
	     "[process p]\ntask = name=t model=k arrival=closed\n"

#endif /* T_WL_H */
