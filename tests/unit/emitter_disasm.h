// Test helper for the AArch64 emitter: a test suite assembles many cases,
// each with the disassembly written by hand, into one buffer; the buffer is
// disassembled once by aarch64-linux-gnu-objdump and every case's lines are
// compared with the expected text (mnemonic and operands, whitespace
// normalised, objdump's "//" comments and <symbol> annotations dropped).
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "arm64/emitter.h"

namespace phybin::arm64::testing {

inline const char* kObjdump = "aarch64-linux-gnu-objdump";

// Collapses runs of blanks, drops comments and symbol annotations.
inline std::string normalize_asm(const std::string& text) {
  std::string s = text;
  if (const auto c = s.find("//"); c != std::string::npos) s.erase(c);
  if (const auto c = s.find(" <"); c != std::string::npos && s.back() == '>') s.erase(c);
  std::string out;
  bool blank = false;
  for (char ch : s) {
    if (ch == ' ' || ch == '\t') {
      blank = !out.empty();
      continue;
    }
    if (blank) out += ' ';
    blank = false;
    out += ch;
  }
  return out;
}

inline std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> lines;
  std::stringstream in(text);
  std::string line;
  while (std::getline(in, line)) lines.push_back(normalize_asm(line));
  return lines;
}

// Code buffer on its own pages: the file offset of a word then has the same
// position within its page as the word's address, so ADRP and branches to
// absolute addresses disassemble to predictable targets.
struct PageBuffer {
  explicit PageBuffer(size_t words)
      : words_(words),
        data_(static_cast<uint32_t*>(std::aligned_alloc(4096, (words * 4 + 4095) / 4096 * 4096))) {}
  ~PageBuffer() { std::free(data_); }
  PageBuffer(const PageBuffer&) = delete;
  PageBuffer& operator=(const PageBuffer&) = delete;
  uint32_t* data() const { return data_; }
  size_t words() const { return words_; }

 private:
  size_t words_;
  uint32_t* data_;
};

class DisasmBatch {
 public:
  DisasmBatch() : buffer_(1 << 16), a_(buffer_.data(), buffer_.words()) {}

  Assembler& assembler() { return a_; }
  // Byte offset of the cursor = address objdump shows for it.
  uint64_t here() const { return a_.size_words() * 4; }
  // The address objdump shows for a byte offset, as "0x..".
  static std::string addr(uint64_t offset) {
    char text[32];
    std::snprintf(text, sizeof text, "0x%llx", static_cast<unsigned long long>(offset));
    return text;
  }

  void group(const std::string& name) { group_ = name; }

  // The instructions emitted from now until the next expect() must
  // disassemble to `text` (lines separated by '\n').
  void expect(const std::string& text, int line) {
    cases_.push_back(Case{group_, split_lines(text), a_.size_words(), line});
  }

  // Runs objdump over everything; false (and `error`) if it cannot.
  bool disassemble(std::string* error) {
    // ctest runs each test of a suite as its own process, two at a time,
    // and they build the same batch (at the same address, under ASan):
    // the process id keeps their files apart.
    const std::string path = ::testing::TempDir() + "phybin_emitter_" + std::to_string(getpid()) + "_" +
                             std::to_string(reinterpret_cast<uintptr_t>(this)) + ".bin";
    FILE* f = std::fopen(path.c_str(), "wb");
    if (!f) return fail(error, "cannot write " + path);
    std::fwrite(buffer_.data(), 4, a_.size_words(), f);
    std::fclose(f);
    const std::string cmd = std::string(kObjdump) + " -D -z -b binary -m aarch64 " + path + " 2>&1";
    std::unique_ptr<FILE, int (*)(FILE*)> pipe(popen(cmd.c_str(), "r"), pclose);
    if (!pipe) return fail(error, "cannot run " + cmd);
    char line[512];
    while (std::fgets(line, sizeof line, pipe.get())) parse_objdump_line(line);
    std::remove(path.c_str());
    if (disasm_.size() != a_.size_words()) {
      return fail(error, "objdump printed " + std::to_string(disasm_.size()) + " of " +
                             std::to_string(a_.size_words()) + " words (is " + kObjdump +
                             " installed?)");
    }
    return true;
  }

  // Checks every case of `group`; returns how many were checked.
  size_t check_group(const std::string& group, const char* file) const {
    size_t checked = 0;
    for (size_t i = 0; i < cases_.size(); ++i) {
      const Case& c = cases_[i];
      if (c.group != group) continue;
      const size_t end = i + 1 < cases_.size() ? cases_[i + 1].first_word : a_.size_words();
      std::vector<std::string> got(disasm_.begin() + c.first_word, disasm_.begin() + end);
      if (got != c.expected) {
        ADD_FAILURE_AT(file, c.line) << "expected: " << join(c.expected) << "\n     got: "
                                     << join(got) << "\n   words: " << words(c.first_word, end);
      }
      ++checked;
    }
    EXPECT_GT(checked, 0u) << "no cases in group " << group;
    return checked;
  }

  size_t case_count() const { return cases_.size(); }

 private:
  struct Case {
    std::string group;
    std::vector<std::string> expected;
    size_t first_word;
    int line;
  };

  static bool fail(std::string* error, const std::string& text) {
    *error = text;
    return false;
  }

  // "   4:\t8b020020 \tadd\tx0, x1, x2"
  void parse_objdump_line(const std::string& line) {
    const auto colon = line.find(":\t");
    if (colon == std::string::npos) return;
    const auto tab = line.find('\t', colon + 2);
    if (tab == std::string::npos || tab - (colon + 2) < 8) return;
    std::string text = line.substr(tab + 1);
    while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.pop_back();
    disasm_.push_back(normalize_asm(text));
  }

  static std::string join(const std::vector<std::string>& lines) {
    std::string out;
    for (const auto& l : lines) out += (out.empty() ? "" : " | ") + l;
    return out.empty() ? "(nothing)" : out;
  }

  std::string words(size_t begin, size_t end) const {
    std::string out;
    char hex[16];
    for (size_t i = begin; i < end; ++i) {
      std::snprintf(hex, sizeof hex, "%08x ", buffer_.data()[i]);
      out += hex;
    }
    return out;
  }

  PageBuffer buffer_;
  Assembler a_;
  std::string group_;
  std::vector<Case> cases_;
  std::vector<std::string> disasm_;
};

// A test suite whose cases are built once by Build(DisasmBatch&) and
// disassembled once; each TEST_F then checks one group.
template <typename Derived>
class DisasmSuite : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    batch_ = new DisasmBatch;
    Derived::Build(*batch_);
    ok_ = batch_->disassemble(&error_);
  }
  static void TearDownTestSuite() {
    delete batch_;
    batch_ = nullptr;
  }
  void check(const char* group, const char* file) {
    if (!ok_) GTEST_SKIP() << error_;
    batch_->check_group(group, file);
  }

  static inline DisasmBatch* batch_ = nullptr;
  static inline bool ok_ = false;
  static inline std::string error_;
};

}  // namespace phybin::arm64::testing

// In a Build function with `DisasmBatch& t` and `Assembler& a` in scope:
//   E("add x0, x1, x2");  a.add(Size::X, x0, x1, x2);
#define E(text) t.expect((text), __LINE__)
