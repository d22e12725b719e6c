.items | map(select(.qty > 2) | {name, total: (.price * .qty)}) | sort_by(.total) | reverse | .[:3]
