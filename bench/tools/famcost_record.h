// The instruction-count record (issue 25): famcost's counts for every
// sample, kept in a file under version control, and the check that fails
// when a count grows, so that code can only get longer on purpose: the
// commit that makes it longer also rewrites the record.
#pragma once

#include <cstddef>
#include <istream>
#include <string>
#include <vector>

#include "famcost.h"

namespace phybin::famcost {

// A check of a record with fewer forms fails: the record is meant to cover
// the common instruction forms, and a table cut short must not pass.
constexpr size_t kMinRecordForms = 200;

struct Entry {
  std::string family;
  std::string text;  // as in Sample::text
  bool translated = false;
  long flags_dead = 0;
  long zf_live = 0;
  long emitted = 0;
};

// Every sample's counts, in table order.
std::vector<Entry> measure_all(const Meter& meter);

// The record file: its header (columns, how to regenerate) and one line per
// entry.
std::string format_record(const std::vector<Entry>& entries);

// The entries of a record file.  Throws std::runtime_error naming the line
// when one is neither a comment nor a row.
std::vector<Entry> parse_record(std::istream& in);

struct Verdict {
  std::vector<std::string> failures;  // a count grew, a form is missing, ...
  std::vector<std::string> notes;     // forms that got cheaper
};

Verdict check_record(const std::vector<Entry>& recorded, const std::vector<Entry>& current);

}  // namespace phybin::famcost
