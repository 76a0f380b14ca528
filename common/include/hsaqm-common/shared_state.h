/* SPDX-License-Identifier: MIT */
/*
 * hsaqm-common/shared_state.h - the state a process must hold once, however many copies of
 * hsaqm's static code it carries: it lives in libhsaqm.so alone, and everything else (the tool
 * library, the emulated /dev/kfd, a program embedding the device model) reaches it there.
 *
 * libhsaqm.so exports these, with the logger's functions (hsaqm-common/log.h), under the version
 * node HSAQM_PRIVATE (libhsaqm.map): for hsaqm's own objects, never declared in a public
 * header, no promise to anyone else.
 */
#ifndef HSAQM_COMMON_SHARED_STATE_H
#define HSAQM_COMMON_SHARED_STATE_H

/* Exported by libhsaqm.so for hsaqm's own objects only (version node HSAQM_PRIVATE). */
#define HSAQM_PRIVATE_API __attribute__((visibility("default")))

/*
 * kfd-ioctl's default-transport state (kfd-ioctl/transport_default.c, docs/kfd-ioctl.md "The
 * default transport"). lib never looks inside a transport: it keeps the pointers, so the
 * tool's kfd-ioctl and a test's or the model's read and write the same two. Each is published
 * with release and read with acquire (what it points to is whole when seen).
 */
struct hsaqm_kfd_transport;
typedef const struct hsaqm_kfd_transport *(*hsaqm_kfd_provider_fn)(void);

/* The transport installed by hsaqm_kfd_transport_set_default() (NULL: none). */
HSAQM_PRIVATE_API void hsaqm_kfd_slot_set_transport(const struct hsaqm_kfd_transport *tp);
HSAQM_PRIVATE_API const struct hsaqm_kfd_transport *hsaqm_kfd_slot_get_transport(void);

/* The KFD stand-in's provider registered by hsaqm_kfd_transport_set_provider() (NULL: none). */
HSAQM_PRIVATE_API void hsaqm_kfd_slot_set_provider(hsaqm_kfd_provider_fn fn);
HSAQM_PRIVATE_API hsaqm_kfd_provider_fn hsaqm_kfd_slot_get_provider(void);

#endif /* HSAQM_COMMON_SHARED_STATE_H */
