#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make check: the unit test programs, which need no kernel and no root.
# Each prints one line per check (netns-tests/check.h); this counts them
# and ends with "N passed, M failed, K skipped". Exit status 0 iff nothing
# failed and something passed.
#
# usage: unit-tests/check.sh PROGRAM[/CASE]...
#   PROGRAM is a file name in $BUILD (rxlat-report-test); CASE one of its
#   cases (PROGRAM --list names them), run alone.

BUILD=${BUILD:-build}
passed=0 failed=0 skipped=0
for arg in "$@"; do
	prog=${arg%%/*} case=
	[[ $arg == */* ]] && case=${arg#*/}
	if [[ ! -x $BUILD/$prog ]]; then
		echo "FAIL $prog: $BUILD/$prog is missing; run 'make test-binaries'"
		((failed++))
		continue
	fi
	echo "# === $prog${case:+ $case}"
	f0=$failed n0=$((passed + failed + skipped))
	while read -r line; do
		echo "$line"
		case $line in
		PASS\ *) ((passed++)) ;;
		FAIL\ *) ((failed++)) ;;
		SKIP\ *) ((skipped++)) ;;
		"# exit 0") ;;
		"# exit "*)
			if ((failed == f0)); then
				echo "FAIL $prog: ${line#"# "} without reporting a failed check"
				((failed++))
			fi
			;;
		esac
	done < <("$BUILD/$prog" ${case:+"$case"} 2>&1; echo "# exit $?")
	if ((passed + failed + skipped == n0)); then
		echo "FAIL $prog: reported no check at all"
		((failed++))
	fi
done
echo "$passed passed, $failed failed, $skipped skipped"
((failed == 0 && passed > 0))
