/* SPDX-License-Identifier: MIT */
/*
 * hsaqm-common/barrier.h - the one place where hsaqm chooses memory ordering.
 *
 * Shared rings are written by one side (a CPU thread) and read by another (a packet
 * processor, another thread or another process) through plain memory. Every access
 * that crosses such a boundary goes through these macros, and every call site says in
 * a comment what the barrier orders against. They are built on C11 atomics applied to
 * ordinary objects (the ring memory is laid out by an ABI and cannot be _Atomic-typed),
 * or on std::atomic in C++. Private to hsaqm's build (not installed): no public
 * interface needs it.
 */
#ifndef HSAQM_COMMON_BARRIER_H
#define HSAQM_COMMON_BARRIER_H

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

/*
 * ThreadSanitizer does not model fences (gcc says so with -Wtsan, and then reports races the
 * fence prevents). Under it, and only there, the full fence hsaqm_smp_mb() is a seq_cst
 * read-modify-write of one word all fences share: every store-load pair here has
 * hsaqm_smp_mb() on both sides, and two seq_cst RMWs of the same word are ordered and
 * synchronise, which orders the same stores before the same loads, in a way TSan follows.
 */
#if defined(__SANITIZE_THREAD__)
#define HSAQM_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define HSAQM_TSAN 1
#endif
#endif
#ifdef HSAQM_TSAN
__attribute__((weak, visibility("hidden"))) unsigned int hsaqm_tsan_fence_word;
#endif

#ifdef __cplusplus
/*
 * C++ (headers that declare extern "C", e.g. hsaqm-hsa/aql.h and hsaqm-hsa/ring.h, are read by C++
 * code too): the same operations on std::atomic, which has the layout of the plain object for
 * the lock-free integer and pointer types these macros are used on (as liburing's barrier.h).
 */
#include <atomic>

template <typename T> static inline std::atomic<T> *hsaqm_atomic_ptr(T *p)
{
	return reinterpret_cast<std::atomic<T> *>(p);
}

template <typename T> static inline const std::atomic<T> *hsaqm_atomic_ptr(const T *p)
{
	return reinterpret_cast<const std::atomic<T> *>(p);
}

#define HSAQM_READ_ONCE(x) (hsaqm_atomic_ptr(&(x))->load(std::memory_order_relaxed))
#define HSAQM_WRITE_ONCE(x, v) (hsaqm_atomic_ptr(&(x))->store((v), std::memory_order_relaxed))
#define hsaqm_store_release(p, v) (hsaqm_atomic_ptr(p)->store((v), std::memory_order_release))
#define hsaqm_load_acquire(p) (hsaqm_atomic_ptr(p)->load(std::memory_order_acquire))
#define hsaqm_load_relaxed(p) (hsaqm_atomic_ptr(p)->load(std::memory_order_relaxed))
#define hsaqm_store_relaxed(p, v) (hsaqm_atomic_ptr(p)->store((v), std::memory_order_relaxed))
#define hsaqm_fetch_add(p, v) (hsaqm_atomic_ptr(p)->fetch_add((v), std::memory_order_acq_rel))
#define hsaqm_fetch_sub(p, v) (hsaqm_atomic_ptr(p)->fetch_sub((v), std::memory_order_acq_rel))
#define hsaqm_fetch_or(p, v) (hsaqm_atomic_ptr(p)->fetch_or((v), std::memory_order_acq_rel))
#define hsaqm_fetch_and(p, v) (hsaqm_atomic_ptr(p)->fetch_and((v), std::memory_order_acq_rel))
#define hsaqm_fetch_xor(p, v) (hsaqm_atomic_ptr(p)->fetch_xor((v), std::memory_order_acq_rel))
#define hsaqm_exchange(p, v) (hsaqm_atomic_ptr(p)->exchange((v), std::memory_order_acq_rel))
#define hsaqm_cas(p, expected, desired)                                                   \
	(hsaqm_atomic_ptr(p)->compare_exchange_strong(*(expected), (desired),              \
						       std::memory_order_acq_rel,         \
						       std::memory_order_acquire))
#ifdef HSAQM_TSAN
#define hsaqm_smp_mb() ((void)hsaqm_atomic_ptr(&hsaqm_tsan_fence_word)->fetch_add(0u, std::memory_order_seq_cst))
#else
#define hsaqm_smp_mb() std::atomic_thread_fence(std::memory_order_seq_cst)
#endif
#define HSAQM_SIGNAL_FENCE() std::atomic_signal_fence(std::memory_order_seq_cst)

#else /* C11 */
#include <stdatomic.h>

#define HSAQM_ATOMIC_PTR(p) ((_Atomic __typeof__(*(p)) *)(p))

/* Single access, no ordering: the value may be changed concurrently, nothing else is implied. */
#define HSAQM_READ_ONCE(x) atomic_load_explicit(HSAQM_ATOMIC_PTR(&(x)), memory_order_relaxed)
#define HSAQM_WRITE_ONCE(x, v) atomic_store_explicit(HSAQM_ATOMIC_PTR(&(x)), (v), memory_order_relaxed)

/* Store that publishes every earlier store of this thread to whoever load-acquires it. */
#define hsaqm_store_release(p, v) atomic_store_explicit(HSAQM_ATOMIC_PTR(p), (v), memory_order_release)

/* Load after which this thread sees everything the releasing side stored before its release. */
#define hsaqm_load_acquire(p) atomic_load_explicit(HSAQM_ATOMIC_PTR(p), memory_order_acquire)

#define hsaqm_load_relaxed(p) atomic_load_explicit(HSAQM_ATOMIC_PTR(p), memory_order_relaxed)
#define hsaqm_store_relaxed(p, v) atomic_store_explicit(HSAQM_ATOMIC_PTR(p), (v), memory_order_relaxed)

/* Read-modify-write operations: acquire and release both, as ring indices need. */
#define hsaqm_fetch_add(p, v) atomic_fetch_add_explicit(HSAQM_ATOMIC_PTR(p), (v), memory_order_acq_rel)
#define hsaqm_fetch_sub(p, v) atomic_fetch_sub_explicit(HSAQM_ATOMIC_PTR(p), (v), memory_order_acq_rel)
#define hsaqm_fetch_or(p, v) atomic_fetch_or_explicit(HSAQM_ATOMIC_PTR(p), (v), memory_order_acq_rel)
#define hsaqm_fetch_and(p, v) atomic_fetch_and_explicit(HSAQM_ATOMIC_PTR(p), (v), memory_order_acq_rel)
#define hsaqm_fetch_xor(p, v) atomic_fetch_xor_explicit(HSAQM_ATOMIC_PTR(p), (v), memory_order_acq_rel)
#define hsaqm_exchange(p, v) atomic_exchange_explicit(HSAQM_ATOMIC_PTR(p), (v), memory_order_acq_rel)

/*
 * Compare-and-swap; on failure *expected receives the current value. Returns true on
 * success. acq_rel on success, acquire on failure (the new value is read, not written).
 */
#define hsaqm_cas(p, expected, desired)                                                  \
	atomic_compare_exchange_strong_explicit(HSAQM_ATOMIC_PTR(p), (expected), (desired), \
						memory_order_acq_rel, memory_order_acquire)

/* Full fence: orders earlier stores against later loads (store-load), which acquire/release do not. */
#ifdef HSAQM_TSAN
#define hsaqm_smp_mb()                                                                    \
	((void)atomic_fetch_add_explicit(HSAQM_ATOMIC_PTR(&hsaqm_tsan_fence_word), 0u,      \
					 memory_order_seq_cst))
#else
#define hsaqm_smp_mb() atomic_thread_fence(memory_order_seq_cst)
#endif
#define HSAQM_SIGNAL_FENCE() atomic_signal_fence(memory_order_seq_cst)
#endif /* __cplusplus */

/* Tell the core we are spinning (frees pipeline resources for the sibling hyperthread). */
static inline void hsaqm_cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	_mm_pause();
#elif defined(__aarch64__)
	__asm__ __volatile__("yield" ::: "memory");
#else
	HSAQM_SIGNAL_FENCE();
#endif
}

#endif /* HSAQM_COMMON_BARRIER_H */
