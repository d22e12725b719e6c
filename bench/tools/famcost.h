// famcost: what phybin's translation of typical instructions of each x86
// instruction family costs in emitted AArch64 instructions.  The samples
// are the rows of famcost_samples.S; the meter translates each in a small
// block of its own and subtracts the cost of the same block without it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace phybin::famcost {

// The condition of jz (0F 84), the jcc a sample's flags are read by unless
// its row names another.
constexpr uint8_t kCondZ = 0x4;

struct Sample {
  std::string family;
  std::string text;  // Intel syntax, ", " between operands
  std::vector<uint8_t> bytes;
  // The condition (low nibble of the jcc opcode) of the jcc that reads the
  // flags in Cost::zf_live: a BRANCH row's own, else jz.  Not in `bytes`:
  // the meter places it as it places jz.
  uint8_t live_cond = kCondZ;
};

// Every row of famcost_samples.S, in table order.
const std::vector<Sample>& samples();
// The sample whose text is `text`; nullptr when there is none.
const Sample* find_sample(const std::string& text);

struct Cost {
  bool translated = false;  // false: the frontend or backend refused it
  std::string error;        // why not, when not translated
  // AArch64 instructions the instruction adds to its block on the block's
  // fast path (taking no conditional branch: slow paths such as a
  // misaligned movdqa's fault or the NaN fix-up of SSE arithmetic are out of
  // line behind one), with the flags it writes dead (a `jmp` follows) and
  // with ZF read by a following `jz` (compared with a lone `jz`, which reads
  // ZF from the guest state); for a BRANCH row, its own jcc in place of jz.
  long flags_dead = 0;
  long zf_live = 0;
  // All the AArch64 instructions it adds, slow paths included (flags dead).
  long emitted = 0;
  bool helper = false;      // calls C++ (its real cost is the helper's own)
};

// The length of the path through `code` that takes no conditional branch
// and follows unconditional ones inside it, up to the first branch out of
// it (or back to a word already counted).
long fast_path_words(const std::vector<uint32_t>& code);

class Meter {
 public:
  Meter();
  ~Meter();
  Cost measure(const std::vector<uint8_t>& insn, uint8_t live_cond = kCondZ) const;
  Cost measure(const Sample& s) const { return measure(s.bytes, s.live_cond); }
  // The AArch64 code of the last block measure() compiled (the instruction
  // with its flags dead), to read with a disassembler.
  std::vector<uint32_t> last_block() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace phybin::famcost
