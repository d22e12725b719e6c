# bench/run's threads suite (sourced): the pthread kernels of
# $BENCH_THREADS_SRC, natively and through phybin: with 1 worker thread and
# PHYBIN_TSO=off (what the kernel costs without ordering: a single thread
# needs none), and with 4 threads under PHYBIN_TSO=auto and strict.
# Counted with the plugin's mode=cb (exact with threads, see the kernels'
# README).  Per kernel: the ratios phybin/native, how much the ratio grows
# from 1 thread unordered to 4 threads under auto (the goal: at most 1.3)
# and what ordering every access costs (strict/auto).
# shellcheck shell=bash disable=SC2034

THREAD_COUNTS=(1 4)
THREAD_KERNELS=()
declare -A T_STATUS T_NOTE T_NATIVE T_PHYBIN

# The command-line arguments that give a kernel T threads (mt_queue has
# producers and consumers: 1+1 and 2+2).
thread_args() {
  case $1 in
    mt_queue) if (($2 == 1)); then echo "1 1"; else echo "2 2"; fi ;;
    *) echo "$2" ;;
  esac
}

# thread_fail NAME VERDICT NOTE: the first problem of a kernel is kept.
thread_fail() {
  [[ ${T_STATUS[$1]} == ok ]] || return 0
  T_STATUS[$1]=$2 T_NOTE[$1]=$3
}

# run_thread_config NAME T: one thread count, every run; fills T_*.
run_thread_config() {
  local name=$1 t=$2 key=$1.t$2
  local dir=$OUT/runs/$key
  local -a argv
  read -ra argv <<<"$(thread_args "$name" "$t")"
  measure "$key" x86_64 "$OUT/x86_64-mt/$name" "${argv[@]}"
  local ref_status=$run_status
  if ((ref_status != 0)); then
    thread_fail "$name" ERROR "x86-64 native run: $(failure_note "$ref_status" "$dir/x86_64.err")"
    return
  fi
  measure "$key" aarch64 /usr/bin/qemu-aarch64 -cpu "$CPU" \
    -plugin "$PLUGIN,outfile=$dir/aarch64.insns,mode=cb" "$OUT/aarch64-mt/$name" "${argv[@]}"
  judge "$key" aarch64 "$ref_status"
  [[ $verdict == ok ]] || { thread_fail "$name" ERROR "native AArch64 ($t threads): $note"; return; }
  T_NATIVE[$key]=$(insn_count "$dir/aarch64.insns")
  local mode modes=(auto strict)
  ((t == 1)) && modes=(off)
  for mode in "${modes[@]}"; do
    phybin_settings "outfile=$dir/phybin_$mode.insns,mode=cb"
    measure "$key" "phybin_$mode" "${PHYBIN_SETTINGS[@]}" "PHYBIN_TSO=$mode" "${PHYBIN_ENV[@]}" \
      "${RUNNER[@]}" "$OUT/x86_64-mt/$name" "${argv[@]}"
    judge "$key" "phybin_$mode" "$ref_status"
    if [[ $verdict != ok ]]; then
      thread_fail "$name" "$verdict" "PHYBIN_TSO=$mode, $t threads: $note"
      continue
    fi
    T_PHYBIN[$key.$mode]=$(insn_count "$dir/phybin_$mode.insns")
  done
}

run_thread_kernels() {
  [[ -d $BENCH_THREADS_SRC ]] || die "no thread kernels at $BENCH_THREADS_SRC (set PHYBIN_BENCH_THREADS_SRC)"
  local src name t
  for src in "$BENCH_THREADS_SRC"/*.c; do
    name=$(basename "$src" .c)
    THREAD_KERNELS+=("$name")
    T_STATUS[$name]=ok T_NOTE[$name]=""
    if ! build_kernel x86_64 gcc "$name" || ! build_kernel aarch64 aarch64-linux-gnu-gcc "$name"; then
      thread_fail "$name" ERROR "build failed (build/bench/*-mt/$name.log)"
      continue
    fi
    say "running $name (threads)"
    for t in "${THREAD_COUNTS[@]}"; do run_thread_config "$name" "$t"; done
  done
  # exit_status looks at R_STATUS.
  for name in "${THREAD_KERNELS[@]}"; do R_STATUS[threads/$name]=${T_STATUS[$name]}; done
}

# ratio A B: A/B with two decimals, or "-".
ratio() {
  [[ $1 =~ ^[0-9.]+$ && $2 =~ ^[0-9.]+$ ]] || { printf -- '-'; return; }
  awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'
}

thread_table() {
  printf '\nThread kernels (static, -pthread; insncount mode=cb; ratios phybin/native):\n'
  local format='%-13s %-6s %10s %10s %10s %10s %12s  %s\n' name
  # shellcheck disable=SC2059 # the format is ours
  printf "$format" kernel result "1t off" "4t auto" "4t strict" "auto/1t" "strict/auto" note
  for name in "${THREAD_KERNELS[@]}"; do
    local o1 a4 s4
    o1=$(ratio "${T_PHYBIN[$name.t1.off]:-}" "${T_NATIVE[$name.t1]:-}")
    a4=$(ratio "${T_PHYBIN[$name.t4.auto]:-}" "${T_NATIVE[$name.t4]:-}")
    s4=$(ratio "${T_PHYBIN[$name.t4.strict]:-}" "${T_NATIVE[$name.t4]:-}")
    # shellcheck disable=SC2059
    printf "$format" "$name" "${T_STATUS[$name]}" "${o1}x" "${a4}x" "${s4}x" "$(ratio "$a4" "$o1")" \
      "$(ratio "$s4" "$a4")" "${T_NOTE[$name]:0:100}"
  done
  printf '(1t off: one worker thread without ordering, the cost of the code alone; auto/1t: how much\n'
  printf 'the ratio grows with 4 threads ordered as PHYBIN_TSO=auto does, goal <= 1.3; strict/auto:\n'
  printf 'the cost of ordering every access, stack included.)\n\n'
}

thread_json() {
  local name sep=""
  printf '  "threads": [\n'
  for name in "${THREAD_KERNELS[@]}"; do
    printf '%s    {"name": %s, "status": %s, "note": %s' "$sep" "$(json_string "$name")" \
      "$(json_string "${T_STATUS[$name]}")" "$(json_string "${T_NOTE[$name]}")"
    printf ', "native_1t": %s, "off_1t": %s, "native_4t": %s, "auto_4t": %s, "strict_4t": %s' \
      "$(json_number "${T_NATIVE[$name.t1]:-}")" "$(json_number "${T_PHYBIN[$name.t1.off]:-}")" \
      "$(json_number "${T_NATIVE[$name.t4]:-}")" "$(json_number "${T_PHYBIN[$name.t4.auto]:-}")" \
      "$(json_number "${T_PHYBIN[$name.t4.strict]:-}")"
    printf '}'
    sep=$',\n'
  done
  printf '\n  ],\n'
}
