# tests/experiments: a serving process with 40 streams (HSA queues), one small task on each,
# beside nothing: the runner has no 8-stream limit (docs/experiments.md). MODEL ASSUMPTIONS.

[workload]
name = many-streams
description = 40 streams in one process
length = 0.2s
warmup = 0s
seed = 1

[model tiny]
batch = 1
note = assumption: one small kernel
kernel = count=2 wg=4 waves=1 time=20us

[process serve]
role = online
stream = name=s0 priority=high ring=64
stream = name=s1 priority=normal ring=64
stream = name=s2 priority=low ring=64
stream = name=s3 priority=high ring=64
stream = name=s4 priority=normal ring=64
stream = name=s5 priority=low ring=64
stream = name=s6 priority=high ring=64
stream = name=s7 priority=normal ring=64
stream = name=s8 priority=low ring=64
stream = name=s9 priority=high ring=64
stream = name=s10 priority=normal ring=64
stream = name=s11 priority=low ring=64
stream = name=s12 priority=high ring=64
stream = name=s13 priority=normal ring=64
stream = name=s14 priority=low ring=64
stream = name=s15 priority=high ring=64
stream = name=s16 priority=normal ring=64
stream = name=s17 priority=low ring=64
stream = name=s18 priority=high ring=64
stream = name=s19 priority=normal ring=64
stream = name=s20 priority=low ring=64
stream = name=s21 priority=high ring=64
stream = name=s22 priority=normal ring=64
stream = name=s23 priority=low ring=64
stream = name=s24 priority=high ring=64
stream = name=s25 priority=normal ring=64
stream = name=s26 priority=low ring=64
stream = name=s27 priority=high ring=64
stream = name=s28 priority=normal ring=64
stream = name=s29 priority=low ring=64
stream = name=s30 priority=high ring=64
stream = name=s31 priority=normal ring=64
stream = name=s32 priority=low ring=64
stream = name=s33 priority=high ring=64
stream = name=s34 priority=normal ring=64
stream = name=s35 priority=low ring=64
stream = name=s36 priority=high ring=64
stream = name=s37 priority=normal ring=64
stream = name=s38 priority=low ring=64
stream = name=s39 priority=high ring=64
task = name=t0 stream=s0 model=tiny arrival=periodic period=20ms
task = name=t1 stream=s1 model=tiny arrival=periodic period=20ms
task = name=t2 stream=s2 model=tiny arrival=periodic period=20ms
task = name=t3 stream=s3 model=tiny arrival=periodic period=20ms
task = name=t4 stream=s4 model=tiny arrival=periodic period=20ms
task = name=t5 stream=s5 model=tiny arrival=periodic period=20ms
task = name=t6 stream=s6 model=tiny arrival=periodic period=20ms
task = name=t7 stream=s7 model=tiny arrival=periodic period=20ms
task = name=t8 stream=s8 model=tiny arrival=periodic period=20ms
task = name=t9 stream=s9 model=tiny arrival=periodic period=20ms
task = name=t10 stream=s10 model=tiny arrival=periodic period=20ms
task = name=t11 stream=s11 model=tiny arrival=periodic period=20ms
task = name=t12 stream=s12 model=tiny arrival=periodic period=20ms
task = name=t13 stream=s13 model=tiny arrival=periodic period=20ms
task = name=t14 stream=s14 model=tiny arrival=periodic period=20ms
task = name=t15 stream=s15 model=tiny arrival=periodic period=20ms
task = name=t16 stream=s16 model=tiny arrival=periodic period=20ms
task = name=t17 stream=s17 model=tiny arrival=periodic period=20ms
task = name=t18 stream=s18 model=tiny arrival=periodic period=20ms
task = name=t19 stream=s19 model=tiny arrival=periodic period=20ms
task = name=t20 stream=s20 model=tiny arrival=periodic period=20ms
task = name=t21 stream=s21 model=tiny arrival=periodic period=20ms
task = name=t22 stream=s22 model=tiny arrival=periodic period=20ms
task = name=t23 stream=s23 model=tiny arrival=periodic period=20ms
task = name=t24 stream=s24 model=tiny arrival=periodic period=20ms
task = name=t25 stream=s25 model=tiny arrival=periodic period=20ms
task = name=t26 stream=s26 model=tiny arrival=periodic period=20ms
task = name=t27 stream=s27 model=tiny arrival=periodic period=20ms
task = name=t28 stream=s28 model=tiny arrival=periodic period=20ms
task = name=t29 stream=s29 model=tiny arrival=periodic period=20ms
task = name=t30 stream=s30 model=tiny arrival=periodic period=20ms
task = name=t31 stream=s31 model=tiny arrival=periodic period=20ms
task = name=t32 stream=s32 model=tiny arrival=periodic period=20ms
task = name=t33 stream=s33 model=tiny arrival=periodic period=20ms
task = name=t34 stream=s34 model=tiny arrival=periodic period=20ms
task = name=t35 stream=s35 model=tiny arrival=periodic period=20ms
task = name=t36 stream=s36 model=tiny arrival=periodic period=20ms
task = name=t37 stream=s37 model=tiny arrival=periodic period=20ms
task = name=t38 stream=s38 model=tiny arrival=periodic period=20ms
task = name=t39 stream=s39 model=tiny arrival=periodic period=20ms
