// Comparing final states: everything bit for bit except the flags a
// sequence leaves undefined and the tolerances a case asks for.
#pragma once

#include <string>
#include <vector>

#include "gen.h"

namespace difftest {

// The differences between the native and the phybin final state of `c`
// after its first `count` instructions (one line each, empty: equal).
std::vector<std::string> compare_states(const Case& c, size_t count, const dt_state& native, const dt_state& phybin);

// True when the final MXCSRs differ in flags the case does not compare
// (counted in the summary, so that they stay visible).
bool ignored_mxcsr_difference(const Case& c, const dt_state& native, const dt_state& phybin);

// A readable dump of a state (GPRs, flags, FPU, XMM, memory that differs
// from `reference` when given).
std::string format_state(const dt_state& s, const dt_state* reference);

}  // namespace difftest
