// Measures phybin's translation work on the host: maps a static x86-64
// executable, translates the blocks reachable from its entry point through
// direct branches (up to a limit) and compiles them to AArch64 into a plain
// buffer, without running anything.  Run it under `valgrind --tool=callgrind`
// to see where translation time goes.
//   translate_cost PROGRAM [MAX_BLOCKS]
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <set>
#include <vector>

#include "arm64/backend.h"
#include "arm64/helper_table.h"
#include "common/error.h"
#include "elf/elf_reader.h"
#include "elf/loader.h"
#include "ir/passes.h"
#include "x86/frontend.h"

using namespace phybin;

namespace {
uint64_t fake_helper(GuestState*, uint64_t, uint64_t) { return 0; }
void fake_raise(GuestState*, int) { std::abort(); }
}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: translate_cost PROGRAM [MAX_BLOCKS]\n");
    return 2;
  }
  size_t max_blocks = argc > 2 ? std::strtoul(argv[2], nullptr, 10) : 2000;
  try {
    elf::ElfInfo info = elf::inspect_elf(argv[1]);
    elf::LoadedImage image = elf::load_image(info);
    x86::Hooks hooks;
    hooks.syscall = &fake_helper;
    hooks.raise_signal = &fake_raise;
    x86::Frontend frontend(hooks);
    std::vector<uint32_t> buffer(1u << 20);
    arm64::Assembler stub_asm(buffer.data(), 1024);
    arm64::BackendConfig config;
    arm64::HelperTable helpers;
    config.helpers = &helpers;
    config.stubs = arm64::emit_stubs(stub_asm);
    config.raise_signal = &fake_raise;
    config.lookup_mask = 0xffff;
    size_t used = 1024, guest_insns = 0, blocks = 0, illegal = 0;
    std::deque<uint64_t> work{image.entry};
    std::set<uint64_t> seen{image.entry};
    auto in_image = [&](uint64_t a) { return a >= image.low && a < image.high; };
    ir::Block block;
    size_t dead_insts = 0, live_insts = 0;
    while (!work.empty() && blocks < max_blocks) {
      uint64_t pc = work.front();
      work.pop_front();
      try {
        frontend.translate(pc, 48, block);  // one block, reused, as the runtime does
      } catch (const Error&) {
        ++illegal;
        continue;
      }
      ir::optimize(block);
      for (const ir::Inst& in : block.insts) (in.dead ? dead_insts : live_insts)++;
      arm64::Assembler a(buffer.data() + used, buffer.size() - used);
      try {
        arm64::compile_block(block, a, config);
      } catch (const arm64::BlockTooComplex&) {
        continue;
      }
      used += a.size_words();
      guest_insns += block.guest_insns;
      ++blocks;
      for (uint64_t t : {block.exit.target, block.exit.fallthrough})
        if (t && in_image(t) && seen.insert(t).second) work.push_back(t);
      if (block.exit.kind == ir::ExitKind::Jump && block.exit.abi_boundary && seen.insert(block.guest_end).second)
        work.push_back(block.guest_end);  // the return address of a call
    }
    std::printf("IR after optimize: %zu live, %zu dead\n", live_insts, dead_insts);
    std::printf("%zu blocks, %zu guest instructions, %zu host words (%.2f per guest instruction), %zu untranslatable\n",
                blocks, guest_insns, used - 1024, double(used - 1024) / double(guest_insns ? guest_insns : 1), illegal);
  } catch (const Error& e) {
    std::fprintf(stderr, "%s\n", format_error(e.code(), e.what()).c_str());
    return 1;
  }
  return 0;
}
