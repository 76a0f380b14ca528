/* SPDX-License-Identifier: MIT */
/* hsaqm/common.h - definitions every public hsaqm header shares. */
#ifndef HSAQM_COMMON_H
#define HSAQM_COMMON_H

/*
 * Marks a function a shared object exports. Everything else is built with
 * -fvisibility=hidden, and each shared object also has an explicit export list
 * (a linker version script) checked by a test.
 */
#define HSAQM_API __attribute__((visibility("default")))

#endif /* HSAQM_COMMON_H */
