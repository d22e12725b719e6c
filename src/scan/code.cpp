#include "scan/code.h"

#include <Zydis/Zydis.h>

#include <algorithm>
#include <atomic>
#include <thread>

#include "x86/decoder.h"
#include "x86/frontend.h"

namespace phybin::scan {

namespace {

// Bytes between functions are cut into pieces of about this size, so that
// a file without function extents still decodes on every thread.
constexpr uint64_t kPieceBytes = 256 * 1024;

struct Item {
  uint64_t begin = 0, end = 0;
  const CodeSection* section = nullptr;
  bool function = false;
};

struct ItemResult {
  std::vector<Unit> units;
  std::vector<Finding> findings;
  std::vector<Reference> refs;
  uint64_t instructions = 0, undecodable = 0;
};

// Control does not fall through: a run of instructions ends.
bool ends_run(ZydisMnemonic m) {
  return m == ZYDIS_MNEMONIC_RET || m == ZYDIS_MNEMONIC_JMP || m == ZYDIS_MNEMONIC_UD2 || m == ZYDIS_MNEMONIC_HLT;
}

// The work: each known function, and the bytes between them in pieces.
std::vector<Item> work_items(const Image& image) {
  std::vector<Item> items;
  auto add_between = [&](const CodeSection& s, uint64_t begin, uint64_t end) {
    for (uint64_t at = begin; at < end; at += kPieceBytes)
      items.push_back(Item{at, std::min(end, at + kPieceBytes), &s, false});
  };
  for (const CodeSection& s : image.code) {
    const uint64_t end = s.address + s.size;
    uint64_t at = s.address;
    auto f = std::lower_bound(image.functions.begin(), image.functions.end(), s.address,
                              [](const Extent& e, uint64_t a) { return e.end <= a; });
    for (; f != image.functions.end() && f->begin < end; ++f) {
      const uint64_t begin = std::max(f->begin, s.address);
      if (begin > at) add_between(s, at, begin);
      at = std::max(at, std::min(f->end, end));
      if (at > begin) items.push_back(Item{begin, at, &s, true});
    }
    if (at < end) add_between(s, at, end);
  }
  return items;
}

class ItemDecoder {
 public:
  ItemDecoder(const Image& image, const x86::Frontend& frontend, const Item& item, ItemResult& out)
      : image_(image), frontend_(frontend), item_(item), out_(out) {}

  void decode() {
    open_unit(item_.begin);
    const CodeSection& s = *item_.section;
    uint64_t pc = item_.begin;
    while (pc < item_.end) {
      x86::DecodedInsn insn;
      const uint64_t offset = pc - s.address;
      if (!decode(s.bytes + offset, s.size - offset, pc, insn)) {
        // Not code: what this run decoded before was data too.
        drop_run();
        ++out_.undecodable;
        ++pc;
        if (!item_.function) out_.units.back().begin = pc;  // the unit starts again after them
        continue;
      }
      ++out_.instructions;
      follow_address(insn);
      look_at(insn);
      pc += insn.info.length;
      if (ends_run(insn.info.mnemonic)) {
        commit_run();
        if (!item_.function) {  // between functions, each run is a unit
          out_.units.back().end = pc;
          open_unit(pc);
        }
      }
    }
    commit_run();
    // An instruction may run past a piece's end (pieces are cut anywhere):
    // the last unit ends after it; one opened past the end holds nothing.
    Unit& last = out_.units.back();
    last.end = std::max(pc, item_.end);
    if (!item_.function && last.begin >= item_.end) out_.units.pop_back();
  }

 private:
  struct Run {
    size_t findings = 0, refs = 0;
    uint8_t level = 1;
    uint64_t level_address = 0;
    const char* extension = "";
    bool cpuid = false;
  };

  uint32_t unit_index() const { return static_cast<uint32_t>(out_.units.size() - 1); }

  // Decodes the instruction, and its operands only where they matter: a
  // position-relative operand (branches, rip-relative data), addresses as
  // immediates (ET_EXEC), an lea's register being followed, or a choice of
  // handler by operands.  Operands cost most of a decode.
  bool decode(const uint8_t* code, size_t size, uint64_t pc, x86::DecodedInsn& insn) {
    ZydisDecoderContext context;
    if (!frontend_.decoder().decode_instruction(code, size, insn.info, context)) return false;
    insn.address = pc;
    insn.operand_count = 0;
    context_ = context;
    const bool following = std::any_of(std::begin(pending_), std::end(pending_), [](const Pending& p) { return p.left; });
    if (image_.elf_type == 2 || (insn.info.attributes & ZYDIS_ATTRIB_IS_RELATIVE) || following ||
        frontend_.needs_operands(insn.info.mnemonic))
      return with_operands(insn);
    return true;
  }

  bool with_operands(x86::DecodedInsn& insn) {
    return insn.operand_count || frontend_.decoder().finish(context_, insn.address, insn) ||
           insn.info.operand_count == 0;
  }

  void open_unit(uint64_t at) {
    Unit u;
    u.begin = u.end = at;
    u.between_functions = !item_.function;
    out_.units.push_back(u);
    run_ = Run{out_.findings.size(), out_.refs.size()};
  }

  // An address of code loaded into a register and then only compared:
  // the reference is a Compared one.
  void follow_address(const x86::DecodedInsn& insn) {
    for (Pending& p : pending_) {
      if (p.left == 0) continue;
      --p.left;
      bool mentions = false;
      for (unsigned i = 0; i < insn.info.operand_count_visible; ++i) {
        const ZydisDecodedOperand& op = insn.ops[i];
        mentions |= (op.type == ZYDIS_OPERAND_TYPE_REGISTER && x86::gpr_holding(op.reg.value) == p.reg) ||
                    (op.type == ZYDIS_OPERAND_TYPE_MEMORY &&
                     (x86::gpr_holding(op.mem.base) == p.reg || x86::gpr_holding(op.mem.index) == p.reg));
      }
      if (!mentions) continue;
      if (insn.info.mnemonic == ZYDIS_MNEMONIC_CMP && p.ref < out_.refs.size()) out_.refs[p.ref].kind = Reference::Compared;
      p.left = 0;
    }
  }

  void drop_run() {
    for (Pending& p : pending_) p.left = 0;
    out_.findings.resize(run_.findings);
    out_.refs.resize(run_.refs);
    run_ = Run{out_.findings.size(), out_.refs.size()};
  }

  void commit_run() {
    Unit& u = out_.units.back();
    if (run_.level > u.level) {
      u.level = run_.level;
      u.level_address = run_.level_address;
      u.level_extension = run_.extension;
    }
    u.runs_cpuid |= run_.cpuid;
    run_ = Run{out_.findings.size(), out_.refs.size()};
  }

  void look_at(x86::DecodedInsn& insn) {
    const int level = isa_level(insn.info.meta.isa_set, insn.info.meta.isa_ext);
    if (level > run_.level) {
      run_.level = static_cast<uint8_t>(level);
      run_.level_address = insn.address;
      run_.extension = x86::isa_extension_name(insn);
    }
    if (insn.info.mnemonic == ZYDIS_MNEMONIC_CPUID) run_.cpuid = true;
    if (!frontend_.can_translate(insn) && with_operands(insn))
      out_.findings.push_back(Finding{insn.address, unit_index(), static_cast<uint8_t>(level),
                                      frontend_.decoder().format(insn), x86::isa_extension_name(insn)});
    references(insn);
  }

  // Where the instruction branches, and which addresses it loads or takes.
  void references(const x86::DecodedInsn& insn) {
    if (!insn.operand_count) return;
    const uint64_t next = insn.address + insn.info.length;
    const bool absolute_code = image_.elf_type == 2;  // ET_EXEC: addresses may be immediates
    for (unsigned i = 0; i < insn.info.operand_count_visible; ++i) {
      const ZydisDecodedOperand& op = insn.ops[i];
      if (op.type == ZYDIS_OPERAND_TYPE_IMMEDIATE) {
        if (op.imm.is_relative) {
          const uint64_t to = next + op.imm.value.u;
          add(to, insn.info.mnemonic == ZYDIS_MNEMONIC_CALL ? Reference::Call : Reference::Jump);
        } else if (absolute_code && image_.in_image(op.imm.value.u)) {
          add(op.imm.value.u, Reference::Address);
        }
      } else if (op.type == ZYDIS_OPERAND_TYPE_MEMORY && op.mem.index == ZYDIS_REGISTER_NONE &&
                 op.mem.segment != ZYDIS_REGISTER_FS && op.mem.segment != ZYDIS_REGISTER_GS) {  // not thread data
        const auto disp = static_cast<uint64_t>(op.mem.disp.value);
        const bool lea = insn.info.mnemonic == ZYDIS_MNEMONIC_LEA;
        if (op.mem.base == ZYDIS_REGISTER_RIP) add(next + disp, lea ? Reference::Address : Reference::Read);
        if (lea && op.mem.base == ZYDIS_REGISTER_RIP && image_.in_code(next + disp)) {
          pending_[next_pending_++ % std::size(pending_)] =
              Pending{x86::gpr_holding(insn.ops[0].reg.value), out_.refs.size() - 1, 6};
        }
        else if (op.mem.base == ZYDIS_REGISTER_NONE && absolute_code && disp)
          add(disp, lea ? Reference::Address : Reference::Read);
      }
    }
  }

  void add(uint64_t to, Reference::Kind kind) { out_.refs.push_back(Reference{to, unit_index(), kind}); }

  const Image& image_;
  const x86::Frontend& frontend_;
  const Item& item_;
  ItemResult& out_;
  Run run_;
  // Code addresses loaded by lea, whose registers follow_address watches
  // for the next few instructions.
  struct Pending {
    int reg = -1;
    size_t ref = 0;
    unsigned left = 0;
  };
  Pending pending_[4];
  unsigned next_pending_ = 0;
  ZydisDecoderContext context_{};  // of the last instruction decoded
};

}  // namespace

int isa_level(uint32_t isa_set, uint32_t isa_ext) {
  if (isa_ext == ZYDIS_ISA_EXT_AVX512EVEX || isa_ext == ZYDIS_ISA_EXT_AVX512VEX) return 4;
  switch (isa_set) {
    case ZYDIS_ISA_SET_AVX:
    case ZYDIS_ISA_SET_AVX2:
    case ZYDIS_ISA_SET_AVX2GATHER:
    case ZYDIS_ISA_SET_BMI1:
    case ZYDIS_ISA_SET_BMI2:
    case ZYDIS_ISA_SET_F16C:
    case ZYDIS_ISA_SET_FMA:
    case ZYDIS_ISA_SET_LZCNT:
    case ZYDIS_ISA_SET_MOVBE:
      return 3;
    case ZYDIS_ISA_SET_SSE3:
    case ZYDIS_ISA_SET_SSE3X87:
    case ZYDIS_ISA_SET_SSSE3:
    case ZYDIS_ISA_SET_SSSE3MMX:
    case ZYDIS_ISA_SET_SSE4:
    case ZYDIS_ISA_SET_SSE42:
    case ZYDIS_ISA_SET_POPCNT:
    case ZYDIS_ISA_SET_CMPXCHG16B:
    case ZYDIS_ISA_SET_LAHF:
      return 2;
    default:
      return 1;
  }
}

CodeFacts decode_code(const Image& image, const x86::Frontend& frontend, unsigned threads) {
  const std::vector<Item> items = work_items(image);
  std::vector<ItemResult> results(items.size());
  std::atomic<size_t> next{0};
  auto work = [&] {
    for (size_t i; (i = next.fetch_add(1, std::memory_order_relaxed)) < items.size();)
      ItemDecoder(image, frontend, items[i], results[i]).decode();
  };
  if (threads == 0) threads = std::max(1u, std::thread::hardware_concurrency());
  threads = static_cast<unsigned>(std::min<size_t>(threads, std::max<size_t>(1, items.size())));
  std::vector<std::thread> pool;
  for (unsigned t = 1; t < threads; ++t) pool.emplace_back(work);
  work();
  for (std::thread& t : pool) t.join();

  CodeFacts facts;
  for (ItemResult& r : results) {
    const auto base = static_cast<uint32_t>(facts.units.size());
    for (Finding& f : r.findings) f.unit += base;
    for (Reference& ref : r.refs) ref.unit += base;
    facts.units.insert(facts.units.end(), std::make_move_iterator(r.units.begin()), std::make_move_iterator(r.units.end()));
    facts.untranslatable.insert(facts.untranslatable.end(), std::make_move_iterator(r.findings.begin()),
                                std::make_move_iterator(r.findings.end()));
    facts.references.insert(facts.references.end(), r.refs.begin(), r.refs.end());
    facts.instructions += r.instructions;
    facts.undecodable_bytes += r.undecodable;
    r = ItemResult{};
  }
  return facts;
}

}  // namespace phybin::scan
