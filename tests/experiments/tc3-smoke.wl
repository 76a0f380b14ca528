# The experiments smoke test's short W3 TC3 (tests/experiments/smoke.sh): a queue created while
# its process is held. w3-tc3.wl compressed to 3 s of model time: one longer online request at 1 s,
# the offline process's "late" stream created 5 ms after it was submitted. Under hsaqm Lv2 the
# new queue must start held (criterion c PASS); natively it runs at once (c FAIL), which is what
# shows the check can fail. MODEL ASSUMPTIONS: the models of w3-tc3.wl.

[workload]
name = tc3-smoke
description = W3 TC3 smoke: a queue created while its process is held
length = 2.5s
warmup = 0.5s
seed = 1
time_scale = 4
edge_checks = yes

[model resnet18-b1]
batch = 1
note = assumption: as w3.wl
kernel = count=20 wg=64 waves=4 time=60us
kernel = count=24 wg=16 waves=4 time=12us
kernel = count=16 wg=32 waves=4 time=30us
kernel = count=4 wg=8 waves=4 time=8us

[model online-long]
batch = 1
note = assumption: as w3-tc3.wl (20 ms standalone)
kernel = count=100 wg=64 waves=4 time=200us

[model train-long]
batch = 1
note = assumption: as w3.wl
kernel = count=40 wg=1280 waves=4 time=5ms

[model offline-step]
batch = 1
note = assumption: as w3-tc3.wl (40 ms)
kernel = count=4 wg=1280 waves=4 time=5ms

[process online]
role = online
stream = name=main priority=high hsaqm_priority=15
stream = name=long priority=high hsaqm_priority=15
task = name=infer stream=main model=resnet18-b1 arrival=periodic period=100ms
task = name=long stream=long model=online-long arrival=periodic period=10s start=1s

[process offline]
role = offline
stream = name=main priority=low hsaqm_priority=2
stream = name=late priority=low hsaqm_priority=2 create=1.005s
task = name=train stream=main model=train-long arrival=closed depth=2
task = name=late stream=late model=offline-step arrival=periodic period=1s start=1.005s

[pass]
online_max_ms = 50

[config native]
mode = native
label = Native
[config lv2]
mode = hsaqm
label = Lv2
level = 2
lv2_interval = 1
time_scale = 1
