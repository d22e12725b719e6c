# bench/run's fork suite (sourced): what a fork costs in a process whose 8
# other threads run (issue 24: at most 2x what the AArch64 build pays).
# bench/fork_threads.c forks FORK_COUNT times while its workers loop,
# natively and through phybin, counted by bench/tools/forkcount.c with
# first_thread=1: the forking thread and each child on its own line, the
# workers left out (how much they run depends on how long the forks take).
# A fork's cost is the forking thread's instructions from one fork to the
# next (children's forked_at: counts) plus the child's own, each the
# median over the last half of the forks (the first children of phybin
# translate).
# shellcheck shell=bash disable=SC2034,SC2154 # run and threads.sh set and read these

FORK_NAME=fork_threads
FORK_COUNT=16
FORK_THREADS=8
declare -A F_PARENT F_CHILD
F_STATUS=ok F_NOTE=""

# Builds the counting plugin next to insncount's, from bench/tools.
build_fork_plugin() {
  local dir=$OUT/forkcount
  mkdir -p "$dir"
  gcc -O2 -Wall -Wextra -fPIC -shared -fvisibility=hidden -I"$INSNCOUNT_SRC" -o "$dir/forkcount.so" \
    "$PHYBIN_REPO/bench/tools/forkcount.c"
}

# fork_figures FILE: "PARENT CHILD", the medians of a run's plugin lines.
fork_figures() {
  awk '$1 == "insns:" && $3 == "forked_at:" { c[n] = $2; s[n] = $4; n++ }
    function median(a, k,   i, j, t) {
      for (i = 0; i < k; i++) for (j = i + 1; j < k; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
      return a[int(k / 2)]
    }
    END {
      if (n < 4) exit 1
      for (i = int(n / 2); i < n; i++) { cc[k] = c[i]; if (i + 1 < n) d[m++] = s[i + 1] - s[i]; k++ }
      print median(d, m), median(cc, k)
    }' "$1"
}

# run_fork_case WHAT COMMAND...: one counted run; fills F_PARENT/F_CHILD[WHAT].
run_fork_case() {
  local what=$1 dir=$OUT/runs/$FORK_NAME
  shift
  measure "$FORK_NAME" "$what" "$@"
  judge "$FORK_NAME" "$what" 0
  if [[ $verdict != ok ]]; then
    [[ $F_STATUS != ok ]] || F_STATUS=$verdict F_NOTE="$what: $note"
    return
  fi
  local figures
  figures=$(fork_figures "$dir/$what.insns") || { F_STATUS=FAIL F_NOTE="$what: too few children counted"; return; }
  read -r "F_PARENT[$what]" "F_CHILD[$what]" <<<"$figures"
}

run_fork() {
  F_STATUS=ok F_NOTE=""
  SRC_DIR=$PHYBIN_REPO/bench LINK_FLAGS="-static -pthread" ARCH_SUFFIX=-fork
  if ! build_fork_plugin || ! build_kernel x86_64 gcc "$FORK_NAME" ||
    ! build_kernel aarch64 aarch64-linux-gnu-gcc "$FORK_NAME"; then
    F_STATUS=ERROR F_NOTE="build failed (build/bench/*-fork/$FORK_NAME.log)"
    return
  fi
  say "running $FORK_NAME ($FORK_COUNT forks, $FORK_THREADS threads)"
  local dir=$OUT/runs/$FORK_NAME plugin=$OUT/forkcount/forkcount.so
  local -a argv=("$FORK_COUNT" "$FORK_THREADS")
  measure "$FORK_NAME" x86_64 "$OUT/x86_64-fork/$FORK_NAME" "${argv[@]}"
  ((run_status == 0)) || { F_STATUS=ERROR F_NOTE="x86-64 native: $(failure_note "$run_status" "$dir/x86_64.err")"; return; }
  rm -f "$dir/aarch64.insns" "$dir/phybin.insns"
  run_fork_case aarch64 /usr/bin/qemu-aarch64 -cpu "$CPU" \
    -plugin "$plugin,outfile=$dir/aarch64.insns,first_thread=1" "$OUT/aarch64-fork/$FORK_NAME" "${argv[@]}"
  [[ $F_STATUS == ok ]] || { F_STATUS=ERROR; return; }
  phybin_settings "outfile=$dir/phybin.insns,first_thread=1" "$plugin"
  run_fork_case phybin "${PHYBIN_SETTINGS[@]}" "${PHYBIN_ENV[@]}" "${RUNNER[@]}" "$OUT/x86_64-fork/$FORK_NAME" "${argv[@]}"
}

# fork_total WHAT: its parent's and child's instructions per fork.
fork_total() {
  [[ -n ${F_PARENT[$1]:-} ]] && printf '%d' $((F_PARENT[$1] + F_CHILD[$1]))
}

fork_table() {
  printf '\nFork with %d threads running (%s.c, %d forks; forkcount first_thread=1, per fork):\n' \
    "$FORK_THREADS" "$FORK_NAME" "$FORK_COUNT"
  if [[ $F_STATUS != ok ]]; then
    printf 'fork: %s: %s\n' "$F_STATUS" "$F_NOTE"
    return
  fi
  local format='%-8s %10s %10s %10s\n' what
  # shellcheck disable=SC2059 # the format is ours
  printf "$format" "" parent child total
  for what in aarch64 phybin; do
    # shellcheck disable=SC2059
    printf "$format" "${what/aarch64/native}" "${F_PARENT[$what]}" "${F_CHILD[$what]}" "$(fork_total "$what")"
  done
  printf 'fork ratio phybin/native: %sx (goal <= 2)\n' "$(ratio "$(fork_total phybin)" "$(fork_total aarch64)")"
}

fork_json() {
  printf '  "fork": {"status": %s, "note": %s, "forks": %d, "threads": %d' "$(json_string "$F_STATUS")" \
    "$(json_string "$F_NOTE")" "$FORK_COUNT" "$FORK_THREADS"
  printf ', "native_parent": %s, "native_child": %s, "phybin_parent": %s, "phybin_child": %s},\n' \
    "$(json_number "${F_PARENT[aarch64]:-}")" "$(json_number "${F_CHILD[aarch64]:-}")" \
    "$(json_number "${F_PARENT[phybin]:-}")" "$(json_number "${F_CHILD[phybin]:-}")"
}
