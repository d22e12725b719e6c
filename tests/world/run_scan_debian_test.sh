#!/bin/bash
# phybin scan on every ELF file of Debian's amd64 python3 (the interpreter
# and its lib-dynload modules), libstdc++6 and libssl3 (libcrypto, libssl,
# the engines and the legacy provider), in the amd64 root: each must come
# out "runs", as the world tests running them (python3, python3_ssl,
# openssl; rocminfo, a C++ program, in the forwarding tests) show.  The
# guarded instructions (AVX2, AVX-512, RDRAND... behind CPU checks) are
# counted, so that a scanner that stopped seeing them would show.
set -u
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
source "$here/../../scripts/lib.sh"
root=$PHYBIN_AMD64_ROOT
[[ -x $root/usr/bin/python3.11 ]] || die "no amd64 root at $root; run scripts/bootstrap"
lib=$root/usr/lib/x86_64-linux-gnu
files=("$root/usr/bin/python3.11" "$root/usr/lib/python3.11/lib-dynload" "$lib/libstdc++.so.6.0.30"
       "$lib/libcrypto.so.3" "$lib/libssl.so.3" "$lib/engines-3" "$lib/ossl-modules")
out=$(mktemp /tmp/phybin-scan-debian.XXXXXX) || exit 1
trap 'rm -f "$out"' EXIT
start=$(date +%s.%N)
env PHYBIN_ROOTFS="$root" PHYBIN_CACHE_DIR=off "$PHYBIN_REPO/scripts/phybin" scan --json "${files[@]}" >"$out"
status=$?
end=$(date +%s.%N)
python3 - "$out" "$status" "$start" "$end" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
status, seconds = int(sys.argv[2]), float(sys.argv[4]) - float(sys.argv[3])
files = d["files"]
fail = []
for f in files:
    guarded = sum(1 for i in f["untranslatable"] if i["guarded"])
    missing = [l["name"] for l in f["libraries"] if l["state"] == "missing"]
    print(f"{f['path'].split('/')[-1]}: {f['verdict'][:90]} [{f['code_bytes']} code bytes, {guarded} guarded]")
    if not f["runs"] or missing:
        fail.append(f["path"])
by_name = {f["path"].split("/")[-1]: f for f in files}
def guarded(name):
    return sum(1 for i in by_name[name]["untranslatable"] if i["guarded"])
if len(files) < 50:
    fail.append(f"only {len(files)} files scanned")
if guarded("libcrypto.so.3") < 1000:
    fail.append("libcrypto.so.3: its AVX2/AVX-512 code is not seen as guarded")
if guarded("libstdc++.so.6.0.30") < 1:
    fail.append("libstdc++: random_device's rdrand is not seen as guarded")
if status != 0 or not d["all_run"] or d["errors"]:
    fail.append(f"exit status {status}, all_run {d['all_run']}, errors {d['errors']}")
code = sum(f["code_bytes"] for f in files)
print(f"{len(files)} files, {code / 1e6:.1f} MB of code, scanned in {seconds:.1f} s (under qemu on this machine)")
if fail:
    print("FAIL:", *fail, sep="\n  ")
    sys.exit(1)
print("PASS: every ELF file of python3, libstdc++6 and libssl3 runs, by the scan as by the world tests")
PY
