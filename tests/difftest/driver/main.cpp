// difftest: differential tester of phybin against the CPU it runs on.
// See README.md for the options and how to add a family.
#include <cpuid.h>
#include <cstdlib>
#include <unistd.h>

#include <cstdio>
#include <cctype>
#include <cstring>
#include <map>
#include <set>
#include <iostream>
#include <sstream>
#include <stdexcept>

#include "batch.h"
#include "compare.h"
#include "vendor.h"

namespace difftest {
namespace {

struct Options {
  Tools tools;
  std::vector<std::string> families;  // empty: the default list
  uint64_t seed = 1;
  uint64_t cases = 1000;   // per family
  uint64_t total = 0;      // when set: spread over the families instead
  uint64_t batch = 4000;   // cases per harness run
  int max_reports = 3;
  long only_case = -1;
  bool show_faults = false;  // list the cases that fault natively (generator debugging)
  // one line per mismatching case (instructions | differences), for
  // grouping many mismatches (opcode_map)
  bool list_mismatches = false;
  // phybin in its default mode (no PHYBIN_EXACT_MXCSR): MXCSR.DE not compared
  bool default_mxcsr = false;
  bool vendor_neutral = false;  // --vendor-neutral: as on a CPU not of the model's vendor
  VendorMode vendor;
};

constexpr int kExitMismatch = 1, kExitError = 2, kExitSkipped = 77;

[[noreturn]] void usage() {
  std::cerr << "usage: difftest --harness PATH --runner CMD [--workdir DIR] [--family NAME[,NAME...]|all]\n"
               "                [--seed N] [--cases N | --total N] [--batch N] [--max-reports N] [--case I] [--list]\n"
               "                [--default-mxcsr] [--vendor-neutral] [--show-faults] [--list-mismatches]\n";
  std::exit(kExitError);
}

// CPUID feature bits the families may need (leaf, register, bit).
bool cpu_has(const std::string& feature) {
  struct Bit { const char* name; unsigned leaf; int reg; int bit; };
  static const Bit bits[] = {
      {"sse3", 1, 2, 0},    {"cx16", 1, 2, 13},    {"pclmul", 1, 2, 1},   {"ssse3", 1, 2, 9},  {"sse4.1", 1, 2, 19},
      {"sse4.2", 1, 2, 20}, {"movbe", 1, 2, 22},   {"popcnt", 1, 2, 23}, {"aes", 1, 2, 25},
      {"bmi", 7, 1, 3},     {"bmi2", 7, 1, 8},     {"adx", 7, 1, 19},   {"sha", 7, 1, 29},
      {"lzcnt", 0x80000001u, 2, 5}};
  for (const Bit& b : bits) {
    if (feature != b.name) continue;
    unsigned r[4] = {0, 0, 0, 0};
    if (!__get_cpuid_count(b.leaf, 0, &r[0], &r[1], &r[2], &r[3])) return false;
    return (r[b.reg] >> b.bit) & 1;
  }
  throw std::runtime_error("unknown CPU feature " + feature);
}

std::string bytes_text(const std::vector<uint8_t>& bytes) {
  std::string out;
  char buf[4];
  for (uint8_t b : bytes) {
    std::snprintf(buf, sizeof buf, "%02x ", b);
    out += buf;
  }
  return out;
}

std::string case_file_path(const Options& o, const std::string& tag) { return o.tools.workdir + "/" + tag + ".cases"; }

// Runs `cases` both ways; returns per case the difference lines.
std::vector<std::vector<std::string>> run_both(const Options& o, const std::vector<Case>& cases,
                                               const std::vector<size_t>& counts, const std::string& tag,
                                               size_t* native_faults, size_t* ignored_mxcsr = nullptr) {
  const std::string file = case_file_path(o, tag);
  write_case_file(cases, file, o.tools.workdir + "/" + tag);
  std::vector<dt_state> native = run_cases(o.tools, file, false, tag);
  std::vector<dt_state> phybin = run_cases_surviving(o.tools, cases, file, o.tools.workdir + "/" + tag, tag);
  std::vector<std::vector<std::string>> diffs(cases.size());
  for (size_t i = 0; i < cases.size(); ++i) {
    diffs[i] = compare_states(cases[i], counts[i], native[i], phybin[i]);
    if (ignored_mxcsr && ignored_mxcsr_difference(cases[i], native[i], phybin[i])) ++*ignored_mxcsr;
    if (native[i].signal && native_faults) ++*native_faults;
    if (native[i].signal && o.show_faults) {
      std::cout << "native signal " << native[i].signal << " in:\n";
      for (const Insn& insn : cases[i].insns) std::cout << "  " << insn.text << "\n";
    }
  }
  return diffs;
}

// Reruns the case cut after 1, 2, ... instructions and reports the shortest
// prefix that already diverges, with everything needed to reproduce it.
void report_mismatch(const Options& o, const Family& f, uint64_t index, const Case& full,
                     const std::vector<std::string>& first_diffs) {
  std::vector<Case> prefixes;
  std::vector<size_t> counts;
  for (size_t k = 1; k <= full.insns.size(); ++k) {
    Case c = full;
    c.insns.resize(k);
    prefixes.push_back(c);
    counts.push_back(k);
  }
  const std::string tag = std::string(f.name) + ".prefix";
  const std::string file = case_file_path(o, tag);
  write_case_file(prefixes, file, o.tools.workdir + "/" + tag);
  std::vector<dt_state> native = run_cases(o.tools, file, false, tag);
  std::vector<dt_state> phybin = run_cases_surviving(o.tools, prefixes, file, o.tools.workdir + "/" + tag, tag);
  size_t k = 0;
  std::vector<std::string> diffs;
  while (k < prefixes.size() && (diffs = compare_states(prefixes[k], k + 1, native[k], phybin[k])).empty()) ++k;
  if (k == prefixes.size()) {
    // What the first run saw, so that a flaky difference can still be
    // told apart from a translation bug.
    std::cout << "  (no prefix diverges on the rerun: the mismatch is not reproducible; case " << index
              << ", the first run differed in:";
    for (const std::string& d : first_diffs) std::cout << " " << d << ";";
    for (const Insn& insn : full.insns) std::cout << "\n    " << insn.text;
    std::cout << ")\n";
    return;
  }
  std::ostringstream out;
  out << "MISMATCH in family " << f.name << ", case " << index << ": reproduce with --family " << f.name
      << " --seed " << o.seed << " --case " << index << (o.vendor.forced_neutral ? " --vendor-neutral" : "")
      << "\n";
  out << "shortest diverging prefix: " << k + 1 << " of " << full.insns.size() << " instructions\n";
  for (size_t i = 0; i <= k; ++i) {
    const std::string text = full.insns[i].text;
    out << "  " << text << std::string(text.size() < 44 ? 44 - text.size() : 1, ' ')
        << bytes_text(assemble_line(text, o.tools.workdir + "/line")) << "\n";
  }
  out << "differences:\n";
  for (const std::string& d : diffs) out << "  " << d << "\n";
  out << "initial state:\n" << format_state(full.init, nullptr);
  out << "final state native:\n" << format_state(native[k], &full.init);
  out << "final state phybin:\n" << format_state(phybin[k], &full.init);
  std::cout << out.str() << std::flush;
}

// What a difference line is about, for the family summary: the register
// class (XMM3 -> XMM, rax -> gpr) or, for status words, the bits that
// differ (MXCSR^0002 is DE).
std::string difference_kind(const std::string& diff) {
  std::istringstream in(diff);
  std::string what, native_word, native_value, phybin_word, phybin_value;
  in >> what >> native_word >> native_value >> phybin_word >> phybin_value;
  if (what == "MXCSR" || what == "FSW" || what == "rflags") {
    char buf[32];
    std::snprintf(buf, sizeof buf, "^%llx",
                  static_cast<unsigned long long>(std::stoull(native_value, nullptr, 16) ^ std::stoull(phybin_value, nullptr, 16)));
    return what + buf;
  }
  while (!what.empty() && std::isdigit(static_cast<unsigned char>(what.back()))) what.pop_back();
  if (what.size() <= 3 && what[0] == 'r') return "gpr";
  if (what.rfind("mem", 0) == 0) return "mem";
  return what;
}

// Runs `count` cases of one family; returns the number of mismatching cases.
uint64_t run_family(const Options& o, const Family& f, uint64_t count) {
  uint64_t mismatches = 0, done = 0;
  size_t native_faults = 0, ignored_mxcsr = 0;
  int reports = 0;
  std::map<std::string, uint64_t> kinds;
  const uint64_t first = o.only_case >= 0 ? static_cast<uint64_t>(o.only_case) : 0;
  if (o.only_case >= 0) count = 1;
  while (done < count) {
    const uint64_t n = std::min(o.batch, count - done);
    std::vector<Case> cases;
    std::vector<size_t> counts;
    for (uint64_t i = 0; i < n; ++i) {
      cases.push_back(generate_case(f, o.seed, first + done + i, o.vendor.model_vendor()));
      if (o.default_mxcsr) cases.back().tolerance.mxcsr_ignored |= phybin::mxcsr::kDe;
      counts.push_back(cases.back().insns.size());
    }
    auto diffs = run_both(o, cases, counts, f.name, &native_faults, &ignored_mxcsr);
    for (uint64_t i = 0; i < n; ++i) {
      if (diffs[i].empty()) continue;
      ++mismatches;
      for (const std::string& d : diffs[i]) ++kinds[difference_kind(d)];
      if (o.list_mismatches) {
        std::string line = "mismatch case " + std::to_string(first + done + i) + ":";
        for (const Insn& insn : cases[i].insns) line += " " + insn.text + " ;";
        line += " |";
        for (size_t d = 0; d < diffs[i].size() && d < 4; ++d) line += " " + diffs[i][d] + ";";
        std::cout << line << "\n";
      }
      if (reports++ < o.max_reports) report_mismatch(o, f, first + done + i, cases[i], diffs[i]);
    }
    done += n;
    if (done < count) std::cout << "family " << f.name << ": " << done << " of " << count << " cases, " << mismatches << " mismatching so far" << std::endl;
  }
  std::cout << "family " << f.name << ": " << done << " cases, " << mismatches << " mismatching, " << native_faults
            << " faulting natively (compared as signals)"
            << (o.vendor.model_vendor() ? "" : ", vendor-neutral");
  if (ignored_mxcsr) std::cout << ", " << ignored_mxcsr << " with MXCSR.DE differences (not compared)";
  std::cout << "\n";
  if (!kinds.empty()) {
    std::cout << "  differences by kind:";
    for (const auto& [kind, n] : kinds) std::cout << " " << kind << " " << n;
    std::cout << "\n";
  }
  std::cout << std::flush;
  return mismatches;
}

// ctest registers one test per default family from a list in CMake: this
// keeps the two lists equal.
// Order does not matter: each family can be added to CMakeLists.txt on a
// line of its own (list(APPEND ...)), which merges without conflicts.
int check_default_list(const std::string& csv) {
  std::set<std::string> listed, defaults;
  std::string ours;
  for (const Family& f : all_families())
    if (f.in_default_list) {
      ours += (ours.empty() ? "" : ",") + std::string(f.name);
      defaults.insert(f.name);
    }
  std::istringstream in(csv);
  for (std::string name; std::getline(in, name, ',');) listed.insert(name);
  if (listed == defaults) return 0;
  std::cerr << "tests/difftest/CMakeLists.txt lists " << csv << "\nthe driver's default list is " << ours << "\n";
  return 1;
}

uint64_t parse_number(const char* s) { return std::stoull(s, nullptr, 0); }

Options parse(int argc, char** argv) {
  Options o;
  o.tools.workdir = "/tmp/difftest." + std::to_string(getpid());
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&]() -> const char* {
      if (i + 1 >= argc) usage();
      return argv[++i];
    };
    if (a == "--harness") o.tools.harness = value();
    else if (a == "--runner") o.tools.runner = value();
    else if (a == "--workdir") o.tools.workdir = value();
    else if (a == "--seed") o.seed = parse_number(value());
    else if (a == "--cases") o.cases = parse_number(value());
    else if (a == "--total") o.total = parse_number(value());
    else if (a == "--batch") o.batch = std::max<uint64_t>(1, parse_number(value()));
    else if (a == "--max-reports") o.max_reports = static_cast<int>(parse_number(value()));
    else if (a == "--default-mxcsr") o.default_mxcsr = true;
    else if (a == "--vendor-neutral") o.vendor_neutral = true;
    else if (a == "--show-faults") o.show_faults = true;
    else if (a == "--list-mismatches") o.list_mismatches = true;
    else if (a == "--case") o.only_case = static_cast<long>(parse_number(value()));
    else if (a == "--family") {
      std::stringstream list(value());
      std::string name;
      while (std::getline(list, name, ',')) o.families.push_back(name);
    } else if (a == "--list") {
      for (const Family& f : all_families())
        std::cout << f.name << (f.in_default_list ? "" : "  (not in the default list)")
                  << (f.cpu_feature ? std::string("  needs ") + f.cpu_feature : std::string()) << "  " << f.note << "\n";
      std::exit(0);
    } else if (a == "--check-default-list") {
      std::exit(check_default_list(value()));
    } else usage();
  }
  if (o.tools.harness.empty() || o.tools.runner.empty()) usage();
  o.vendor = vendor_mode(o.vendor_neutral);
  // MXCSR.DE for denormal operands costs checks phybin makes only when
  // asked (README.md); the runner passes the environment on.
  setenv("PHYBIN_IR_VERIFY", "1", 1);  // phybin checks every block it translates
  if (o.default_mxcsr) unsetenv("PHYBIN_EXACT_MXCSR");
  else setenv("PHYBIN_EXACT_MXCSR", "1", 1);
  return o;
}

std::vector<const Family*> selected(const Options& o) {
  std::vector<const Family*> out;
  for (const Family& f : all_families())
    if ((o.families.empty() && f.in_default_list) || (o.families.size() == 1 && o.families[0] == "all")) out.push_back(&f);
  if (!out.empty() || o.families.empty()) return out;
  for (const std::string& name : o.families) {
    const Family* f = find_family(name);
    if (!f) throw std::runtime_error("no family named " + name + " (--list shows them)");
    out.push_back(f);
  }
  return out;
}

int run(int argc, char** argv) {
  Options o = parse(argc, argv);
  if (std::system(("mkdir -p '" + o.tools.workdir + "'").c_str()) != 0) throw std::runtime_error("cannot create the workdir");
  std::vector<const Family*> families = selected(o);
  std::cout << "difftest: " << o.vendor.describe() << std::endl;
  uint64_t mismatches = 0;
  size_t skipped = 0;
  for (const Family* f : families) {
    if (f->cpu_feature && !cpu_has(f->cpu_feature)) {
      std::cout << "family " << f->name << ": skipped, this CPU lacks " << f->cpu_feature << "\n";
      ++skipped;
      continue;
    }
    const uint64_t count = o.total ? (o.total + families.size() - 1) / families.size() : o.cases;
    mismatches += run_family(o, *f, count);
  }
  std::cout << "difftest: " << mismatches << " mismatching cases; " << o.vendor.describe() << std::endl;
  if (mismatches) return kExitMismatch;
  return skipped == families.size() && skipped > 0 ? kExitSkipped : 0;
}

}  // namespace
}  // namespace difftest

int main(int argc, char** argv) {
  try {
    return difftest::run(argc, argv);
  } catch (const std::exception& e) {
    std::cerr << "difftest: " << e.what() << "\n";
    return 2;
  }
}
