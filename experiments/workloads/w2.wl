# W2 (reference-workloads.md, XSched Fig. 15a on AMD): multi-priority BERT serving, the
# planned priority version: six tasks in three priority groups (2 high, 2 normal, 2 low),
# 30 requests each at 20 ms intervals, each task on its own stream.
#
# MODEL ASSUMPTIONS: BERT as in w2-native.wl (calibrated there). The serving threads launch
# kernels at PyTorch's pace (launch=) but without a shared GIL (host_lock = no: a C++ server,
# as Triton in the paper); with a GIL, host contention would bound the latencies whatever the
# GPU does. Targets (experiments issue): high P99 <= 1.05 x standalone, low/high P99 >= 2.5,
# total throughput loss <= 3 %.

[workload]
name = w2
description = W2: six BERT-base tasks in three priority groups, each on its own stream
length = 10s
seed = 1
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

[process serving]
role = online
stream = name=h0 priority=high
stream = name=h1 priority=high
stream = name=n0 priority=normal
stream = name=n1 priority=normal
stream = name=l0 priority=low
stream = name=l1 priority=low
task = name=high0 group=high stream=h0 model=bert-base arrival=closed think=20ms jitter=2ms requests=30 launch=34us
task = name=high1 group=high stream=h1 model=bert-base arrival=closed think=20ms jitter=2ms requests=30 launch=34us
task = name=normal0 group=normal stream=n0 model=bert-base arrival=closed think=20ms jitter=2ms requests=30 launch=34us
task = name=normal1 group=normal stream=n1 model=bert-base arrival=closed think=20ms jitter=2ms requests=30 launch=34us
task = name=low0 group=low stream=l0 model=bert-base arrival=closed think=20ms jitter=2ms requests=30 launch=34us
task = name=low1 group=low stream=l1 model=bert-base arrival=closed think=20ms jitter=2ms requests=30 launch=34us

[config native]
mode = native
label = Native
[config hip]
mode = hip-priority
label = HIP priority
[config lv1]
mode = hsaqm
label = Lv1
level = 1
lv1_threshold = 16
lv1_batch = 8
[config lv2]
mode = hsaqm
label = Lv2
level = 2
lv2_interval = 1
[config lv3]
mode = hsaqm
label = Lv3
level = 3
# Spatial (issue 19; docs/tool.md "Lv3 mechanism and spatial"): Lv2 with a quarter of the CUs
# (20 of 80) kept free of the lower queues through their CU masks: "static" from their creation
# (the queues at or below priority 0), "dynamic" only while Lv2 holds them with a kernel in flight
# (a mask change is a runlist change in the model: the kernel's waves on the reserve are saved and
# restored on the CUs left to it). MODEL ASSUMPTION: CUs share nothing in the model (no memory
# bandwidth, cache or power coupling), so a reserve is worth more here than on a GPU.
[config lv2-static]
mode = hsaqm
label = Lv2 + static CUs
level = 2
lv2_interval = 1
spatial = static:250
[config lv2-dynamic]
mode = hsaqm
label = Lv2 + dynamic CUs
level = 2
lv2_interval = 1
spatial = dynamic:250
