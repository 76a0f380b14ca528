/* SPDX-License-Identifier: MIT */
/*
 * hsaqm/hsaqm.h - public API of libhsaqm.
 *
 * Every function returns 0 or a negative errno unless its comment says otherwise.
 */
#ifndef HSAQM_HSAQM_H
#define HSAQM_HSAQM_H

#include <stdint.h>

#include "hsaqm/common.h"

#ifdef __cplusplus
extern "C" {
#endif

#define HSAQM_VERSION_MAJOR 0
#define HSAQM_VERSION_MINOR 1
#define HSAQM_VERSION_PATCH 0

/**
 * hsaqm_version_string() - the library's version as "MAJOR.MINOR.PATCH".
 *
 * Return: a static string; never NULL.
 */
HSAQM_API const char *hsaqm_version_string(void);

/**
 * hsaqm_version() - the library's version as MAJOR << 16 | MINOR << 8 | PATCH.
 *
 * Lets a program built against one header check the library it runs with.
 * Return: the encoded version (always positive).
 */
HSAQM_API uint32_t hsaqm_version(void);

#ifdef __cplusplus
}
#endif

#endif /* HSAQM_HSAQM_H */
