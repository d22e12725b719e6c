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
# The forwarded call (issue 11's goal: at most 150 instructions more than
# the native call): instructions per clGetPlatformIDs, native and phybin.
FORWARD_NAME=opencl_call
F_STATUS=ok F_NOTE="" F_NATIVE="" F_PHYBIN=""
# Whole OpenCL programs (issue 11's goal: within 5 % of the native AArch64
# build end to end): tests/forward's vector add and matrix multiply, their
# kernels already compiled in PoCL's cache, phybin warm.
OPENCL_PROGRAMS=(cl_vecadd cl_matmul)
declare -A O_STATUS O_NOTE O_NATIVE O_PHYBIN

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
  phybin_settings "outfile=$dir/$what.insns"
  measure "$name" "$what" "${PHYBIN_SETTINGS[@]}" "PHYBIN_ROOTFS=$PHYBIN_AMD64_ROOT" \
    "PHYBIN_CACHE_DIR=$dir/translations" "${PHYBIN_ENV[@]}" "${RUNNER[@]}" "$@"
  if ((run_status != 0)) || [[ -s $dir/$what.out ]]; then
    P_STATUS[$name]=FAIL P_NOTE[$name]="phybin $what: $(failure_note "$run_status" "$dir/$what.err")"
    return 1
  fi
}

# The native OpenCL library and phybin's guest side of it, in
# OPENCL_NATIVE_LIB and OPENCL_GUEST_LIB; false when one is missing.
find_opencl_libraries() {
  OPENCL_NATIVE_LIB=$PHYBIN_ARM64_ROOT/usr/lib/aarch64-linux-gnu/libOpenCL.so.1
  OPENCL_GUEST_LIB=$(dirname "${PHYBIN_BIN:-$PHYBIN_REPO/build/arm64/phybin}")/guest-libs/libOpenCL.so.1
  [[ -e $OPENCL_NATIVE_LIB && -e $OPENCL_GUEST_LIB ]]
}

# build_opencl_pair SRC OUT: OUT.x86_64 against phybin's guest side and
# OUT.aarch64 against the native library (find_opencl_libraries first);
# false, with the compilers' messages in OUT.build.err, when one fails.
build_opencl_pair() {
  local src=$1 out=$2
  gcc -O2 -o "$out.x86_64" "$src" "$OPENCL_GUEST_LIB" -lpthread 2>"$out.build.err" &&
    aarch64-linux-gnu-gcc -O2 -idirafter /usr/include -o "$out.aarch64" "$src" "$OPENCL_NATIVE_LIB" -lpthread \
      -Wl,-rpath-link,"$(dirname "$OPENCL_NATIVE_LIB")" 2>>"$out.build.err"
}

# run_forward_calls: fills F_* from two runs of each build of
# forward_calls.c (1 and 1001 calls): the difference over 1000 calls.
run_forward_calls() {
  local dir=$OUT/runs/$FORWARD_NAME
  F_STATUS=ok F_NOTE="" F_NATIVE="" F_PHYBIN=""
  if ! find_opencl_libraries || [[ ! -e /usr/include/CL/cl.h ]]; then
    F_STATUS=ERROR
    F_NOTE="needs $OPENCL_NATIVE_LIB (scripts/bootstrap), $OPENCL_GUEST_LIB (scripts/build) and opencl-c-headers"
    return
  fi
  mkdir -p "$dir"
  say "running $FORWARD_NAME"
  if ! build_opencl_pair "$PHYBIN_REPO/bench/forward_calls.c" "$dir/calls"; then
    F_STATUS=ERROR F_NOTE="build failed: $(head -c 200 "$dir/calls.build.err")"
    return
  fi
  local n counts_native=() counts_phybin=()
  for n in 1 1001; do
    measure "$FORWARD_NAME" "native$n" /usr/bin/qemu-aarch64 -L "$PHYBIN_ARM64_ROOT" -cpu "$CPU" \
      -plugin "$PLUGIN,outfile=$dir/native$n.insns" "$dir/calls.aarch64" "$n"
    counts_native+=("$(insn_count "$dir/native$n.insns")")
    phybin_settings "outfile=$dir/phybin$n.insns"
    measure "$FORWARD_NAME" "phybin$n" "${PHYBIN_SETTINGS[@]}" "PHYBIN_ROOTFS=$PHYBIN_AMD64_ROOT" \
      PHYBIN_CACHE_DIR=off "${RUNNER[@]}" "$dir/calls.x86_64" "$n"
    if ((run_status != 0)); then
      F_STATUS=FAIL F_NOTE="phybin: $(failure_note "$run_status" "$dir/phybin$n.err")"
      return
    fi
    counts_phybin+=("$(insn_count "$dir/phybin$n.insns")")
  done
  F_NATIVE=$(((counts_native[1] - counts_native[0]) / 1000))
  F_PHYBIN=$(((counts_phybin[1] - counts_phybin[0]) / 1000))
}

# run_opencl_programs: fills O_* for each of OPENCL_PROGRAMS.  PoCL's
# kernel cache is filled first by a native run in the ARM64 world (its
# compiler wants the tree's own paths); every measured run then finds the
# kernel there, as a program run twice does.
run_opencl_programs() {
  local prog
  for prog in "${OPENCL_PROGRAMS[@]}"; do
    local dir=$OUT/runs/$prog
    O_STATUS[$prog]=ok O_NOTE[$prog]="" O_NATIVE[$prog]="" O_PHYBIN[$prog]=""
    if ! find_opencl_libraries; then
      O_STATUS[$prog]=ERROR
      O_NOTE[$prog]="needs $OPENCL_NATIVE_LIB (scripts/bootstrap) and $OPENCL_GUEST_LIB (scripts/build)"
      continue
    fi
    say "running $prog"
    mkdir -p "$dir"
    if ! build_opencl_pair "$PHYBIN_REPO/tests/forward/$prog.c" "$dir/$prog"; then
      O_STATUS[$prog]=ERROR O_NOTE[$prog]="build failed: $(head -c 200 "$dir/$prog.build.err")"
      continue
    fi
    local cache=(POCL_CACHE_DIR="$dir/pocl-cache")
    measure "$prog" fill_cache "${cache[@]}" PHYBIN_BIN="$dir/$prog.aarch64" "PHYBIN_ARM64_ROOT=$PHYBIN_ARM64_ROOT" \
      "$PHYBIN_REPO/scripts/phybin-world"
    if ((run_status != 0)); then
      O_STATUS[$prog]=ERROR O_NOTE[$prog]="filling PoCL's cache: $(failure_note "$run_status" "$dir/fill_cache.err")"
      continue
    fi
    measure "$prog" native "${cache[@]}" /usr/bin/qemu-aarch64 -L "$PHYBIN_ARM64_ROOT" -cpu "$CPU" \
      -plugin "$PLUGIN,outfile=$dir/native.insns" "$dir/$prog.aarch64"
    if ((run_status != 0)); then
      O_STATUS[$prog]=ERROR O_NOTE[$prog]="native AArch64: $(failure_note "$run_status" "$dir/native.err")"
      continue
    fi
    rm -rf "$dir/translations"
    local what
    for what in cold warm; do
      phybin_settings "outfile=$dir/$what.insns"
      measure "$prog" "$what" "${cache[@]}" "${PHYBIN_SETTINGS[@]}" "PHYBIN_ROOTFS=$PHYBIN_AMD64_ROOT" \
        "PHYBIN_CACHE_DIR=$dir/translations" "${RUNNER[@]}" "$dir/$prog.x86_64"
      if ((run_status != 0)) || ! cmp -s "$dir/native.out" "$dir/$what.out"; then
        O_STATUS[$prog]=FAIL O_NOTE[$prog]="phybin $what: $(failure_note "$run_status" "$dir/$what.err")"
        continue 2
      fi
    done
    O_NATIVE[$prog]=$(insn_count "$dir/native.insns")
    O_PHYBIN[$prog]=$(insn_count "$dir/warm.insns")
  done
}

opencl_table() {
  local prog
  for prog in "${OPENCL_PROGRAMS[@]}"; do
    if [[ ${O_STATUS[$prog]} != ok ]]; then
      printf '%s end to end: %s: %s\n' "$prog" "${O_STATUS[$prog]}" "${O_NOTE[$prog]}"
      continue
    fi
    awk -v p="$prog" -v n="${O_NATIVE[$prog]}" -v w="${O_PHYBIN[$prog]}" 'BEGIN {
      printf "%s end to end: native %.1fM, phybin warm %.1fM (%.3fx; goal at most 1.05)\n", p, n / 1e6, w / 1e6, w / n }'
  done
}

opencl_json() {
  local prog sep=""
  printf '  "opencl_programs": ['
  for prog in "${OPENCL_PROGRAMS[@]}"; do
    printf '%s{"name": %s, "status": %s, "note": %s, "native_insns": %s, "phybin_warm_insns": %s}' "$sep" \
      "$(json_string "$prog")" "$(json_string "${O_STATUS[$prog]}")" "$(json_string "${O_NOTE[$prog]}")" \
      "$(json_number "${O_NATIVE[$prog]}")" "$(json_number "${O_PHYBIN[$prog]}")"
    sep=", "
  done
  printf '],\n'
}

program_table() {
  local name=$PROGRAM_NAME
  printf '\nPrograms (start-up, instructions; Debian arm64 natively, Debian amd64 through phybin):\n'
  if [[ ${P_STATUS[$name]} != ok ]]; then
    printf 'python3 -c pass: %s: %s\n' "${P_STATUS[$name]}" "${P_NOTE[$name]}"
    forward_table
    opencl_table
    return
  fi
  awk -v n="${P_NATIVE[$name]}" -v c="${P_COLD[$name]}" -v w="${P_WARM[$name]}" 'BEGIN {
    printf "python3 -c pass: native %.3fM, phybin cold %.3fM (%.2fx), warm %.3fM (%.2fx native)\n",
      n / 1e6, c / 1e6, c / n, w / 1e6, w / n }'
  forward_table
  opencl_table
}

forward_table() {
  if [[ $F_STATUS != ok ]]; then
    printf 'forwarded clGetPlatformIDs: %s: %s\n' "$F_STATUS" "$F_NOTE"
    return
  fi
  printf 'forwarded clGetPlatformIDs (instructions per call): native %d, phybin %d, %d more (goal at most 150)\n' \
    "$F_NATIVE" "$F_PHYBIN" $((F_PHYBIN - F_NATIVE))
}

program_json() {
  local name=$PROGRAM_NAME
  printf '  "programs": [{"name": "python3 -c pass", "status": %s, "note": %s, ' \
    "$(json_string "${P_STATUS[$name]}")" "$(json_string "${P_NOTE[$name]}")"
  printf '"native_insns": %s, "phybin_cold_insns": %s, "phybin_warm_insns": %s}],\n' \
    "$(json_number "${P_NATIVE[$name]}")" "$(json_number "${P_COLD[$name]}")" "$(json_number "${P_WARM[$name]}")"
  printf '  "forwarded_call": {"name": "clGetPlatformIDs", "status": %s, "note": %s, ' \
    "$(json_string "$F_STATUS")" "$(json_string "$F_NOTE")"
  printf '"native_insns_per_call": %s, "phybin_insns_per_call": %s},\n' "$(json_number "$F_NATIVE")" \
    "$(json_number "$F_PHYBIN")"
  opencl_json
}

# Only a failed phybin run counts against the exit status; a missing tree
# is a setup matter (reported in the table).
programs_status() {
  local prog
  for prog in "${OPENCL_PROGRAMS[@]}"; do
    [[ ${O_STATUS[$prog]:-ok} != FAIL ]] || return 1
  done
  [[ ${P_STATUS[$PROGRAM_NAME]:-ok} != FAIL && $F_STATUS != FAIL ]]
}
