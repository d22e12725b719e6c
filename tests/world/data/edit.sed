s/translat\([a-z]*\)/TRANSLAT\1/g
/^Flags/d
/cache/{
  s/^/>> /
}
$a\
-- end --
