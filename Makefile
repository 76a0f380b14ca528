# A thin front for meson. `make test` and `make demo` are the two commands the README promises;
# everything they need (Debian packages, configuration) happens on the way.

BUILD      ?= build
SAN_BUILD  ?= build-san
TSAN_BUILD ?= build-tsan
FUZZ_BUILD ?= build-fuzz
MESON      ?= meson
TEST_ARGS  ?=
# WERROR=1: every warning fails the build (CI sets it: .ci/run). Applies when a build
# directory is set up; `make clean` first to change it.
WERROR     ?=
SETUP_ARGS  = $(if $(WERROR),--werror)

# Sanitizer runs must fail loudly: UBSan otherwise only prints and carries on.
SAN_ENV  = ASAN_OPTIONS=abort_on_error=0:detect_leaks=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
TSAN_ENV = TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1

.PHONY: all deps build build-san build-tsan test test-normal test-san test-tsan fuzz fuzz-smoke \
	fuzz-msg fuzz-msg-smoke demo bench experiments experiments-extra clean

all: build

deps:
	@scripts/ensure-deps

build: deps
	@test -f $(BUILD)/build.ninja || $(MESON) setup $(SETUP_ARGS) $(BUILD)
	$(MESON) compile -C $(BUILD)

build-san: deps
	@test -f $(SAN_BUILD)/build.ninja || $(MESON) setup $(SETUP_ARGS) $(SAN_BUILD) \
	  -Db_sanitize=address,undefined -Db_lundef=false -Dc_args=-fno-sanitize-recover=undefined
	$(MESON) compile -C $(SAN_BUILD)

build-tsan: deps
	@test -f $(TSAN_BUILD)/build.ninja || $(MESON) setup $(SETUP_ARGS) $(TSAN_BUILD) -Db_sanitize=thread -Db_lundef=false
	$(MESON) compile -C $(TSAN_BUILD)

test-normal: build
	$(MESON) test -C $(BUILD) --print-errorlogs $(TEST_ARGS)

test-san: build-san
	$(SAN_ENV) $(MESON) test -C $(SAN_BUILD) --print-errorlogs --timeout-multiplier 3 $(TEST_ARGS)

# Only the threaded suites run under ThreadSanitizer (it is slow and the others have no threads).
test-tsan: build-tsan
	$(TSAN_ENV) $(MESON) test -C $(TSAN_BUILD) --print-errorlogs --timeout-multiplier 4 --suite threaded $(TEST_ARGS)

# The device model's packet-processor fuzzer (docs/sim.md "Fuzzing"): a clang build of its own
# ($(FUZZ_BUILD)). `fuzz` runs it for 10 minutes; `fuzz-smoke` for 45 s, as part of `make test`
# (skipped, not failed, where clang or libFuzzer is missing; .ci/run counts it as one test).
fuzz: deps
	FUZZ_BUILD=$(FUZZ_BUILD) scripts/fuzz-pp run 600

fuzz-smoke: deps
	FUZZ_BUILD=$(FUZZ_BUILD) scripts/fuzz-pp smoke 45

# hsaqmd's message and configuration parsers (docs/daemon.md "Fuzzing"), same build directory.
fuzz-msg: deps
	FUZZ_BUILD=$(FUZZ_BUILD) scripts/fuzz-msg run 600

fuzz-msg-smoke: deps
	FUZZ_BUILD=$(FUZZ_BUILD) scripts/fuzz-msg smoke 30

# Every build runs even when an earlier one failed, so one run reports everything.
test:
	@rc=0; \
	$(MAKE) --no-print-directory test-normal || rc=1; \
	$(MAKE) --no-print-directory test-san || rc=1; \
	$(MAKE) --no-print-directory test-tsan || rc=1; \
	$(MAKE) --no-print-directory fuzz-smoke || rc=1; \
	$(MAKE) --no-print-directory fuzz-msg-smoke || rc=1; \
	exit $$rc

# The preemption-level report of this machine's GPUs; without one, of the device model (exit
# code 3, "report produced on the model", is a success here). docs/probe-report.md.
demo: build
	@$(BUILD)/tools/hsa-queue-probe; rc=$$?; [ $$rc -eq 0 ] || [ $$rc -eq 3 ]

bench: build
	$(BUILD)/experiments/bench/hsaqm-bench-ring

# The users' workloads on the model (docs/experiments.md): calibration against their native
# rows, then every workload and configuration, then W4. Model figures, written to
# experiments/out/. Every step runs even when an earlier one missed a target.
WL = experiments/workloads
experiments: build
	@rc=0; \
	experiments/runner/hsaqm-experiment --calibrate $(WL)/calib.wl $(WL)/w2-native.wl \
		$(WL)/w1-light.wl $(WL)/w1-intensive.wl || rc=1; \
	experiments/runner/hsaqm-experiment --max-length 30s --trace native:2s,lv2:2s,lv3:2s \
		--trace-only w1-intensive --configs native,hip,lv1,lv2,lv3 $(WL)/w1-light.wl $(WL)/w1-intensive.wl $(WL)/w2.wl \
		$(WL)/w3.wl $(WL)/w3-tc1.wl || rc=1; \
	experiments/runner/trace_delay.py experiments/out/w1-intensive/trace-lv3.perfetto.json \
		--log experiments/out/w1-intensive/trace-lv3.json --standalone-ms 2.35 \
		--md experiments/out/w1-intensive/trace-lv3-delay.md >/dev/null || rc=1; \
	experiments/runner/hsaqm-experiment $(WL)/w3-tc3.wl || rc=1; \
	$(BUILD)/experiments/bench/hsaqm-bench-w4 || rc=1; \
	exit $$rc

# Beyond the users' workloads in their five configurations: W2 with a saturating low group, and
# the spatial fallback beside Lv2 and Lv3 on W1 and W2 (docs/results.md), about 8 minutes.
experiments-extra: build
	@rc=0; \
	experiments/runner/hsaqm-experiment $(WL)/w2-sat.wl || rc=1; \
	experiments/runner/hsaqm-experiment --max-length 30s --configs native,lv2,lv3,lv2-static,lv2-dynamic \
		$(WL)/w1-intensive.wl $(WL)/w1-light.wl $(WL)/w2.wl || rc=1; \
	exit $$rc

clean:
	rm -rf $(BUILD) $(SAN_BUILD) $(TSAN_BUILD) $(FUZZ_BUILD)
