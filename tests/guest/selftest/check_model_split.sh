#!/bin/bash
# Checks run_guest_test.sh's handling of `model: ` lines with a stand-in
# guest (a shell script) and a stand-in runner, on made-up .model files:
# which disagreements fail, and which build CPU vendor checks the native
# run's model lines.  Needs no build; takes a second.
#
# usage: tests/guest/selftest/check_model_split.sh
set -u
here="$(cd "$(dirname "$0")" && pwd)"
run_test="$here/../run_guest_test.sh"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
failures=0

# The guest prints "model: NATIVE" natively and "model: RUNNER" under the
# runner ("-": no model line, "@X": X before the first line), between two
# ordinary lines; the runner tells it apart by a variable the guest must
# otherwise not see.
cat > "$tmp/guest" <<'EOF'
#!/bin/sh
line="$1"
[ -n "${SELFTEST_UNDER_RUNNER:-}" ] && line="$2"
case "$line" in @*) echo "model: ${line#@}"; line=- ;; esac
echo "first line"
[ "$line" = - ] || echo "model: $line"
echo "last line"
EOF
printf '#!/bin/sh\nexport SELFTEST_UNDER_RUNNER=1\nexec "$@"\n' > "$tmp/runner"
chmod +x "$tmp/guest" "$tmp/runner"
mkdir "$tmp/data"

# case NAME VENDOR NATIVE RUNNER MODEL EXPECT [TEXT]: runs the guest as
# test NAME with the build CPU taken for VENDOR; MODEL is the .model
# file's line ("-": no file).  EXPECT pass or fail; TEXT must be in the
# output.
case_() {
  local name="$1" vendor="$2" native="$3" runner="$4" model="$5" expect="$6" text="${7:-}"
  printf '%s\n%s\n' "$native" "$runner" > "$tmp/data/$name.args"
  rm -f "$tmp/data/$name.model"
  [ "$model" = - ] || echo "model: $model" > "$tmp/data/$name.model"
  local out got=pass
  out="$(PHYBIN_GUEST_NATIVE_VENDOR="$vendor" PHYBIN_GUEST_RUNNER="$tmp/runner" \
    bash "$run_test" --runner /bin/false --data-dir "$tmp/data" --name "$name" -- "$tmp/guest" 2>&1)" || got=fail
  if [ "$got" != "$expect" ]; then
    echo "BAD  $name: expected $expect, got $got"
    sed 's/^/    /' <<<"$out" | head -n 20
    failures=$((failures + 1))
  elif [ -n "$text" ] && ! grep -qF -- "$text" <<<"$out"; then
    echo "BAD  $name: the output does not say '$text'"
    sed 's/^/    /' <<<"$out" | head -n 20
    failures=$((failures + 1))
  else
    echo "ok   $name: $got"
  fi
}

intel=GenuineIntel amd=AuthenticAMD
case_ agree_intel $intel A A A pass "build CPU GenuineIntel: native model lines checked too"
case_ agree_amd $amd A A A pass "build CPU AuthenticAMD: model lines checked against agree_amd.model only"
case_ native_differs_intel $intel B A A fail "native run's model lines differ"
case_ native_differs_amd $amd B A A pass "checked against native_differs_amd.model only"
case_ runner_differs_intel $intel A B A fail "model lines of the phybin run differ"
case_ runner_differs_amd $amd A B A fail "model lines of the phybin run differ"
case_ runner_omits_line $amd A - A fail
case_ runner_moves_line $amd A @A A fail "stdout of the phybin run differs"
case_ no_model_file $intel A A - fail "there is no"
case_ stale_model_file $amd - - A fail "printed no model lines"
case_ no_model_lines_at_all $amd - - - pass "no model lines"

if [ "$failures" -ne 0 ]; then
  echo "model-line check: $failures case(s) behaved unexpectedly"
  exit 1
fi
echo "model-line check: all cases behaved as expected"
