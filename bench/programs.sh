# bench/run's programs suite (sourced): the start-up of real Debian
# programs, `python3 -c pass` for now: Debian's arm64 python3 run natively
# (the arm64 tree, under qemu), and Debian's amd64 python3 through phybin
# with PHYBIN_ROOTFS on the amd64 tree, cold (translating, then saving the
# translations) and warm (loading them).  The goal of issue 10: warm at
# most 2x native.  Needs the trees scripts/bootstrap makes; without them
# the suite says so and measures nothing.
# shellcheck shell=bash disable=SC2034

PROGRAM_NAME=python3_pass
declare -A P_STATUS P_NOTE P_NATIVE P_COLD P_WARM

# run_programs: fills P_* for python3 -c pass.
run_programs() {
  local name=$PROGRAM_NAME dir=$OUT/runs/$PROGRAM_NAME
  local arm64_py=$PHYBIN_ARM64_ROOT/usr/bin/python3 amd64_py=$PHYBIN_AMD64_ROOT/usr/bin/python3
  P_STATUS[$name]=ok P_NOTE[$name]="" P_NATIVE[$name]="" P_COLD[$name]="" P_WARM[$name]=""
  if [[ ! -x $arm64_py || ! -x $amd64_py ]]; then
    P_STATUS[$name]=ERROR P_NOTE[$name]="no python3 in $PHYBIN_ARM64_ROOT or $PHYBIN_AMD64_ROOT (scripts/bootstrap)"
    return
  fi
  say "running $name"
  # Once unmeasured: a run that finds a module's bytecode cache stale
  # writes it again and counts about 7 M instructions more.
  measure "$name" aarch64_first /usr/bin/qemu-aarch64 -L "$PHYBIN_ARM64_ROOT" "$arm64_py" -c pass
  measure "$name" aarch64 /usr/bin/qemu-aarch64 -L "$PHYBIN_ARM64_ROOT" -cpu "$CPU" \
    -plugin "$PLUGIN,outfile=$dir/aarch64.insns" "$arm64_py" -c pass
  if ((run_status != 0)); then
    P_STATUS[$name]=ERROR P_NOTE[$name]="native AArch64: $(failure_note "$run_status" "$dir/aarch64.err")"
    return
  fi
  P_NATIVE[$name]=$(insn_count "$dir/aarch64.insns")
  rm -rf "$dir/translations"
  local what
  for what in cold warm; do
    run_program_phybin "$name" "$what" "$amd64_py" -c pass || return
  done
  P_COLD[$name]=$(insn_count "$dir/cold.insns")
  P_WARM[$name]=$(insn_count "$dir/warm.insns")
}

# run_program_phybin NAME WHAT PROGRAM ARGS...: one phybin run with the
# suite's translation directory; false (and P_STATUS set) when it failed.
run_program_phybin() {
  local name=$1 what=$2
  shift 2
  local dir=$OUT/runs/$name
  local -a pass_on=()
  [[ -n ${PHYBIN_BIN:-} ]] && pass_on+=("PHYBIN_BIN=$PHYBIN_BIN")
  measure "$name" "$what" "${pass_on[@]}" "PHYBIN_ARM64_ROOT=$PHYBIN_ARM64_ROOT" "PHYBIN_QEMU_CPU=$CPU" \
    "PHYBIN_QEMU_PLUGIN=$PLUGIN,outfile=$dir/$what.insns" "PHYBIN_ROOTFS=$PHYBIN_AMD64_ROOT" \
    "PHYBIN_CACHE_DIR=$dir/translations" "${PHYBIN_ENV[@]}" "${RUNNER[@]}" "$@"
  if ((run_status != 0)) || [[ -s $dir/$what.out ]]; then
    P_STATUS[$name]=FAIL P_NOTE[$name]="phybin $what: $(failure_note "$run_status" "$dir/$what.err")"
    return 1
  fi
}

program_table() {
  local name=$PROGRAM_NAME
  printf '\nPrograms (start-up, instructions; Debian arm64 natively, Debian amd64 through phybin):\n'
  if [[ ${P_STATUS[$name]} != ok ]]; then
    printf 'python3 -c pass: %s: %s\n' "${P_STATUS[$name]}" "${P_NOTE[$name]}"
    return
  fi
  awk -v n="${P_NATIVE[$name]}" -v c="${P_COLD[$name]}" -v w="${P_WARM[$name]}" 'BEGIN {
    printf "python3 -c pass: native %.3fM, phybin cold %.3fM (%.2fx), warm %.3fM (%.2fx native)\n",
      n / 1e6, c / 1e6, c / n, w / 1e6, w / n }'
}

program_json() {
  local name=$PROGRAM_NAME
  printf '  "programs": [{"name": "python3 -c pass", "status": %s, "note": %s, ' \
    "$(json_string "${P_STATUS[$name]}")" "$(json_string "${P_NOTE[$name]}")"
  printf '"native_insns": %s, "phybin_cold_insns": %s, "phybin_warm_insns": %s}],\n' \
    "$(json_number "${P_NATIVE[$name]}")" "$(json_number "${P_COLD[$name]}")" "$(json_number "${P_WARM[$name]}")"
}

# Only a failed phybin run counts against the exit status; a missing tree
# is a setup matter (reported in the table).
programs_status() {
  [[ ${P_STATUS[$PROGRAM_NAME]:-ok} != FAIL ]]
}
