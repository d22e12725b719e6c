#include "batch.h"

#include <sys/wait.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>

namespace difftest {
namespace {

const char* const kGprNames[16] = {"rax", "rcx", "rdx", "rbx", "rsp", "rbp", "rsi", "rdi",
                                   "r8",  "r9",  "r10", "r11", "r12", "r13", "r14", "r15"};

std::string hex(uint64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
  return buf;
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

int run_shell(const std::string& cmd) {
  int status = std::system(cmd.c_str());
  if (status == -1) return -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

// Loads the initial state from the control page (RFLAGS through popfq with
// RSP pointing at it), RSP last.
void write_prologue(std::ostream& out) {
  out << "  fxrstor [" << hex(DT_CTL_BASE + DT_CTL_IN_FX) << "]\n";
  out << "  mov rsp, " << hex(DT_CTL_BASE + DT_CTL_IN_FLAGS) << "\n  popfq\n";
  for (int r = 0; r < 16; ++r) {
    if (r == 4) continue;
    out << "  mov " << kGprNames[r] << ", QWORD PTR [" << hex(DT_CTL_BASE + DT_CTL_IN_GPR + 8 * r) << "]\n";
  }
  out << "  mov rsp, QWORD PTR [" << hex(DT_CTL_BASE + DT_CTL_IN_GPR + 8 * 4) << "]\n";
}

// Shared by all cases (reached by a direct jump, so flags stay live):
// stores the final state and returns to run_case.
void write_epilogue(std::ostream& out) {
  out << "dt_epilogue:\n";
  for (int r = 0; r < 16; ++r)
    out << "  mov QWORD PTR [" << hex(DT_CTL_BASE + DT_CTL_OUT_GPR + 8 * r) << "], " << kGprNames[r] << "\n";
  out << "  mov rsp, " << hex(DT_CTL_BASE + DT_CTL_OUT_FLAGS + 8) << "\n  pushfq\n";
  out << "  fxsave [" << hex(DT_CTL_BASE + DT_CTL_OUT_FX) << "]\n";
  out << "  mov rsp, QWORD PTR [" << hex(DT_CTL_BASE + DT_CTL_HOST_RSP) << "]\n";
  out << "  jmp QWORD PTR [" << hex(DT_CTL_BASE + DT_CTL_RETURN) << "]\n";
}

// Assembles `source`; returns the .text bytes and the symbol table.
void assemble(const std::string& source, const std::string& scratch, std::string& code,
              std::map<std::string, uint32_t>& symbols) {
  const std::string s = scratch + ".s", o = scratch + ".o", bin = scratch + ".bin", sym = scratch + ".sym";
  std::ofstream(s) << source;
  const std::string errors = scratch + ".err";
  if (run_shell("as --64 -o '" + o + "' '" + s + "' 2>'" + errors + "'") != 0)
    throw std::runtime_error("gas failed on " + s + ":\n" + read_file(errors).substr(0, 4000));
  if (run_shell("objcopy -O binary -j .text '" + o + "' '" + bin + "' && nm '" + o + "' >'" + sym + "' 2>/dev/null") != 0)
    throw std::runtime_error("objcopy/nm failed on " + o);
  code = read_file(bin);
  std::istringstream in(read_file(sym));
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream fields(line);
    std::string value, type, name;
    if (fields >> value >> type >> name) symbols[name] = static_cast<uint32_t>(std::stoul(value, nullptr, 16));
  }
}

}  // namespace

void write_case_file(const std::vector<Case>& cases, const std::string& path, const std::string& scratch) {
  std::ostringstream src;
  src << "  .intel_syntax noprefix\n  .text\n";
  write_epilogue(src);
  for (size_t i = 0; i < cases.size(); ++i) {
    src << "c_" << i << ":\n";
    write_prologue(src);
    for (const Insn& insn : cases[i].insns) src << "  " << insn.text << "\n";
    src << "  jmp dt_epilogue\n";
  }
  std::string code;
  std::map<std::string, uint32_t> symbols;
  assemble(src.str(), scratch, code, symbols);

  std::ofstream out(path, std::ios::binary);
  const uint32_t head[3] = {DT_CASE_MAGIC, static_cast<uint32_t>(cases.size()), static_cast<uint32_t>(code.size())};
  out.write(reinterpret_cast<const char*>(head), sizeof head);
  out.write(code.data(), static_cast<std::streamsize>(code.size()));
  for (size_t i = 0; i < cases.size(); ++i) {
    const uint32_t entry = symbols.at("c_" + std::to_string(i));
    out.write(reinterpret_cast<const char*>(&entry), sizeof entry);
    out.write(reinterpret_cast<const char*>(&cases[i].init), sizeof cases[i].init);
  }
  if (!out) throw std::runtime_error("cannot write " + path);
}

std::vector<uint8_t> assemble_line(const std::string& text, const std::string& scratch) {
  std::string code;
  std::map<std::string, uint32_t> symbols;
  // dt_epilogue starts the text of a case file; RIP-relative operands of
  // opcode_map compute their displacement from it
  assemble("  .intel_syntax noprefix\n  .text\ndt_epilogue:\n  " + text + "\n", scratch, code, symbols);
  return std::vector<uint8_t>(code.begin(), code.end());
}

namespace {

// partial: a failed run returns the complete states in its result file
// (the harness flushes each one) instead of throwing.
std::vector<dt_state> run_harness(const Tools& tools, const std::string& case_file, bool under_phybin,
                                  const std::string& tag, bool partial) {
  const std::string results = tools.workdir + "/" + tag + (under_phybin ? ".phybin" : ".native");
  const std::string log = results + ".log";
  std::remove(results.c_str());
  // a translation that never ends must not stop the run (10 minutes is
  // far more than any batch needs)
  std::string cmd = (under_phybin ? "timeout -s KILL 600 " + tools.runner + " " : std::string()) + "'" +
                    tools.harness + "' '" + case_file + "' '" + results + "' >'" + log + "' 2>&1";
  int rc = run_shell(cmd);
  std::string data = read_file(results);
  uint32_t head[2] = {0, 0};
  if (data.size() >= sizeof head) std::memcpy(head, data.data(), sizeof head);
  const bool header_ok = head[0] == DT_RESULT_MAGIC;
  if (rc != 0 && (!partial || !header_ok))
    throw std::runtime_error(std::string(under_phybin ? "phybin" : "native") + " harness run failed (status " +
                             std::to_string(rc) + "): " + cmd + "\n" + read_file(log).substr(0, 4000));
  size_t count = head[1];
  if (rc != 0) count = std::min<size_t>(count, (data.size() - sizeof head) / sizeof(dt_state));
  if (!header_ok || data.size() < sizeof head + count * sizeof(dt_state) ||
      (rc == 0 && data.size() != sizeof head + count * sizeof(dt_state)))
    throw std::runtime_error("bad result file " + results);
  std::vector<dt_state> states(count);
  if (count) std::memcpy(states.data(), data.data() + sizeof head, count * sizeof(dt_state));
  return states;
}

}  // namespace

std::vector<dt_state> run_cases(const Tools& tools, const std::string& case_file, bool under_phybin,
                                const std::string& tag) {
  return run_harness(tools, case_file, under_phybin, tag, false);
}

std::vector<dt_state> run_cases_surviving(const Tools& tools, const std::vector<Case>& cases,
                                          const std::string& case_file, const std::string& scratch,
                                          const std::string& tag) {
  std::vector<dt_state> states;
  size_t start = 0;
  std::string file = case_file;
  while (start < cases.size()) {
    if (start > 0) {
      const std::vector<Case> rest(cases.begin() + static_cast<std::ptrdiff_t>(start), cases.end());
      file = case_file + ".rest";
      write_case_file(rest, file, scratch + ".rest");
    }
    std::vector<dt_state> got = run_harness(tools, file, true, tag, true);
    states.insert(states.end(), got.begin(), got.end());
    if (got.size() >= cases.size() - start) break;
    // what phybin said, for the report (the next run overwrites the log)
    std::ofstream(tools.workdir + "/" + tag + ".deaths", std::ios::app)
        << "case " << start + got.size() << ":\n"
        << read_file(tools.workdir + "/" + tag + ".phybin.log").substr(0, 2000) << "\n";
    dt_state died{};
    died.signal = kPhybinDied;
    states.push_back(died);
    start += got.size() + 1;
  }
  states.resize(cases.size());
  return states;
}

}  // namespace difftest
