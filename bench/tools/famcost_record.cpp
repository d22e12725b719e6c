#include "famcost_record.h"

#include <charconv>
#include <cstdio>
#include <map>
#include <set>
#include <stdexcept>

namespace phybin::famcost {
namespace {

constexpr const char* kHeader =
    "# phybin's AArch64 instruction counts per x86-64 instruction form (issue 25).\n"
    "#\n"
    "# Regenerate it on purpose, from the repository root after scripts/build:\n"
    "#\n"
    "#   build/host/bench/tools/famcost --record tests/insncount/record.txt\n"
    "#\n"
    "# The ctest insncount.record runs `famcost --check` on this file and fails\n"
    "# when any count of a form grows, when a form is missing here or from the\n"
    "# samples table, or when fewer than 200 forms are recorded.  A change that\n"
    "# makes translations longer on purpose, or adds or removes samples,\n"
    "# regenerates the record in the same commit and says why.  Forms that got\n"
    "# cheaper pass with a note: regenerate to keep the gain.\n"
    "#\n"
    "# famcost (bench/README.md) translates each sample of\n"
    "# bench/tools/famcost_samples.S as a block of its own with the real\n"
    "# frontend, IR passes and backend (default settings: x86's NaNs, no LSE,\n"
    "# no TSO) and subtracts the same block without it.  Columns:\n"
    "#   family       the samples table's family\n"
    "#   instruction  the form as written in the samples table\n"
    "#   fast         AArch64 instructions on the path that takes no conditional\n"
    "#                branch (what a hot loop runs), its flags dead\n"
    "#   flags live   the same with its flags read by a jz after it (a row\n"
    "#                ending in `; jcc`: by that jcc), against the jcc alone\n"
    "#   emitted      all the instructions it adds, slow paths included\n"
    "# A \"-\" in every column: phybin does not translate the form.\n"
    "#\n";

// Fixed widths, so that a new or changed row is a one-line diff.
constexpr int kFamilyWidth = 19;
constexpr int kTextWidth = 40;
constexpr size_t kColumns = 5;

std::string row_line(const std::string& family, const std::string& text, const std::string& fast,
                     const std::string& live, const std::string& emitted) {
  char line[256];
  std::snprintf(line, sizeof line, "%-*s | %-*s | %5s | %10s | %7s", kFamilyWidth, family.c_str(), kTextWidth,
                text.c_str(), fast.c_str(), live.c_str(), emitted.c_str());
  return std::string(line) + "\n";
}

std::string trim(const std::string& s) {
  const size_t first = s.find_first_not_of(" \t\r");
  if (first == std::string::npos) return {};
  return s.substr(first, s.find_last_not_of(" \t\r") - first + 1);
}

bool parse_count(const std::string& field, long& out) {
  const char* end = field.data() + field.size();
  const auto [ptr, ec] = std::from_chars(field.data(), end, out);
  return ec == std::errc() && ptr == end;
}

std::string counts(const Entry& e) {
  return "fast " + std::to_string(e.flags_dead) + ", flags live " + std::to_string(e.zf_live) + ", emitted " +
         std::to_string(e.emitted);
}

// "fast 2 -> 3, emitted 9 -> 10": the columns that changed.
std::string changes(const Entry& old, const Entry& now, bool& grew, bool& shrank) {
  struct Column {
    const char* name;
    long before, after;
  };
  const Column columns[] = {{"fast", old.flags_dead, now.flags_dead},
                            {"flags live", old.zf_live, now.zf_live},
                            {"emitted", old.emitted, now.emitted}};
  std::string out;
  for (const Column& c : columns) {
    if (c.before == c.after) continue;
    grew |= c.after > c.before;
    shrank |= c.after < c.before;
    if (!out.empty()) out += ", ";
    out += std::string(c.name) + " " + std::to_string(c.before) + " -> " + std::to_string(c.after);
  }
  return out;
}

void compare(const Entry& old, const Entry& now, Verdict& v) {
  const std::string form = "`" + now.text + "` (" + now.family + ")";
  if (old.family != now.family)
    v.failures.push_back(form + ": recorded in family " + old.family + ", now in " + now.family);
  if (old.translated && !now.translated) {
    v.failures.push_back(form + ": no longer translated (was " + counts(old) + ")");
    return;
  }
  if (!old.translated) {
    if (now.translated) v.notes.push_back(form + ": translated now (" + counts(now) + ")");
    return;
  }
  bool grew = false, shrank = false;
  const std::string diff = changes(old, now, grew, shrank);
  if (grew)
    v.failures.push_back(form + " grew: " + diff);
  else if (shrank)
    v.notes.push_back(form + " got cheaper: " + diff);
}

}  // namespace

std::vector<Entry> measure_all(const Meter& meter) {
  std::vector<Entry> entries;
  for (const Sample& s : samples()) {
    const Cost c = meter.measure(s);
    entries.push_back({s.family, s.text, c.translated, c.flags_dead, c.zf_live, c.emitted});
  }
  return entries;
}

std::string format_record(const std::vector<Entry>& entries) {
  std::string out = kHeader;
  out += row_line("# family", "instruction", "fast", "flags live", "emitted");
  for (const Entry& e : entries) {
    if (!e.translated) {
      out += row_line(e.family, e.text, "-", "-", "-");
      continue;
    }
    out += row_line(e.family, e.text, std::to_string(e.flags_dead), std::to_string(e.zf_live),
                    std::to_string(e.emitted));
  }
  return out;
}

std::vector<Entry> parse_record(std::istream& in) {
  std::vector<Entry> entries;
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    const std::string content = trim(line);
    if (content.empty() || content[0] == '#') continue;
    std::vector<std::string> fields;
    for (size_t start = 0;;) {
      const size_t bar = content.find('|', start);
      fields.push_back(trim(content.substr(start, bar == std::string::npos ? std::string::npos : bar - start)));
      if (bar == std::string::npos) break;
      start = bar + 1;
    }
    auto bad = [&](const std::string& why) {
      return std::runtime_error("line " + std::to_string(number) + ": " + why + ": " + line);
    };
    if (fields.size() != kColumns) throw bad("not 5 columns separated by |");
    Entry e;
    e.family = fields[0];
    e.text = fields[1];
    if (e.family.empty() || e.text.empty()) throw bad("no family or no instruction");
    if (fields[2] == "-" && fields[3] == "-" && fields[4] == "-") {
      entries.push_back(e);
      continue;
    }
    if (!parse_count(fields[2], e.flags_dead) || !parse_count(fields[3], e.zf_live) ||
        !parse_count(fields[4], e.emitted))
      throw bad("counts are not numbers (or '-' in all three)");
    e.translated = true;
    entries.push_back(e);
  }
  return entries;
}

Verdict check_record(const std::vector<Entry>& recorded, const std::vector<Entry>& current) {
  Verdict v;
  // Forms are told apart by their text alone, so that moving a sample to
  // another family shows as that and not as one form gone and one new.
  std::map<std::string, const Entry*> now;
  for (const Entry& e : current)
    if (!now.emplace(e.text, &e).second) v.failures.push_back("`" + e.text + "` is in the samples table twice");
  std::set<std::string> seen;
  for (const Entry& old : recorded) {
    if (!seen.insert(old.text).second) {
      v.failures.push_back("`" + old.text + "` is in the record twice");
      continue;
    }
    const auto it = now.find(old.text);
    if (it == now.end()) {
      v.failures.push_back("`" + old.text + "` (" + old.family + ") is recorded but no longer a sample");
      continue;
    }
    compare(old, *it->second, v);
  }
  for (const Entry& e : current)
    if (!seen.count(e.text)) v.failures.push_back("`" + e.text + "` (" + e.family + ") is a sample but not recorded");
  if (recorded.size() < kMinRecordForms)
    v.failures.push_back("the record holds " + std::to_string(recorded.size()) + " forms, fewer than " +
                         std::to_string(kMinRecordForms));
  return v;
}

}  // namespace phybin::famcost
