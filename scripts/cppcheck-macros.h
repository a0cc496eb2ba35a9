/* SPDX-License-Identifier: GPL-2.0 */
/* libbpf's iteration macros, spelled out for cppcheck (make lint only). */
#define bpf_object__for_each_program(pos, obj)                             \
	for ((pos) = bpf_object__next_program((obj), NULL); (pos) != NULL; \
	     (pos) = bpf_object__next_program((obj), (pos)))
#define bpf_object__for_each_map(pos, obj)                             \
	for ((pos) = bpf_object__next_map((obj), NULL); (pos) != NULL; \
	     (pos) = bpf_object__next_map((obj), (pos)))
