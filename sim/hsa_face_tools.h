/* SPDX-License-Identifier: MIT */
/* hsa_face_tools.h - the HSA face's HSA_TOOLS_LIB loader (hsa_face_tools.c). */
#ifndef HSAQM_SIM_HSA_FACE_TOOLS_H
#define HSAQM_SIM_HSA_FACE_TOOLS_H

struct hsa_face;

/* First hsa_init, f->lock held (ROCr's init lock): open HSA_TOOLS_LIB, call each OnLoad. */
void hsa_face_tools_load(struct hsa_face *f);
/* Last hsa_shut_down, before the queues go: OnUnload in reverse, reset the table, close. */
void hsa_face_tools_unload(struct hsa_face *f);

#endif /* HSAQM_SIM_HSA_FACE_TOOLS_H */
