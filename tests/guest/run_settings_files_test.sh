#!/bin/bash
# The settings files (README "Settings"): a system file (PHYBIN_SYSTEM_CONFIG
# here, /etc/phybin.conf by default) under the user's
# (~/.config/phybin/phybin.conf) under the environment; a [PROGRAM]
# section over its file's general lines, by name or absolute path.
# `phybin info PROGRAM` must show each value with its origin, a real run
# must take the program's section, and bad files must be refused with
# PHYBIN_ERR_USAGE naming the file and line (PHYBIN_ERR_FILE_ACCESS for a
# file that cannot be read).
#
# usage: run_settings_files_test.sh PHYBIN_RUNNER HELLO_STATIC
set -u
runner=$1 hello=$2
work=$(mktemp -d "${TMPDIR:-/tmp}/phybin-settings.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/home/.config/phybin"
cp "$hello" "$work/hello_static"
system=$work/system.conf user=$work/home/.config/phybin/phybin.conf
fail=0
problem() {
  echo "FAIL: $*"
  fail=1
}

# phybin with the test's files and nothing else of the caller's.
phybin() {
  (cd "$work" && env -i PATH=/usr/bin:/bin LANG=C HOME="$work/home" PHYBIN_SYSTEM_CONFIG="$system" "$@")
}

# info_line NAME: the settings line of `phybin info hello_static`.
info_line() { grep -E "^  $1 " "$work/info.out"; }
expect_origin() {
  local name=$1 value=$2 origin=$3 line
  line=$(info_line "$name")
  [[ $line == *" $value "*"($origin)"* ]] || problem "$name: want $value from $origin, info says: '$line'"
}

cat >"$system" <<'EOF'
# system settings
PHYBIN_CACHE_SIZE = 32
PHYBIN_TSO = off
PHYBIN_WATCHDOG = 5

[hello_static]
PHYBIN_WATCHDOG = 7
PHYBIN_LOG_LEVEL = 2
[other_program]
PHYBIN_CACHE_SIZE = 16
EOF
cat >"$user" <<EOF
PHYBIN_TSO = strict
PHYBIN_FORWARD = "opencl,hsa"
[$work/hello_static]
PHYBIN_CACHE_SIZE = 48
EOF
phybin PHYBIN_WATCHDOG_ACTION=abort "$runner" info hello_static >"$work/info.out" 2>"$work/info.err" ||
  problem "phybin info failed: $(cat "$work/info.err")"
expect_origin PHYBIN_TSO strict "$user:1"                               # the user's file over the system's
expect_origin PHYBIN_FORWARD opencl,hsa "$user:2"                       # quotes taken off
expect_origin PHYBIN_CACHE_SIZE 48 "$user:4 [$work/hello_static]"     # a section by absolute path
expect_origin PHYBIN_WATCHDOG 7 "$system:7 [hello_static]"            # a section over its file's general line
expect_origin PHYBIN_WATCHDOG_ACTION abort environment                  # the environment over everything
info_line PHYBIN_ROOTFS | grep -q "default$" || problem "PHYBIN_ROOTFS should be the default: $(info_line PHYBIN_ROOTFS)"
grep -q "^code cache: 49152 KiB$" "$work/info.out" || problem "info's code cache line: $(grep '^code cache' "$work/info.out")"
for section in "^host CPU: " "^  LSE " "^x86-64 root: " "^forwarded libraries \(PHYBIN_FORWARD=opencl,hsa\):" \
  "^  hip .*not forwarded \(PHYBIN_FORWARD\)" "^binfmt_misc: " "^settings files: $system $user"; do
  grep -qE "$section" "$work/info.out" || problem "phybin info lacks a line matching: $section"
done

# A real run takes its section (log level 2: the statistics line), and a
# program of another name does not.
phybin "$runner" hello_static >"$work/run.out" 2>"$work/run.err" || problem "hello_static failed: $(cat "$work/run.err")"
grep -q "blocks translated" "$work/run.err" || problem "the [hello_static] section's PHYBIN_LOG_LEVEL = 2 did not apply"
cp "$work/hello_static" "$work/renamed"
phybin "$runner" ./renamed >/dev/null 2>"$work/renamed.err"
grep -q "blocks translated" "$work/renamed.err" && problem "[hello_static] applied to a program named renamed"

# Refusals: each names the file and line, or the variable.
refused() {
  local want_code=$1 text=$2 status
  shift 2
  phybin "$@" "$runner" hello_static >/dev/null 2>"$work/bad.err"
  status=$?
  [[ $status -eq $((0x70 + (want_code & 0xF))) ]] || problem "status $status for: $text"
  grep -qF "$(printf '0x%X' "$want_code")" "$work/bad.err" || problem "no error $want_code for: $text"
  grep -qF -- "$text" "$work/bad.err" || problem "stderr does not say '$text': $(cat "$work/bad.err")"
}
printf 'PHYBIN_TSO = auto\nPHYBIN_CACHE_SIZ = 32\n' >"$user"
refused 0x1000 "$user:2: unknown setting 'PHYBIN_CACHE_SIZ'"
printf '[hello_static]\nPHYBIN_TSO = weak\n' >"$user"
refused 0x1000 "$user:2 [hello_static]: PHYBIN_TSO='weak' must be auto, strict or off"
printf 'PHYBIN_TSO auto\n' >"$user"
refused 0x1000 "$user:1: 'PHYBIN_TSO auto' is neither NAME = VALUE nor a [PROGRAM] section"
printf '[hello_static\n' >"$user"
refused 0x1000 "$user:1: a section is [PROGRAM]"
rm "$user"
refused 0x1000 "PHYBIN_LOG_LEVEL='9' must be 0, 1, 2 or 3" PHYBIN_LOG_LEVEL=9
mkdir "$user"  # a file that cannot be read
refused 0x1007 "$user: cannot read this settings file"
rmdir "$user"

# Out of range: the message says the range.
refused 0x1000 "PHYBIN_CACHE_SIZE='999999999' is too large: at most 120 (MiB)" PHYBIN_CACHE_SIZE=999999999
refused 0x1000 "PHYBIN_CACHE_SIZE='121' is too large: at most 120 (MiB)" PHYBIN_CACHE_SIZE=121
# A system file named but missing is an error naming it; /etc/phybin.conf
# missing is not (the user's file, removed above, is not either).
refused 0x1000 "PHYBIN_SYSTEM_CONFIG='$work/missing.conf' names no settings file: it does not exist" \
  PHYBIN_SYSTEM_CONFIG="$work/missing.conf"

# skipped_run NAME WANT [ENV...]: hello_static runs at log level 2, and its
# stderr says WANT.
skipped_run() {
  local name=$1 want=$2
  shift 2
  phybin PHYBIN_LOG_LEVEL=2 "$@" "$runner" "$work/hello_static" >"$work/$name.out" 2>"$work/$name.err" ||
    problem "$name: hello_static failed: $(head -3 "$work/$name.err")"
  grep -qF -- "$want" "$work/$name.err" || problem "$name: stderr does not say '$want': $(head -3 "$work/$name.err")"
}
skipped_run no-user-file "settings file $work/home/.config/phybin/phybin.conf skipped: it does not exist"

# A HOME whose directory cannot be searched (a service running as nobody
# with HOME=/root): its settings file is skipped, not an error.  As root
# the run drops to nobody; as anyone else a mode-000 directory does it.
private=$work/private
mkdir -p "$private/.config/phybin"
echo 'PHYBIN_CACHE_SIZE = 32' >"$private/.config/phybin/phybin.conf"
chmod 755 "$work" && chmod 755 "$work/hello_static"
if ((EUID == 0)); then
  chmod 700 "$private"
  skipped_run unsearchable "settings file $private/.config/phybin/phybin.conf skipped: a directory on its path cannot be searched" \
    HOME="$private" setpriv --reuid=nobody --regid=nogroup --clear-groups
else
  chmod 000 "$private"
  skipped_run unsearchable "settings file $private/.config/phybin/phybin.conf skipped: a directory on its path cannot be searched" \
    HOME="$private"
  chmod 755 "$private"
fi

# A PHYBIN_* variable phybin does not read: a misspelt setting is warned
# about at log level 1 with the nearest name; the scripts' own variables
# are not, nor is anything said at level 0.
script_vars=(PHYBIN_ARM64_ROOT=/x PHYBIN_REPO=/x PHYBIN_GUEST_CC=cc PHYBIN_HOST_ARCH=x86_64 PHYBIN_BIN=/x
  PHYBIN_JOBS=2 PHYBIN_QEMU_CPU=max PHYBIN_WARM=1 PHYBIN_ENV=x)
phybin PHYBIN_LOG_LEVEL=1 PHYBIN_CACH_SIZE=32 PHYBIN_LOGLEVEL=2 "$runner" hello_static >/dev/null 2>"$work/typo.err"
for want in "PHYBIN_CACH_SIZE is not a phybin setting and is ignored; did you mean PHYBIN_CACHE_SIZE?" \
  "PHYBIN_LOGLEVEL is not a phybin setting and is ignored; did you mean PHYBIN_LOG_LEVEL?"; do
  grep -qF "warning: $want" "$work/typo.err" || problem "no warning '$want': $(head -3 "$work/typo.err")"
done
phybin PHYBIN_LOG_LEVEL=0 PHYBIN_CACH_SIZE=32 "$runner" hello_static >/dev/null 2>"$work/typo0.err"
[[ -s $work/typo0.err ]] && problem "log level 0 said something: $(head -3 "$work/typo0.err")"
phybin PHYBIN_LOG_LEVEL=1 "${script_vars[@]}" "$runner" hello_static >/dev/null 2>"$work/scripts.err"
grep -q "is not a phybin setting" "$work/scripts.err" && problem "a script's variable was warned about: $(cat "$work/scripts.err")"

if ((fail)); then
  echo "--- phybin info"
  cat "$work/info.out"
  exit 1
fi
echo "PASS: settings files: system < user < environment, sections by name and path, refusals name file and line;" \
  "absent and hidden files skipped, misspelt variables warned about, ranges said"
