#include "runtime/host_disasm.h"

#include <capstone/capstone.h>
#include <dlfcn.h>

#include <cinttypes>
#include <cstdio>

namespace phybin::runtime {
namespace {

struct Capstone {
  decltype(&cs_open) open = nullptr;
  decltype(&cs_disasm) disasm = nullptr;
  decltype(&cs_free) free = nullptr;
  csh handle = 0;
  bool ready = false;
};

const Capstone& capstone() {
  static const Capstone cs = [] {
    Capstone c;
    void* lib = dlopen("libcapstone.so.4", RTLD_NOW | RTLD_LOCAL);
    if (!lib) return c;
    c.open = reinterpret_cast<decltype(&cs_open)>(dlsym(lib, "cs_open"));
    c.disasm = reinterpret_cast<decltype(&cs_disasm)>(dlsym(lib, "cs_disasm"));
    c.free = reinterpret_cast<decltype(&cs_free)>(dlsym(lib, "cs_free"));
    c.ready = c.open && c.disasm && c.free && c.open(CS_ARCH_ARM64, CS_MODE_LITTLE_ENDIAN, &c.handle) == CS_ERR_OK;
    return c;
  }();
  return cs;
}

std::string words_only(const uint32_t* code, size_t words) {
  std::string out;
  char line[64];
  for (size_t i = 0; i < words; ++i) {
    std::snprintf(line, sizeof line, "  %p: %08x\n", static_cast<const void*>(code + i), code[i]);
    out += line;
  }
  return out;
}

}  // namespace

std::string disassemble_host(const uint32_t* code, size_t words) {
  const Capstone& cs = capstone();
  if (!cs.ready) return words_only(code, words);
  cs_insn* insns = nullptr;
  auto address = reinterpret_cast<uint64_t>(code);
  size_t count = cs.disasm(cs.handle, reinterpret_cast<const uint8_t*>(code), words * 4, address, 0, &insns);
  std::string out;
  char line[256];
  for (size_t i = 0; i < count; ++i) {
    std::snprintf(line, sizeof line, "  %#" PRIx64 ": %08x  %s %s\n", insns[i].address,
                  code[(insns[i].address - address) / 4], insns[i].mnemonic, insns[i].op_str);
    out += line;
  }
  if (insns) cs.free(insns, count);
  // Anything capstone could not decode (data, or a stop) is shown as words.
  if (count * 4 < words * 4) out += words_only(code + count, words - count);
  return out;
}

}  // namespace phybin::runtime
