/* SPDX-License-Identifier: MIT */
#include "hsaqm/hsaqm.h"

#define HSAQM_STR2(x) #x
#define HSAQM_STR(x) HSAQM_STR2(x)

const char *hsaqm_version_string(void)
{
	return HSAQM_STR(HSAQM_VERSION_MAJOR) "." HSAQM_STR(HSAQM_VERSION_MINOR) "." HSAQM_STR(
		HSAQM_VERSION_PATCH);
}

uint32_t hsaqm_version(void)
{
	return (uint32_t)HSAQM_VERSION_MAJOR << 16 | (uint32_t)HSAQM_VERSION_MINOR << 8 |
	       (uint32_t)HSAQM_VERSION_PATCH;
}
