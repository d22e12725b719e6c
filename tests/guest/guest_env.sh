# Sourced by run_guest_test.sh, make_model_files.sh and run_badinput_test.sh
# (bash): how a guest program is run natively, and the vendor model its
# `model: ` lines are held to.  Kept in one place so that the .model files
# made by make_model_files.sh come from exactly the runs the tests compare.
# shellcheck shell=bash disable=SC2034  # the variables are used by the scripts that source this

# The vendor whose behaviour phybin follows where Intel and AMD differ or
# the manuals leave a value open (its CPUID says GenuineIntel); the .model
# files record that behaviour.
guest_model_vendor=GenuineIntel
guest_model_prefix='model: '

# Every run starts from `env -i` plus these.
guest_base_env=(PATH=/usr/bin:/bin LANG=C HOME=/tmp)
# GLIBC_TUNABLES masks AVX and FMA from glibc's CPU dispatch in the native
# run: the host CPU has them, the x86-64 machine phybin presents does not,
# and libm's FMA variants of sin, exp, pow, atan2 ... round differently in
# the last bit from the SSE2 ones.  The variable is part of every run's
# environment, so the guest sees the same envp either way; under phybin it
# changes nothing.
guest_tunables="GLIBC_TUNABLES=glibc.cpu.hwcaps=-AVX,-AVX2,-FMA,-FMA4,-AVX512F,-AVX512VL,-AVX512BW,-AVX512DQ,-AVX512CD"

# guest_build_vendor: the CPU vendor of this machine (vendor_id in
# /proc/cpuinfo).  PHYBIN_GUEST_NATIVE_VENDOR overrides it, to try the
# harness's other-vendor path on a machine of the model's vendor.
guest_build_vendor() {
  if [ -n "${PHYBIN_GUEST_NATIVE_VENDOR:-}" ]; then
    echo "$PHYBIN_GUEST_NATIVE_VENDOR"
    return
  fi
  sed -n 's/^vendor_id[[:space:]]*:[[:space:]]*//p' /proc/cpuinfo 2>/dev/null | head -n 1
}

# guest_inputs DATA_DIR NAME: sets fixed_env (the environment), args and
# stdin_file from NAME.env, NAME.args and NAME.stdin in DATA_DIR.
guest_inputs() {
  local dir="$1" name="$2" line
  fixed_env=("${guest_base_env[@]}" "$guest_tunables")
  if [ -f "$dir/$name.env" ]; then
    while IFS= read -r line || [ -n "$line" ]; do
      case "$line" in '' | '#'*) continue ;; esac
      fixed_env+=("$line")
    done < "$dir/$name.env"
  fi
  args=()
  if [ -f "$dir/$name.args" ]; then
    mapfile -t args < "$dir/$name.args"
  fi
  stdin_file=/dev/null
  if [ -f "$dir/$name.stdin" ]; then
    stdin_file="$dir/$name.stdin"
  fi
}

# guest_run WORK LABEL LIMIT COMMAND...: runs COMMAND with stdin_file in a
# fresh, empty WORK/cwd, saving WORK/LABEL.out, .err and .status (the
# shell's view: 128 + N after death by signal N; timeout(1) re-raises a
# signal that killed its child, so every run reports signals that way).
guest_run() {
  local work="$1" label="$2" limit="$3"
  shift 3
  rm -rf "$work/cwd" && mkdir "$work/cwd" || { echo "FAIL: cannot create $work/cwd"; exit 1; }
  (cd "$work/cwd" && exec timeout --kill-after=10 "$limit" "$@") \
    < "$stdin_file" > "$work/$label.out" 2> "$work/$label.err"
  echo $? > "$work/$label.status"
}

# guest_split_model OUT: OUT.model gets the model lines of OUT, OUT.rest
# everything else, with each model line replaced by a marker so that the
# places of the model lines are compared with the rest.  sed keeps a
# missing final newline missing, so a cut-off last byte still shows.
guest_split_model() {
  LC_ALL=C sed -n "/^$guest_model_prefix/p" "$1" > "$1.model"
  LC_ALL=C sed "s/^$guest_model_prefix.*/${guest_model_prefix}(a line of the .model file)/" "$1" > "$1.rest"
}
