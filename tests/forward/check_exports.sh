#!/usr/bin/env bash
# check_exports.sh GUEST_SIDE NATIVE: the guest side of a forwarded library
# exports exactly the native library's functions and data objects, each at
# its version (objects with their sizes).
set -uo pipefail
exports() {
  readelf --dyn-syms -W "$1" | awk '$4 == "FUNC" && $7 != "UND" { print $8 }
    $4 == "OBJECT" && $7 != "UND" && $7 != "ABS" { print $8, "object of", $3, "bytes" }' | sort
}
guest=$(exports "$1") native=$(exports "$2")
if [[ -z $native || $guest != "$native" ]]; then
  echo "FAIL: $1 and $2 export different functions, objects or versions:"
  diff <(printf '%s\n' "$guest") <(printf '%s\n' "$native") | head -20
  exit 1
fi
echo "PASS: $(wc -l <<<"$guest") functions and objects, names and versions as in $2"
