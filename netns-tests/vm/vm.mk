# SPDX-License-Identifier: GPL-2.0
# make vmtest: runs the namespace test suite inside Debian's 6.1 and 6.12
# kernels under QEMU (see netns-tests/vm/vmtest.sh). Included from the top
# Makefile.
#   make vmtest                        both kernels, ./netns-tests/run.sh
#   make vmtest VMTEST_ARGS='--kernel 6.1'
#   make vmtest VMTEST_ARGS='-- ./netns-tests/vm/selftest.sh'
#   make vmtest-selftest               only the VM's own feature checks
#   make vmtest-drivers                rxlat on real NIC drivers (netns-tests/vm/drivers.sh)

VMTEST_ARGS ?=
VMCHECK := $(BUILD)/vmcheck/fentry_check $(BUILD)/vmcheck/fentry_check.bpf.o

# The shared BPF flags; the check itself needs no vmlinux.h.
$(BUILD)/vmcheck/fentry_check.bpf.o: netns-tests/vm/fentry_check.bpf.c
	@mkdir -p $(dir $@)
	$(CLANG) $(BPF_CFLAGS) -c $< -o $@

$(BUILD)/vmcheck/fentry_check: netns-tests/vm/fentry_check.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $< -o $@ -lbpf

.PHONY: vmtest vmtest-selftest vmtest-drivers vmcheck
vmcheck: $(VMCHECK)

vmtest: all test-binaries $(VMCHECK)
	BUILD=$(abspath $(BUILD)) ./netns-tests/vm/vmtest.sh $(VMTEST_ARGS)

vmtest-selftest: all $(VMCHECK)
	BUILD=$(abspath $(BUILD)) ./netns-tests/vm/vmtest.sh $(VMTEST_ARGS) -- ./netns-tests/vm/selftest.sh


vmtest-drivers: all test-binaries
	BUILD=$(abspath $(BUILD)) ./netns-tests/vm/drivers.sh
