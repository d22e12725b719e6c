#!/bin/bash
# Checks the guest-test harness itself, without phybin: runs the guest and
# bad-input ctests of a configured and built host build directory with
# stand-in runners and verifies which tests pass and which fail.
#
# usage: tests/guest/selftest/check_harness.sh BUILD_DIR
# (BUILD_DIR configured with -DPHYBIN_TESTS=ON and `ninja guest_programs`
# done.)  Takes a few minutes: every scenario runs all guest tests.  The
# model-line cases are in check_model_split.sh, which runs first.
set -u
build="${1:?usage: check_harness.sh BUILD_DIR}"
here="$(cd "$(dirname "$0")" && pwd)"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
log="$tmp/ctest.log"
failures=0

# The harness runs its runner under `env -i`: a stand-in's mode is baked
# into a small wrapper script instead of being passed in the environment.
# make_runner NAME VAR=VAL TARGET
make_runner() {
  printf '#!/bin/sh\nexport %s\nexec "%s" "$@"\n' "$2" "$3" > "$tmp/$1"
  chmod +x "$tmp/$1"
  echo "$tmp/$1"
}

# should_fail EXPECT TEST: whether TEST must fail under EXPECT, one of
# all-pass, all-fail, fail-only:REGEX, fail-except:REGEX.
should_fail() {
  case "$1" in
    all-pass) return 1 ;;
    all-fail) return 0 ;;
    fail-only:*) grep -qE "${1#fail-only:}" <<<"$2" ;;
    fail-except:*) ! grep -qE "${1#fail-except:}" <<<"$2" ;;
  esac
}

# The warm tests need phybin's own log of saved and loaded translations,
# which no stand-in writes: they are left out.
stand_in_exclude='^guest\.warm\.'
# The programs that die by a signal natively, all of them and by SIGSEGV.
signal_tests='^guest\.(crash_[a-z_]+|intext_ops|sse_misaligned|sse_fp_traps|x87_sigfpe)\.'
segv_tests='^guest\.(crash_segv|intext_ops|sse_misaligned)\.'

# scenario LABEL EXPECT DESCRIPTION RUNNER
# A test that ends any other way than Passed, Failed or disabled (not run,
# timeout) always counts as unexpected.
scenario() {
  local label="$1" expect="$2" what="$3" runner="$4"
  PHYBIN_GUEST_RUNNER="$runner" ctest --test-dir "$build" -j2 -L "$label" -E "$stand_in_exclude" > "$log" 2>&1
  local passed failed unexpected=0 total=0
  passed=$(grep -E 'Test +#[0-9]+: [^ ]+ \.+ +Passed' "$log" | sed -E 's/.*Test +#[0-9]+: ([^ ]+) .*/\1/')
  failed=$(grep -E 'Test +#[0-9]+: [^ ]+ \.+\*\*\*Failed' "$log" | sed -E 's/.*Test +#[0-9]+: ([^ ]+) .*/\1/')
  local others
  others=$(grep -E 'Test +#[0-9]+: ' "$log" | grep -vE '\.+ +Passed|\.+\*\*\*Failed|Not Run \(Disabled\)')
  if [ -n "$others" ]; then
    echo "$others" | sed 's/^/    not passed or failed: /'
    unexpected=$((unexpected + $(grep -c . <<<"$others")))
  fi
  for t in $passed; do
    total=$((total + 1))
    if should_fail "$expect" "$t"; then
      unexpected=$((unexpected + 1))
      echo "    unexpected pass: $t"
    fi
  done
  for t in $failed; do
    total=$((total + 1))
    if ! should_fail "$expect" "$t"; then
      unexpected=$((unexpected + 1))
      echo "    unexpected failure: $t"
    fi
  done
  local npass nfail
  npass=$(grep -c . <<<"$passed")
  nfail=$(grep -c . <<<"$failed")
  if [ "$unexpected" -eq 0 ] && [ "$total" -gt 0 ]; then
    echo "ok   $label: $what: $npass passed, $nfail failed ($expect)"
  else
    echo "BAD  $label: $what: $npass passed, $nfail failed, $unexpected unexpected ($expect)"
    failures=$((failures + 1))
  fi
}

# run_guest_test.sh's model-line logic on made-up cases first (a second).
if "$here/check_model_split.sh" > "$log" 2>&1; then
  echo "ok   model lines: $(tail -n 1 "$log")"
else
  cat "$log"
  failures=$((failures + 1))
fi

scenario guest all-pass "native, exec from sh" "$here/native_exec.sh"
scenario guest all-pass "native, child of bash" "$here/native_wrapped.sh"
scenario guest all-pass "fake phybin running programs natively" "$here/fake_phybin.sh"
for mode in flip append truncate status; do
  scenario guest all-fail "output spoiled: $mode" \
    "$(make_runner "corrupt-$mode" "PHYBIN_SELFTEST_CORRUPT=$mode" "$here/corrupting.sh")"
done
# Right output, then death by SIGSEGV: exactly what crash_segv, intext_ops
# and sse_misaligned do natively.
scenario guest "fail-except:$segv_tests" "runner dying of SIGSEGV" \
  "$(make_runner corrupt-segv PHYBIN_SELFTEST_CORRUPT=segv "$here/corrupting.sh")"
scenario guest "fail-only:$signal_tests" "signal N reported as exit code N" \
  "$(make_runner corrupt-signal-code PHYBIN_SELFTEST_CORRUPT=signal-code "$here/corrupting.sh")"
# A spoiled model line: exactly the programs with a .model file fail,
# whichever vendor the build CPU is taken for; with the build CPU taken for
# AMD's, the native model lines are not checked and all pass.
model_progs="$(cd "$here/../programs" && ls ./*.model 2>/dev/null | sed 's|^\./||; s|\.model$||' | paste -sd '|')"
model_tests="fail-only:^guest\.(warm\.)?($model_progs)(\.|$)"
scenario guest "$model_tests" "a model line spoiled" \
  "$(make_runner corrupt-model PHYBIN_SELFTEST_CORRUPT=model "$here/corrupting.sh")"
export PHYBIN_GUEST_NATIVE_VENDOR=AuthenticAMD
scenario guest all-pass "build CPU taken for AuthenticAMD" "$here/fake_phybin.sh"
scenario guest "$model_tests" "a model line spoiled, build CPU taken for AuthenticAMD" \
  "$(make_runner corrupt-model PHYBIN_SELFTEST_CORRUPT=model "$here/corrupting.sh")"
if "$here/../make_model_files.sh" --check "$build" > "$log" 2>&1; then
  echo "BAD  make_model_files.sh does not refuse on a build CPU taken for AuthenticAMD"
  failures=$((failures + 1))
else
  echo "ok   make_model_files.sh refuses on a build CPU taken for AuthenticAMD"
fi
unset PHYBIN_GUEST_NATIVE_VENDOR
if [ "$(grep -m1 '^vendor_id' /proc/cpuinfo | sed 's/.*: *//')" = GenuineIntel ]; then
  if "$here/../make_model_files.sh" --check "$build" > "$log" 2>&1; then
    echo "ok   make_model_files.sh --check: the .model files agree with this CPU"
  else
    grep -v 'up to date' "$log" | sed 's/^/    /'
    echo "BAD  make_model_files.sh --check: the .model files are not what this CPU prints"
    failures=$((failures + 1))
  fi
fi

scenario badinput all-pass "fake phybin refusing bad files" "$here/fake_phybin.sh"
scenario badinput all-fail "native run of bad files" "$here/native_exec.sh"
scenario badinput all-fail "refusals without the hex code" \
  "$(make_runner fake-no-code PHYBIN_SELFTEST_FAKE_MODE=no-code "$here/fake_phybin.sh")"
scenario badinput all-fail "refusals with exit status 1" \
  "$(make_runner fake-exit1 PHYBIN_SELFTEST_FAKE_MODE=exit1 "$here/fake_phybin.sh")"
scenario badinput all-fail "runner dying of SIGSEGV" \
  "$(make_runner corrupt-segv PHYBIN_SELFTEST_CORRUPT=segv "$here/corrupting.sh")"
if PHYBIN_GUEST_RUNNER="$(make_runner fake-no-detail PHYBIN_SELFTEST_FAKE_MODE=no-detail "$here/fake_phybin.sh")" \
  ctest --test-dir "$build" -R '^badinput\.avx2_instruction$' > "$log" 2>&1; then
  echo "BAD  badinput.avx2_instruction passes without AVX2/vpaddd on stderr"
  failures=$((failures + 1))
else
  echo "ok   badinput.avx2_instruction fails without AVX2/vpaddd on stderr"
fi

if [ "$failures" -ne 0 ]; then
  echo "harness check: $failures scenario(s) behaved unexpectedly"
  exit 1
fi
echo "harness check: all scenarios behaved as expected"
