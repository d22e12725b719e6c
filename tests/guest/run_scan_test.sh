#!/bin/bash
# phybin scan against running: the kernel of scan/kernel.c built with AVX2
# everywhere must be "will not run" and stop phybin with 0x1003, built with
# target_clones or __builtin_cpu_supports it must be "runs" and print under
# phybin what it prints natively (stripped too).  Then the command's other
# promises: exit statuses, JSON (doc/scan-schema.md), directories, a wheel,
# and bad input (missing, not ELF, another machine's ELF, damaged files).
#
# usage: run_scan_test.sh PHYBIN_RUNNER KERNEL_DIR BAD_DIR [OPENCL_PROGRAM]
set -u
runner=$1 kernels=$2 bad=$3 opencl=${4:-}
work=$(mktemp -d "${TMPDIR:-/tmp}/phybin-scan.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT
fail=0
failed() { echo "FAIL: $*"; fail=1; }
scan() { env -i PATH=/usr/bin:/bin HOME="$work" PHYBIN_CACHE_DIR=off "$runner" scan "$@"; }

# json FILE EXPR: prints python3's value of EXPR with d = the JSON document.
json() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print($2)" "$1"; }

# --- verdicts that agree with runs ---
native=""
if [[ $(uname -m) == x86_64 ]]; then native=$("$kernels/kernel_clones"); fi
for k in avx2 clones cpucheck avx2_stripped clones_stripped cpucheck_stripped avx2_dyn clones_dyn; do
  f=$kernels/kernel_$k
  scan --json "$f" >"$work/$k.json"
  status=$?
  runs=$(json "$work/$k.json" "d['files'][0]['runs']")
  unconditional=$(json "$work/$k.json" "sum(1 for i in d['files'][0]['untranslatable'] if not i['guarded'])")
  guarded=$(json "$work/$k.json" "sum(1 for i in d['files'][0]['untranslatable'] if i['guarded'])")
  echo "kernel_$k: scan exit $status, runs $runs, $unconditional unconditional and $guarded guarded instructions"
  case $k in
    avx2*)
      [[ $status == 1 && $runs == False && $unconditional -gt 0 ]] || failed "kernel_$k is not 'will not run'"
      [[ $k == avx2 ]] && { json "$work/$k.json" "[i['function'] for i in d['files'][0]['untranslatable'] if not i['guarded']]" |
        grep -q "'main" || failed "kernel_avx2: main is not named among the unconditional instructions"; } ;;
    *)
      [[ $status == 0 && $runs == True && $unconditional == 0 && $guarded -gt 0 ]] || failed "kernel_$k is not 'runs' with guarded AVX2"
  esac
  [[ $k == *_dyn ]] && continue  # dynamic: run by the world tests' machinery, not here
  out=$(timeout 600 "$runner" "$f" 2>"$work/$k.err")
  status=$?
  if [[ $k == avx2* ]]; then
    [[ $status == 115 ]] && grep -q "0x1003" "$work/$k.err" || failed "kernel_$k under phybin: exit $status, not 0x1003: $(head -c 300 "$work/$k.err")"
  else
    [[ $status == 0 ]] || failed "kernel_$k under phybin: exit $status"
    [[ -z $native || $out == "$native" ]] || failed "kernel_$k under phybin printed '$out', natively '$native'"
    [[ -n $out ]] || failed "kernel_$k printed nothing"
  fi
done
grep -q "IFUNC" "$work/clones.json" || failed "kernel_clones: no guard names the IFUNC resolver"
grep -q "checks the CPU (main)" "$work/cpucheck.json" || failed "kernel_cpucheck: no guard names main's check"

# --- the text: the functions phybin cannot translate all of, then the instructions ---
scan "$kernels/kernel_avx2" >"$work/avx2.txt"
grep -qE "^  function main at 0x[0-9a-f]+: [0-9]+ instructions phybin cannot translate \(x86-64-v3, AVX2?\), unconditional$" \
  "$work/avx2.txt" || failed "kernel_avx2's text does not name main as a function phybin cannot translate: $(head -4 "$work/avx2.txt")"
grep -qE "^  0x[0-9a-f]+ <main\+0x[0-9a-f]+>: v[a-z0-9]+ .*unconditional$" "$work/avx2.txt" ||
  failed "kernel_avx2's text lists no instruction of main"

# --- the JSON document ---
for key in schema translated_level all_run files skipped errors; do
  json "$work/clones.json" "'$key' in d" | grep -q True || failed "JSON lacks $key"
done
for key in path kind runs verdict isa_level interpreter libraries functions untranslatable code_bytes instructions; do
  json "$work/avx2.json" "'$key' in d['files'][0]" | grep -q True || failed "JSON file entry lacks $key"
done
[[ $(json "$work/avx2_dyn.json" "[l['state'] for l in d['files'][0]['libraries'] if l['name'] == 'libc.so.6']") == "['found']" ]] ||
  failed "kernel_avx2_dyn: libc.so.6 not found"
[[ $(json "$work/avx2.json" "d['files'][0]['isa_level']['needed']") == x86-64-v3 ]] || failed "kernel_avx2 does not need x86-64-v3"

# --- a forwarded library: libOpenCL.so.1 goes to the host's, unless PHYBIN_FORWARD=none ---
if [[ -n $opencl && -e $opencl ]]; then
  state() { json "$work/cl.json" "[l['state'] for l in d['files'][0]['libraries'] if l['name'] == 'libOpenCL.so.1']"; }
  scan --json "$opencl" >"$work/cl.json"
  [[ $(state) == "['forwarded']" ]] || failed "$opencl: libOpenCL.so.1 is $(state), not forwarded"
  env -i PATH=/usr/bin:/bin HOME="$work" PHYBIN_FORWARD=none "$runner" scan --json "$opencl" >"$work/cl.json"
  [[ $(state) != "['forwarded']" ]] || failed "$opencl: libOpenCL.so.1 forwarded with PHYBIN_FORWARD=none"
  echo "$(basename "$opencl"): libOpenCL.so.1 forwarded, and with PHYBIN_FORWARD=none $(state)"
fi

# --- several files, a directory, a wheel ---
scan "$kernels/kernel_clones" "$kernels/kernel_cpucheck" >"$work/two.txt"
[[ $? == 0 ]] && grep -q "2 x86-64 files: 2 will run, 0 will not" "$work/two.txt" || failed "two runnable files: $(tail -1 "$work/two.txt")"
mkdir -p "$work/dir/sub"
cp "$kernels/kernel_clones" "$work/dir/sub/"
echo "not a program" >"$work/dir/notes.txt"
[[ -e $bad/hello_aarch64 ]] && cp "$bad/hello_aarch64" "$work/dir/"
scan "$work/dir" >"$work/dir.txt"
status=$?
[[ $status == 0 ]] && grep -q "^1 x86-64 file: 1 will run" "$work/dir.txt" || failed "directory: exit $status, $(tail -1 "$work/dir.txt")"
[[ ! -e $bad/hello_aarch64 ]] || grep -q "skipped" "$work/dir.txt" || failed "directory: the AArch64 file is not said skipped"
(cd "$work" && cp "$kernels/kernel_avx2" . && cp "$kernels/kernel_clones" . && python3 - <<'EOF'
import zipfile
with zipfile.ZipFile("kernel-1.0-py3-none-linux_x86_64.whl", "w") as z:
    z.write("kernel_avx2", "kernel/kernel_avx2", compress_type=zipfile.ZIP_DEFLATED)
    z.write("kernel_clones", "kernel/kernel_clones", compress_type=zipfile.ZIP_STORED)
    z.writestr("kernel-1.0.dist-info/METADATA", "Name: kernel\n")
EOF
)
whl=$work/kernel-1.0-py3-none-linux_x86_64.whl
scan "$whl" >"$work/whl.txt"
status=$?
cat "$work/whl.txt" | cut -c1-160
[[ $status == 1 ]] || failed "wheel: exit $status, not 1"
grep -q "whl!kernel/kernel_avx2: will not run" "$work/whl.txt" || failed "wheel: kernel_avx2 is not 'will not run'"
grep -q "whl!kernel/kernel_clones: runs" "$work/whl.txt" || failed "wheel: kernel_clones is not 'runs'"

# --- bad input: phybin's error line and status, the other files scanned all the same ---
# expect NAME STATUS CODE TEXT FILE...
expect() {
  local name=$1 want=$2 code=$3 text=$4
  shift 4
  scan "$@" >"$work/out" 2>"$work/err"
  local status=$?
  if [[ $status != "$want" ]] || ! grep -q "error $code" "$work/err" || ! grep -qi -- "$text" "$work/err"; then
    failed "$name: exit $status (want $want), stderr: $(head -c 300 "$work/err")"
  else
    echo "$name: exit $status, $(head -1 "$work/err" | cut -c1-140)"
  fi
}
expect missing 119 0x1007 "no such file" "$work/nonexistent"
expect not_elf 113 0x1001 "not an ELF file" "$work/dir/notes.txt"
[[ -e $bad/hello_aarch64 ]] && expect aarch64 113 0x1001 "AArch64" "$bad/hello_aarch64"
expect truncated 120 0x1008 "cut short" "$bad/truncated_100"
expect phoff 120 0x1008 "program headers" "$bad/phoff_beyond_file"
head -c 3000 "$whl" >"$work/damaged.whl"
expect damaged_wheel 120 0x1008 "zip" "$work/damaged.whl"
expect with_good_file 119 0x1007 "no such file" "$work/nonexistent" "$kernels/kernel_clones"
grep -q "kernel_clones: runs" "$work/out" || failed "a missing file stopped the scan of the next one"
scan --frobnicate "$work" >/dev/null 2>"$work/err"
[[ $? == 112 ]] && grep -q "0x1000" "$work/err" || failed "an unknown option is not PHYBIN_ERR_USAGE"
scan >/dev/null 2>"$work/err"
[[ $? == 112 ]] || failed "scan without files is not PHYBIN_ERR_USAGE"

((fail)) && exit 1
echo "PASS: verdicts agree with runs for 8 builds of the kernel; JSON, directory, wheel and 9 bad inputs as documented"
