// A batch of cases: assembled into one case file (with gas), run by the
// harness natively and under phybin, final states read back.
#pragma once

#include <string>
#include <vector>

#include "gen.h"

namespace difftest {

struct Tools {
  std::string harness;  // the static x86-64 harness program
  std::string runner;   // command that runs an x86-64 program under phybin (scripts/phybin)
  std::string workdir;  // scratch files
};

// Assembles the cases' instructions between the state-loading prologue and
// the jump to the shared epilogue; writes the case file.  Throws with gas's
// message when an instruction does not assemble.
void write_case_file(const std::vector<Case>& cases, const std::string& path, const std::string& scratch);

// Machine code of one instruction line (for reports).
std::vector<uint8_t> assemble_line(const std::string& text, const std::string& scratch);

// Runs the harness on a case file natively (runner empty) or under the
// runner; returns the final states.  Throws when the harness fails.
std::vector<dt_state> run_cases(const Tools& tools, const std::string& case_file, bool under_phybin,
                                const std::string& tag);

// The signal recorded for a case in which the phybin run died (phybin
// crashed, hung or stopped with an error of its own).
constexpr uint64_t kPhybinDied = 1000;

// Runs `cases` (already written to case_file) under phybin.  When the run
// dies, the states of the cases before the one it died in are kept, that
// case gets the signal kPhybinDied and the cases after it run again in a
// new case file.  Throws when phybin produces no result file at all.
std::vector<dt_state> run_cases_surviving(const Tools& tools, const std::vector<Case>& cases,
                                          const std::string& case_file, const std::string& scratch,
                                          const std::string& tag);

}  // namespace difftest
