# Sums, associative arrays and printf over a column of numbers.
{ total += $1; bucket[$1 % 10]++; if ($1 > max) max = $1 }
END {
  printf "n=%d total=%d max=%d mean=%.6f\n", NR, total, max, total / NR
  for (k = 0; k < 10; k++) printf "%d:%d ", k, bucket[k]
  print ""
  print toupper(sprintf("%x", total)), substr("translation", 3, 5), index("phybin", "bin")
}
