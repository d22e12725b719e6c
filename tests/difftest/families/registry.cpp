// The explicit list of families.  A family phybin cannot translate yet is
// listed with in_default_list = false: `--family NAME` still runs it, the
// default list and ctest do not (README.md: "Adding a family").
#include "families.h"

namespace difftest {

const std::vector<Family>& all_families() {
  static const std::vector<Family> families = {
      {"alu", nullptr, true, nullptr, step_alu, 1, 12, "add/or/adc/sbb/and/sub/xor/cmp/test, all forms and widths"},
      {"carry", nullptr, true, nullptr, step_carry, 2, 12, "adc/sbb chains, inc/dec/neg/not, stc/clc/cmc"},
      {"extend", nullptr, true, nullptr, step_extend, 1, 10, "cbw..cqo, movsx/movzx/movsxd, lea, mov, lahf/sahf"},
      {"exchange", nullptr, true, nullptr, step_exchange, 1, 8, "xchg, cmpxchg (lock), xadd"},
      {"cmpxchg8b16b", "cx16", false, nullptr, step_cmpxchg16b, 1, 4, "cmpxchg8b, cmpxchg16b (not translated yet)"},
  };
  return families;
}

const Family* find_family(const std::string& name) {
  for (const Family& f : all_families())
    if (name == f.name) return &f;
  return nullptr;
}

}  // namespace difftest
