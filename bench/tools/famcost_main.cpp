// famcost: prints, per x86 instruction family, what phybin's translation
// of each sample instruction of famcost_samples.S costs in emitted AArch64
// instructions, as markdown tables, then a summary per family and the most
// expensive inline instructions.
//   famcost [FAMILY...]     (default: every family)
//   famcost --dump 'INSN' FILE   writes the AArch64 code of INSN's block
//     (flags dead) to FILE:  aarch64-linux-gnu-objdump -D -b binary -m aarch64 FILE
//   famcost --record FILE   writes every sample's counts to FILE (the
//     instruction-count record, tests/insncount/record.txt)
//   famcost --check FILE    exit status 1 when a count grew against FILE
#include <algorithm>
#include <cstdio>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "famcost.h"
#include "famcost_record.h"

using namespace phybin::famcost;

namespace {

struct Row {
  const Sample* sample;
  Cost cost;
};

double median(std::vector<long> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? double(v[n / 2]) : double(v[n / 2 - 1] + v[n / 2]) / 2;
}

void print_family(const std::string& family, const std::vector<Row>& rows) {
  std::printf("### %s\n\n| instruction | fast path, flags dead | fast path, ZF live (jz, or the row's jcc) | emitted |"
              " helper |\n|---|---:|---:|---:|---|\n", family.c_str());
  for (const Row& r : rows) {
    if (!r.cost.translated) {
      std::printf("| `%s` | untranslated | | | |\n", r.sample->text.c_str());
      continue;
    }
    std::printf("| `%s` | %ld | %ld | %ld | %s |\n", r.sample->text.c_str(), r.cost.flags_dead, r.cost.zf_live,
                r.cost.emitted, r.cost.helper ? "helper" : "no");
  }
  std::printf("\n");
}

void print_summary(const std::vector<std::string>& families, const std::vector<Row>& rows) {
  std::printf("### Summary (fast path)\n\n| family | samples | median, flags dead | max | median, ZF live | max |"
              " helper calls | untranslated |\n|---|---:|---:|---:|---:|---:|---:|---:|\n");
  for (const std::string& family : families) {
    std::vector<long> costs, live_costs;
    int helpers = 0, refused = 0;
    for (const Row& r : rows) {
      if (r.sample->family != family) continue;
      if (!r.cost.translated) {
        ++refused;
        continue;
      }
      costs.push_back(r.cost.flags_dead);
      live_costs.push_back(r.cost.zf_live);
      helpers += r.cost.helper;
    }
    auto max = [](const std::vector<long>& v) { return v.empty() ? 0 : *std::max_element(v.begin(), v.end()); };
    std::printf("| %s | %zu | %g | %ld | %g | %ld | %d | %d |\n", family.c_str(), costs.size() + size_t(refused),
                median(costs), max(costs), median(live_costs), max(live_costs), helpers, refused);
  }
  std::printf("\n");
}

// The families whose instructions C compilers put in hot loops.
const char* const kCommonFamilies[] = {"alu",    "alu_mem", "mem",     "cond",   "branch",      "shift",      "muldiv",
                                       "bits",   "string",  "stack",   "sse_int", "sse_fp",     "sse_shuffle",
                                       "sse_convert"};

bool is_common(const std::string& family) {
  return std::find(std::begin(kCommonFamilies), std::end(kCommonFamilies), family) != std::end(kCommonFamilies);
}

// The costliest instructions of the common families.  A helper call's
// count is the call's own code (saving and reloading the guest registers);
// the helper's instructions come on top.
void print_most_expensive(const std::vector<Row>& rows, size_t count, bool inline_only) {
  std::vector<const Row*> common;
  for (const Row& r : rows)
    if (r.cost.translated && is_common(r.sample->family) && !(inline_only && r.cost.helper)) common.push_back(&r);
  std::stable_sort(common.begin(), common.end(),
                   [](const Row* a, const Row* b) { return a->cost.flags_dead > b->cost.flags_dead; });
  std::printf("### The %zu most expensive %sinstructions of the common families (fast path, flags dead)\n\n"
              "| instruction | family | AArch64 insns | helper |\n|---|---|---:|---|\n",
              count, inline_only ? "inline " : "");
  for (size_t i = 0; i < common.size() && i < count; ++i)
    std::printf("| `%s` | %s | %ld | %s |\n", common[i]->sample->text.c_str(), common[i]->sample->family.c_str(),
                common[i]->cost.flags_dead, common[i]->cost.helper ? "helper" : "no");
  std::printf("\n");
}

int dump(const std::string& text, const char* file) {
  const Sample* s = find_sample(text);
  if (!s) {
    std::fprintf(stderr, "famcost: no sample '%s'\n", text.c_str());
    return 2;
  }
  Meter meter;
  const Cost cost = meter.measure(*s);
  if (!cost.translated) {
    std::fprintf(stderr, "famcost: %s\n", cost.error.c_str());
    return 1;
  }
  const std::vector<uint32_t> code = meter.last_block();
  FILE* out = std::fopen(file, "wb");
  if (!out || std::fwrite(code.data(), sizeof code[0], code.size(), out) != code.size() || std::fclose(out) != 0) {
    std::fprintf(stderr, "famcost: cannot write %s\n", file);
    return 1;
  }
  return 0;
}

int write_record(const char* file) {
  const std::string text = format_record(measure_all(Meter()));
  std::ofstream out(file, std::ios::binary);
  out << text;
  out.close();
  if (!out) {
    std::fprintf(stderr, "famcost: cannot write %s\n", file);
    return 1;
  }
  return 0;
}

int check(const char* file) {
  std::ifstream in(file);
  if (!in) {
    std::fprintf(stderr, "famcost: cannot read %s\n", file);
    return 2;
  }
  std::vector<Entry> recorded;
  try {
    recorded = parse_record(in);
  } catch (const std::runtime_error& e) {
    std::fprintf(stderr, "famcost: %s: %s\n", file, e.what());
    return 2;
  }
  const std::vector<Entry> current = measure_all(Meter());
  const Verdict v = check_record(recorded, current);
  for (const std::string& n : v.notes) std::printf("note: %s\n", n.c_str());
  for (const std::string& f : v.failures) std::printf("FAIL: %s\n", f.c_str());
  std::printf("famcost --check: %zu forms recorded, %zu measured, %zu failures, %zu notes\n", recorded.size(),
              current.size(), v.failures.size(), v.notes.size());
  if (!v.failures.empty() || !v.notes.empty())
    std::printf("If the change is meant, regenerate the record in the same commit and say why:\n"
                "  build/host/bench/tools/famcost --record tests/insncount/record.txt\n");
  return v.failures.empty() ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc == 4 && std::string(argv[1]) == "--dump") return dump(argv[2], argv[3]);
  if (argc == 3 && std::string(argv[1]) == "--record") return write_record(argv[2]);
  if (argc == 3 && std::string(argv[1]) == "--check") return check(argv[2]);
  std::vector<std::string> wanted(argv + 1, argv + argc);
  std::vector<std::string> families;
  std::vector<Row> rows;
  Meter meter;
  for (const Sample& s : samples()) {
    if (!wanted.empty() && std::find(wanted.begin(), wanted.end(), s.family) == wanted.end()) continue;
    if (std::find(families.begin(), families.end(), s.family) == families.end()) families.push_back(s.family);
    rows.push_back({&s, meter.measure(s)});
  }
  if (rows.empty()) {
    std::fprintf(stderr, "famcost: no samples of the families given\n");
    return 2;
  }
  for (const std::string& family : families) {
    std::vector<Row> of_family;
    for (const Row& r : rows)
      if (r.sample->family == family) of_family.push_back(r);
    print_family(family, of_family);
  }
  print_summary(families, rows);
  print_most_expensive(rows, 15, false);
  print_most_expensive(rows, 15, true);
  for (const Row& r : rows)
    if (!r.cost.translated) std::fprintf(stderr, "famcost: %s: %s\n", r.sample->text.c_str(), r.cost.error.c_str());
  return 0;
}
