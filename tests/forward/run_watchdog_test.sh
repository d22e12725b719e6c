#!/usr/bin/env bash
# run_watchdog_test.sh PROGRAM: PROGRAM.x86_64 (cl_watchdog.c) blocks for
# good in a forwarded call.  With PHYBIN_WATCHDOG=2 and
# PHYBIN_WATCHDOG_ACTION=abort phybin must stop it with PHYBIN_ERR_WATCHDOG
# (exit status 117), naming the call; with the report alone it must name
# the call on stderr and let it go on (the test then ends it).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
program=$1
work=$(mktemp -d /tmp/phybin-watchdog.XXXXXX) || exit 1
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
fixed_env=(PATH=/usr/bin:/bin LANG=C HOME="$work" XDG_CACHE_HOME="$work/cache" PHYBIN_CACHE_DIR=off
  ${PHYBIN_BIN:+PHYBIN_BIN=$PHYBIN_BIN})
fail=0

env -i "${fixed_env[@]}" PHYBIN_WATCHDOG=2 PHYBIN_WATCHDOG_ACTION=abort timeout -s KILL 120 \
  "$repo/scripts/phybin-world" "$program.x86_64" >abort.out 2>abort.err
status=$?
if [[ $status -ne 117 ]] || ! grep -q "PHYBIN_ERR_WATCHDOG" abort.err || ! grep -q "clWaitForEvents(0x1, 0x" abort.err; then
  echo "FAIL: PHYBIN_WATCHDOG_ACTION=abort: status $status (want 117), stderr:"
  cat abort.err
  fail=1
fi

# In a subshell: the shell's "Killed" notice stays out of the test's output.
(env -i "${fixed_env[@]}" PHYBIN_WATCHDOG=1 timeout -s KILL 20 \
  "$repo/scripts/phybin-world" "$program.x86_64" >report.out 2>report.err) 2>/dev/null
status=$?
if [[ $status -ne 137 ]] || ! grep -q "phybin: watchdog: forwarded call clWaitForEvents" report.err ||
  grep -q "the wait ended" report.out; then
  echo "FAIL: PHYBIN_WATCHDOG=1 alone: status $status (want 137: still waiting when killed), stderr:"
  cat report.err
  fail=1
fi
((fail)) && exit 1
echo "PASS: the blocked call was reported and, with abort, stopped the program:"
grep -h "watchdog\|WATCHDOG" abort.err report.err | cut -c 1-300
