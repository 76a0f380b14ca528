# Calibration of the ResNet models against the users' standalone rows and modelling facts
# (reference-workloads.md). calibration = yes: each process runs alone, natively, one at a
# time. The models are the same as in w1-*.wl (the runner checks that their definitions
# agree). Every kernel shape and duration is an ASSUMPTION (see w1-light.wl). BERT's rows are
# in w2-native.wl.

[workload]
name = calib
description = Standalone ResNet rows: each model alone on the GPU
length = 10s
warmup = 500ms
seed = 1
calibration = yes
time_scale = 2

[model resnet18-b1]
batch = 1
note = assumption: 20 conv-like (64 WG x 60 us), 40 element-wise, 4 small; calibrated to 2.3 ms
kernel = count=20 wg=64 waves=4 time=60us
kernel = count=24 wg=16 waves=4 time=12us
kernel = count=16 wg=32 waves=4 time=30us
kernel = count=4 wg=8 waves=4 time=8us

# ResNet-18 batch 8: the batch-1 shape with 4x the workgroups and longer ones (2.67 ms).
[model resnet18-b8]
batch = 8
note = assumption: the resnet18-b1 kernels with 4x the workgroups, calibrated to 373.9 it/s
kernel = count=20 wg=256 waves=4 time=72us
kernel = count=24 wg=64 waves=4 time=13us
kernel = count=16 wg=128 waves=4 time=35us
kernel = count=4 wg=32 waves=4 time=10us

[model resnet50-b8]
batch = 8
note = assumption: 33 conv (128 WG x 50 us), 20 full-GPU conv (640 WG x 60 us), 107 element-wise
kernel = count=33 wg=128 waves=4 time=50us
kernel = count=20 wg=640 waves=4 time=60us
kernel = count=107 wg=64 waves=4 time=22us

[model resnet50-b1024]
batch = 1024
note = assumption: 10 x 6 rounds of 340 us, 43 x 10 rounds of 250 us, 107 x 23 rounds of 150 us WG
kernel = count=10 wg=3840 waves=4 time=340us
kernel = count=43 wg=6400 waves=4 time=250us
kernel = count=107 wg=14720 waves=4 time=150us

[process r18b1]
role = online
task = name=infer model=resnet18-b1 arrival=periodic rate=20

[process r18b8]
role = online
task = name=loop model=resnet18-b8 arrival=closed depth=8

[process r50b8]
role = offline
task = name=loop model=resnet50-b8 arrival=closed depth=8

[process r50b1024]
role = offline
task = name=loop model=resnet50-b1024 arrival=closed depth=2

[reference standalone]
# "ResNet-18 batch-1 about 2.3 ms" (facts for modelling).
r18b1.latency_avg_ms = 2.3
# Standalone ResNet-18 batch 8, closed loop: P99 2.71 ms, 373.9 it/s.
r18b8.latency_p99_ms = 2.71
r18b8.throughput_ips = 373.9
# "ResNet-50 batch-8 about 6 ms" and the W1 light offline row, 165.4 it/s.
r50b8.throughput_ips = 165.4..166.7
# "ResNet-50 batch-1024 iteration about 508 ms": 1.97 it/s.
r50b1024.throughput_ips = 1.97
