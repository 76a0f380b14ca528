# W3 (reference-workloads.md): the users' preemption proof-of-concept, TC2: an online request every 100 ms for 10 minutes.
# An online queue at KFD priority 15 (inference, small kernels) against an offline queue at
# priority 2 (training, long kernels). Criteria: online latency < 50 ms; the offline job
# finishes with correct results; throughput loss < 5 % (at most 10 %).
# TC3 (edge cases: suspending an empty queue, simultaneous submissions, a queue created while
# offline work is suspended) is w3-tc3.wl, with its criteria evaluated per run (edge_checks).
#
# MODEL ASSUMPTIONS: online = ResNet-18 batch 1 (as W1); offline "training" = 40 kernels of
# 1280 workgroups x 5 ms (two rounds of the GPU each, 10 ms per kernel, 400 ms per step).
# HIP priority: the HSA face's HIGH/LOW give KFD 11/0, the same pipe priorities as 15/2.

[workload]
name = w3
description = W3 TC2: an online request every 100 ms for 10 minutes
length = 600s
warmup = 1s
seed = 1
time_scale = 4

# ResNet-18, batch 1: 64 kernels, 2.33 ms standalone on the model (users: about 2.3 ms).
[model resnet18-b1]
batch = 1
note = assumption: 20 conv-like (64 WG x 60 us), 40 element-wise, 4 small; calibrated to 2.3 ms
kernel = count=20 wg=64 waves=4 time=60us
kernel = count=24 wg=16 waves=4 time=12us
kernel = count=16 wg=32 waves=4 time=30us
kernel = count=4 wg=8 waves=4 time=8us

# Training step with long kernels.
[model train-long]
batch = 1
note = assumption: 40 kernels of 1280 WG x 4 waves x 5 ms (two full-GPU rounds each)
kernel = count=40 wg=1280 waves=4 time=5ms

[process online]
role = online
stream = name=main priority=high hsaqm_priority=15
task = name=infer model=resnet18-b1 arrival=periodic rate=10

[process offline]
role = offline
stream = name=main priority=low hsaqm_priority=2
task = name=train model=train-long arrival=closed depth=2

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
