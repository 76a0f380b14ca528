# W2 native rows (reference-workloads.md): BERT-base standalone, and three Python threads of
# one process sharing one stream. calibration = yes: each process runs alone, natively.
#
# MODEL ASSUMPTIONS: the kernel shapes below, and the host side: PyTorch launches every kernel
# from Python (launch=, host time per kernel) and the threads of one process launch one at a
# time (host_lock = yes: the GIL), handing over about every 0.5 ms of launching. Without the
# host side, a shared FIFO stream serialises whole requests and the native row (means about
# 2x standalone) does not come out. w2.wl uses the same model.
# The GIL is modelled in model time (the next holder's launch starts where the last one's
# ended), and each thread's 20 ms sleep varies by +-2 ms (jitter=, seeded; assumption: a host
# sleep plus Python's loop overhead), which keeps the three threads from running in lock-step:
# lock-step (no jitter) gives means of about 18 ms, the users' 12.3-13.6 ms mean partial overlap.

[workload]
name = w2-native
description = W2 native: BERT-base standalone and three threads on one shared stream
length = 10s
seed = 1
calibration = yes
# Launch pacing is host time: at scale 0.1 a sleep that overshoots by 1 ms of wall time on a
# loaded host costs 0.1 ms of model time.
time_scale = 0.1

# BERT-base, sequence 384, batch 1: 12 layers of 6 GEMM-like and 8 element-wise kernels plus
# 4 for embeddings and pooling. The GPU work is 5.8 ms; PyTorch launches each kernel from
# Python (launch= per kernel, the whole model about 5.85 ms of host time).
[model bert-base]
batch = 1
note = assumption: 72 GEMM (192 WG x 50 us), 96 element-wise (96 WG x 13 us), 4 small (25 us)
kernel = count=4 wg=64 waves=4 time=25us
kernel = count=72 wg=192 waves=4 time=50us
kernel = count=96 wg=96 waves=4 time=13us

[process bert]
role = online
task = name=t0 model=bert-base arrival=closed think=20ms jitter=2ms requests=20 launch=34us

# W2 native: three threads of one Python process (one GIL), 20 requests each at 20 ms
# intervals, one shared stream.
[process bert-shared3]
role = online
host_lock = yes
stream = name=shared
task = name=t0 model=bert-base arrival=closed think=20ms jitter=2ms requests=20 launch=34us
task = name=t1 model=bert-base arrival=closed think=20ms jitter=2ms requests=20 launch=34us
task = name=t2 model=bert-base arrival=closed think=20ms jitter=2ms requests=20 launch=34us

[reference standalone]
# BERT-base standalone: 6.37 ms mean, P99 6.42 ms (20 requests, one thread).
bert.latency_avg_ms = 6.37
bert.latency_p99_ms = 6.42
# Three threads, one shared stream: means 12.3-13.6 ms, P99 about 18.5 ms, 88.8 req/s in all.
bert-shared3.latency_avg_ms = 12.3..13.6
bert-shared3.latency_p99_ms = 18.5
bert-shared3.throughput_rps = 88.8
