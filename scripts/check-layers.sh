#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The collector's folders are layers, from the bottom:
#   include < collector/base < collector/attach/{kernel < stampers < hooks
#           < groups < ifaces} < collector/read < collector/render
#           < collector/cli
# A file includes only from its own folder or one below it, so that the
# shared vocabulary never depends on what uses it. Prints each include that
# points up, as "FILE: includes DIR/HEADER, which is above DIR"; exit
# status 1 if there is one. Run by make lint, from the top of the tree.

LAYERS=(include collector/base collector/attach/kernel collector/attach/stampers
	collector/attach/hooks collector/attach/groups collector/attach/ifaces collector/read
	collector/render collector/cli)

cd "$(dirname "${BASH_SOURCE[0]}")/.." || exit 2

# the rank of the folder that holds header $1, or nothing if none does
rank_of()
{
	local i

	for i in "${!LAYERS[@]}"; do
		if [[ -e ${LAYERS[i]}/$1 ]]; then
			echo "$i"
			return
		fi
	done
}

bad=0
for i in "${!LAYERS[@]}"; do
	dir=${LAYERS[i]}
	for file in "$dir"/*.[ch]; do
		[[ -e $file ]] || continue
		while read -r header; do
			up=$(rank_of "$header")
			if [[ -n $up ]] && ((up > i)); then
				echo "$file: includes ${LAYERS[up]}/$header, which is above $dir"
				bad=1
			fi
		done < <(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$file")
	done
done
exit "$bad"
