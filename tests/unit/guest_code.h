// Guest x86-64 code in a buffer of the test process, for tests of the IR
// the frontend makes of a few instructions.  Bytes not given are int3, so
// falling off the code keeps flags live instead of making them dead.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <initializer_list>

#include "ir/ir.h"
#include "x86/frontend.h"

namespace phybin::x86 {

class GuestCode {
 public:
  GuestCode(std::initializer_list<uint8_t> code) {
    bytes_.fill(0xcc);
    std::copy(code.begin(), code.end(), bytes_.begin());
  }
  uint64_t addr() const { return reinterpret_cast<uint64_t>(bytes_.data()); }
  // The block of the first `max_insns` instructions, which must pass the
  // IR verifier.
  ir::Block translate(const FrontendOptions& options = {}, unsigned max_insns = 1) const {
    ir::Block b = Frontend(Hooks{}, options).translate(addr(), max_insns);
    EXPECT_EQ(ir::verify(b), "") << ir::print_block(b);
    return b;
  }

 private:
  alignas(16) std::array<uint8_t, 64> bytes_;
};

}  // namespace phybin::x86
