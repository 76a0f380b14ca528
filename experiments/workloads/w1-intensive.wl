# W1 intensive (reference-workloads.md): online ResNet-18 batch 1 at 20 req/s (open loop) against
# offline ResNet-50 batch 1024 back to back, in two processes on one GPU, 180 s.
#
# MODEL ASSUMPTIONS: see w1-light.wl. ResNet-50 batch 1024 is modelled as three phases of
# full-GPU kernels with different per-workgroup durations; the online request, which runs one
# kernel between two rounds of offline workgroups, feels those durations. They are chosen so
# that the native row comes out (P50 7.6, P99 19.4-19.8 ms, 1.97 it/s).

[workload]
name = w1-intensive
description = W1 intensive: online ResNet-18 b1 at 20 req/s vs offline ResNet-50 b1024, two processes
length = 180s
warmup = 2s
seed = 1
time_scale = 4

[model resnet18-b1]
batch = 1
note = assumption: 20 conv-like (64 WG x 60 us), 40 element-wise, 4 small; calibrated to 2.3 ms
kernel = count=20 wg=64 waves=4 time=60us
kernel = count=24 wg=16 waves=4 time=12us
kernel = count=16 wg=32 waves=4 time=30us
kernel = count=4 wg=8 waves=4 time=8us

# ResNet-50, batch 1024: 160 full-GPU kernels, about 497 ms (users: 508 ms).
[model resnet50-b1024]
batch = 1024
note = assumption: 10 x 6 rounds of 340 us, 43 x 10 rounds of 250 us, 107 x 23 rounds of 150 us WG
kernel = count=10 wg=3840 waves=4 time=340us
kernel = count=43 wg=6400 waves=4 time=250us
kernel = count=107 wg=14720 waves=4 time=150us

[process online]
role = online
stream = name=main priority=high
task = name=infer model=resnet18-b1 arrival=periodic rate=20

[process offline]
role = offline
stream = name=main priority=low
task = name=batch model=resnet50-b1024 arrival=closed depth=2

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
time_scale = 1
[config lv2]
mode = hsaqm
label = Lv2
level = 2
lv2_interval = 1
time_scale = 1
[config lv3]
mode = hsaqm
label = Lv3
level = 3
time_scale = 1
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
time_scale = 1
[config lv2-dynamic]
mode = hsaqm
label = Lv2 + dynamic CUs
level = 2
lv2_interval = 1
spatial = dynamic:250
time_scale = 1

# The users' three logged runs (reference-workloads.md W1). Not the 574.5 ms P99: no log.
[reference native]
online.latency_p50_ms = 7.6
online.latency_avg_ms = 8.2
online.latency_p99_ms = 19.4..19.8
offline.throughput_ips = 1.97
offline.images_per_sec = 2015

[pass]
online_p99 = 1.10
offline_throughput = 0.30
