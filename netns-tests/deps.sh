#!/bin/sh
# The README's commands start here (./netns-tests/deps.sh && make ...):
# the package list lives in scripts/deps.sh.
exec "$(dirname "$0")/../scripts/deps.sh" "$@"
