# SPDX-License-Identifier: MIT
#
# The human entry point.  Userspace builds with Meson into build/, the module
# with Kbuild against a Debian kernel's headers into build/module/VERSION/.
#
#   make              build the library, tools and tests
#   make demo         the zero-copy camera demo in the 6.12 VM (KVER=6.1 for 6.1,
#                     FRAMES=N frames, SIZE=WxH)
#   make check        every test: host, Vulkan, and the VM on both kernels
#   make module       build llmem.ko (KVER=6.1 by default, 6.12 or a full version)
#   make check-debug  the module and uapi-fuzz tests on a 6.12 kernel built
#                     here with KASAN, lockdep and kmemleak (cached in
#                     build/debug-kernel; the first build takes hours)
#   make fuzz         the long fuzz runs: each libFuzzer target for
#                     FUZZ_SECONDS (600), then a million /dev/llmem calls in
#                     the VM on each kernel (FUZZ_CALLS, FUZZ_SEED)
#   make vm CMD=...   run CMD in the VM on both kernels with llmem.ko and the
#                     test drivers (scripts/build-test-drivers) loaded
#   make lint         checkpatch --strict and kernel-doc on module/, clang-format on userspace
#   make tiers        draw lib/'s tiers again into docs/tiers.dot and .svg
#   make dkms-install copy the module source to /usr/src for dkms, install
#                     its udev rule

BUILD ?= build
KVER ?=
KERNELS ?= 6.1 6.12
FUZZ_CALLS ?= 1000000
FUZZ_SEED ?=
FUZZ_SECONDS ?= 600

.PHONY: all setup demo check check-debug fuzz module vm lint tiers dkms-install clean

all: $(BUILD)/build.ninja
	ninja -C $(BUILD)

$(BUILD)/build.ninja:
	meson setup $(BUILD)

setup:
	scripts/setup

demo: setup
	scripts/demo $(if $(KVER),KVER=$(KVER)) $(if $(FRAMES),FRAMES=$(FRAMES)) \
		$(if $(SIZE),SIZE=$(SIZE))

check: setup
	scripts/check

check-debug: all
	scripts/check-debug

module:
	scripts/build-module $(or $(KVER),6.1)

vm: all
	@for k in $(KERNELS); do \
		scripts/build-module $$k >/dev/null && \
		tests/vm/run --kernel $$k --module vgem --test-drivers \
			--module $(BUILD)/module/$$(tests/vm/kernel-version $$k)/llmem.ko \
			-- sh -c '$(CMD)' || exit 1; \
	done

fuzz: all
	tests/fuzz/run --build $(BUILD) --seconds $(FUZZ_SECONDS)
	@for k in $(KERNELS); do \
		scripts/build-module $$k >/dev/null && \
		tests/vm/run --kernel $$k --module 'vivid:n_devs=5 allocators=0,0,1,0,0 multiplanar=1,1,1,2,1' \
			--module $(BUILD)/module/$$(tests/vm/kernel-version $$k)/llmem.ko \
			--timeout 7200 -- sh -c 'LLMEM_FUZZ_CALLS=$(FUZZ_CALLS) \
			LLMEM_FUZZ_SEED=$(FUZZ_SEED) $(BUILD)/tests/module_uapi_fuzz_test && \
			tests/module/unload-check' || exit 1; \
	done

lint:
	scripts/lint

tiers: all
	tests/tiers-check --source . --build $(BUILD) --dot >docs/tiers.dot
	dot -Tsvg docs/tiers.dot >docs/tiers.svg

dkms-install:
	scripts/dkms-install

clean:
	rm -rf $(BUILD) $(BUILD)-san
