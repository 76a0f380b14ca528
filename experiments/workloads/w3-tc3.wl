# W3 (reference-workloads.md): the users' preemption proof-of-concept, TC3: edge cases.
# "Suspend an empty queue, online and offline submitting at the same instant, a queue created
# while offline work is suspended." An online queue at KFD priority 15 (inference) against an
# offline queue at priority 2 (training), as w3.wl, plus:
#   - a longer online request every 3 s (stream "long"), so that offline work is held for a while;
#   - offline stream "late", created (hsa_queue_create at that model instant) 5 ms after the long
#     request at 5.5 s was submitted: under hsaqm its process is held then, so the new queue must
#     start held (criterion c); natively it runs at once;
#   - offline stream "idle", created at the start but without work until 9 s: an empty queue the
#     scheduler holds and resumes (criterion d);
#   - offline task "sync" with the same start and period as the online "infer": both processes
#     submit at the same instant every 100 ms (criterion e).
# Criteria (edge_checks, docs/experiments.md "Edge-case criteria"): online latency max < 50 ms,
# every offline request completes, loss of the training's throughput < 5 % of standalone.
#
# MODEL ASSUMPTIONS: online = ResNet-18 batch 1 (as W1, W3); online-long = 100 kernels of 64 WG x
# 200 us (20 ms standalone; assumption, no users' figure); offline "training" = w3.wl's (40 kernels
# of 1280 workgroups x 5 ms, 400 ms per step); offline-small = one such training kernel (10 ms) and
# offline-step = 4 of them (40 ms), assumptions: shorter offline workgroups would hand the CUs over
# more often and change the native baseline (with 1 ms workgroups native's online P50 drops from
# seconds to 14 ms), so the edge-case work has the training's shape. Every time and period below
# is an assumption chosen to place the edge cases, not a users' figure.
# HIP priority: the HSA face's HIGH/LOW give KFD 11/0, the same pipe priorities as 15/2.

[workload]
name = w3-tc3
description = W3 TC3: an empty queue held and resumed, simultaneous submissions, a queue created while held
length = 12s
warmup = 1s
seed = 1
time_scale = 4
edge_checks = yes

# ResNet-18, batch 1: 64 kernels, 2.33 ms standalone on the model (users: about 2.3 ms).
[model resnet18-b1]
batch = 1
note = assumption: 20 conv-like (64 WG x 60 us), 40 element-wise, 4 small; calibrated to 2.3 ms
kernel = count=20 wg=64 waves=4 time=60us
kernel = count=24 wg=16 waves=4 time=12us
kernel = count=16 wg=32 waves=4 time=30us
kernel = count=4 wg=8 waves=4 time=8us

[model online-long]
batch = 1
note = assumption: a longer online request, 100 kernels of 64 WG x 200 us (20 ms standalone)
kernel = count=100 wg=64 waves=4 time=200us

# Training step with long kernels (as w3.wl).
[model train-long]
batch = 1
note = assumption: 40 kernels of 1280 WG x 4 waves x 5 ms (two full-GPU rounds each)
kernel = count=40 wg=1280 waves=4 time=5ms

[model offline-small]
batch = 1
note = assumption: one training kernel, 1280 WG x 4 waves x 5 ms (two full-GPU rounds, 10 ms)
kernel = count=1 wg=1280 waves=4 time=5ms

[model offline-step]
batch = 1
note = assumption: 4 training kernels, 1280 WG x 4 waves x 5 ms (40 ms)
kernel = count=4 wg=1280 waves=4 time=5ms

[process online]
role = online
stream = name=main priority=high hsaqm_priority=15
stream = name=long priority=high hsaqm_priority=15
task = name=infer stream=main model=resnet18-b1 arrival=periodic period=100ms start=0s
task = name=long stream=long model=online-long arrival=periodic period=3s start=2.5s

[process offline]
role = offline
stream = name=main priority=low hsaqm_priority=2
stream = name=sync priority=low hsaqm_priority=2
stream = name=idle priority=low hsaqm_priority=2
stream = name=late priority=low hsaqm_priority=2 create=5.505s
task = name=train stream=main model=train-long arrival=closed depth=2
task = name=sync stream=sync model=offline-small arrival=periodic period=100ms start=0s
task = name=idle stream=idle model=offline-small arrival=periodic period=1s start=9s
task = name=late stream=late model=offline-step arrival=periodic period=1s start=5.505s

[pass]
online_max_ms = 50
offline_loss = 0.05

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
