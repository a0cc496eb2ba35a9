#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Part of netns-tests/vm/vmtest.sh, sourced by it: boots one kernel under
# QEMU, streams its console with the [line] prefix and reads the markers
# that /init prints. Uses vmtest.sh's VMDIR, tmp, MEM, SMP, TIMEOUT, GRACE,
# NONCE, KVER, VMLINUZ, PKG, VER, the RES_* arrays, now, elapsed and note;
# qpid is the QEMU process, for vmtest.sh's cleanup.
# shellcheck disable=SC2034,SC2154 # globals shared with vmtest.sh: set there, read there

# A kernel line's results, for vmtest.sh's summary
declare -A RES_KVER=() RES_PKG=() RES_BOOT=() RES_SUITE=() RES_RC=() RES_TEXT=()

# boot LINE INITRD: boots, streams the console, sets RES_* for the summary
boot() {
	local line=$1 initrd=$2 log=$VMDIR/$1/console.log fifo=$tmp/console-$1
	local t0 tb='' ts='' te='' deadline left l rc=- status='' booted_kver='' panic='' qrc
	rm -f "$fifo"
	mkfifo "$fifo"
	: >"$log"
	note "booting kernel $KVER ($line), timeout ${TIMEOUT}s"
	t0=$(now)
	# arm64: the Image boots without firmware on the virt machine; plain
	# -cpu max emulates pointer authentication slowly (pauth-impdef=on)
	local qemu=(qemu-system-x86_64 -accel tcg -cpu max) console=ttyS0
	[ "$VM_ARCH" = arm64 ] &&
		qemu=(qemu-system-aarch64 -M virt -accel tcg -cpu "max,pauth-impdef=on") console=ttyAMA0
	# shellcheck disable=SC2086 # VMTEST_QEMU_ARGS is a list of options
	"${qemu[@]}" -m "$MEM" -smp "$SMP" \
		-nographic -no-reboot -nic none ${VMTEST_QEMU_ARGS:-} \
		-kernel "$VMLINUZ" -initrd "$initrd" \
		-append "console=$console panic=-1 quiet ${VMTEST_APPEND:-}" \
		</dev/null >"$fifo" 2>&1 &
	qpid=$!
	exec 3<"$fifo"
	deadline=$((${t0%.*} + TIMEOUT))
	while :; do
		left=$((deadline - EPOCHSECONDS))
		if [ "$left" -le 0 ]; then
			status=timeout
			break
		fi
		if IFS= read -r -t "$left" -u 3 l; then
			:
		else
			rc_read=$?
			if [ "$rc_read" -gt 128 ]; then
				status=timeout
				break
			fi
			[ -n "$l" ] || break # end of output: QEMU exited
		fi
		l=${l//$'\r'/}
		l=${l//$'\e'c/}
		while [[ $l =~ $'\e'\[[0-9?\;]*[a-zA-Z] ]]; do
			l=${l/"${BASH_REMATCH[0]}"/}
		done
		printf '%s\n' "$l" >>"$log"
		case $l in
		*"TCG doesn't support requested feature"*) continue ;;
		esac
		[ -n "$l" ] && printf '[%s] %s\n' "$line" "$l"
		case $l in
		*"RXLAT-VM-BOOTED $NONCE "*)
			tb=$(now)
			booted_kver=${l##* }
			;;
		*"RXLAT-VM-START $NONCE"*) ts=$(now) ;;
		*"RXLAT-VM-RESULT $NONCE rc="*)
			te=$(now)
			rc=${l##*rc=}
			rc=${rc%%[!0-9]*}
			# wait for the power-off, but not forever
			deadline=$((EPOCHSECONDS + GRACE))
			;;
		*"Kernel panic"*) panic=1 ;;
		esac
	done
	exec 3<&-
	if kill -0 "$qpid" 2>/dev/null; then
		if [ "$status" = timeout ] && [ -z "$te" ]; then
			note "kernel $line: no result within ${TIMEOUT}s: stopping QEMU"
		fi
		kill -TERM "$qpid" 2>/dev/null || true
		sleep 0.5
		kill -KILL "$qpid" 2>/dev/null || true
	fi
	qrc=0
	wait "$qpid" 2>/dev/null || qrc=$?
	qpid=
	rm -f "$fifo"

	# died before /init printed its first line: nothing of the project ran
	EARLY_DEATH=
	[ -z "$tb" ] && [ "$status" != timeout ] && EARLY_DEATH=1

	RES_KVER[$line]=${booted_kver:-$KVER}
	RES_PKG[$line]="$PKG $VER"
	RES_BOOT[$line]=${tb:+$(elapsed "$t0" "$tb")s}
	RES_SUITE[$line]=
	[ -n "$ts" ] && [ -n "$te" ] && RES_SUITE[$line]=$(elapsed "$ts" "$te")s
	if [ -n "$te" ] && [ -n "$rc" ] && [ "$rc" != - ]; then
		RES_RC[$line]=$rc
		if [ "$rc" = 0 ]; then RES_TEXT[$line]="PASS (rc=0)"; else RES_TEXT[$line]="FAIL (rc=$rc)"; fi
	elif [ -n "$panic" ]; then
		RES_RC[$line]=1
		RES_TEXT[$line]="FAIL (kernel panic; see $log)"
	elif [ "$status" = timeout ]; then
		RES_RC[$line]=124
		RES_TEXT[$line]="FAIL (timeout after ${TIMEOUT}s)"
	elif [ -z "$tb" ]; then
		RES_RC[$line]=1
		RES_TEXT[$line]="FAIL (VM did not boot, qemu exit $qrc; see $log)"
	else
		RES_RC[$line]=1
		RES_TEXT[$line]="FAIL (no result marker, qemu exit $qrc; see $log)"
	fi
}
