# bench/run's scan suite (sourced): what `phybin scan` costs on the largest
# x86-64 library of the amd64 tree (Debian's libLLVM, 117 MB): AArch64
# instructions executed for the whole scan on one thread, per byte of
# code; issue 12 asks for a 100 MB library in seconds.  Needs the amd64
# tree; without it the suite says so and measures nothing.
# shellcheck shell=bash disable=SC2034

SCAN_NAME=scan_largest
S_STATUS=ok S_NOTE="" S_FILE="" S_CODE_BYTES="" S_INSNS="" S_SECONDS="" S_VERDICT=""

# run_scan: fills S_* from one scan of the tree's largest shared object.
run_scan() {
  local dir=$OUT/runs/$SCAN_NAME
  S_STATUS=ok S_NOTE="" S_FILE="" S_CODE_BYTES="" S_INSNS="" S_SECONDS="" S_VERDICT=""
  S_FILE=$(find "$PHYBIN_AMD64_ROOT/usr/lib/x86_64-linux-gnu" -maxdepth 1 -type f -name '*.so*' -printf '%s %p\n' \
    2>/dev/null | sort -n | tail -1 | cut -d' ' -f2-)
  if [[ -z $S_FILE ]]; then
    S_STATUS=ERROR S_NOTE="no shared objects in $PHYBIN_AMD64_ROOT (scripts/bootstrap)"
    return
  fi
  say "running $SCAN_NAME ($(basename "$S_FILE"))"
  phybin_settings "outfile=$dir/scan.insns"
  measure "$SCAN_NAME" scan "${PHYBIN_SETTINGS[@]}" "PHYBIN_ROOTFS=$PHYBIN_AMD64_ROOT" "${RUNNER[@]}" \
    scan --json --threads 1 "$S_FILE"
  if ((run_status > 1)); then
    S_STATUS=FAIL S_NOTE="phybin scan: $(failure_note "$run_status" "$dir/scan.err")"
    return
  fi
  S_SECONDS=$run_seconds
  S_INSNS=$(insn_count "$dir/scan.insns")
  S_CODE_BYTES=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["files"][0]["code_bytes"])' \
    "$dir/scan.out" 2>/dev/null)
  S_VERDICT=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["files"][0]["verdict"][:60])' \
    "$dir/scan.out" 2>/dev/null)
  [[ -n $S_INSNS && -n $S_CODE_BYTES ]] || S_STATUS=ERROR S_NOTE="no instruction count or no JSON"
}

scan_table() {
  printf '\nScan (phybin scan --threads 1, AArch64 instructions executed):\n'
  if [[ $S_STATUS != ok ]]; then
    printf 'scan: %s: %s\n' "$S_STATUS" "$S_NOTE"
    return
  fi
  awk -v f="$(basename "$S_FILE")" -v b="$S_CODE_BYTES" -v i="$S_INSNS" -v s="$S_SECONDS" -v v="$S_VERDICT" 'BEGIN {
    printf "%s: %.1f MB of code, %.2fG instructions (%.0f per code byte; %.1f s under qemu): %s\n",
      f, b / 1e6, i / 1e9, i / b, s, v }'
}

scan_json() {
  printf '  "scan": {"file": %s, "status": %s, "note": %s, "code_bytes": %s, "insns": %s, "qemu_seconds": %s},\n' \
    "$(json_string "$S_FILE")" "$(json_string "$S_STATUS")" "$(json_string "$S_NOTE")" \
    "$(json_number "$S_CODE_BYTES")" "$(json_number "$S_INSNS")" "$(json_number "$S_SECONDS")"
}
