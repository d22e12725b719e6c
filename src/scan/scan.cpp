#include "scan/scan.h"

#include <chrono>
#include <map>

#include "scan/code.h"
#include "scan/guards.h"

namespace phybin::scan {

namespace {

std::string kind_of(const Image& image) {
  if (image.elf_type == 3 && (!image.soname.empty() || (image.interpreter.empty() && image.entry == 0)))
    return "shared object";
  if (image.interpreter.empty()) return "static executable";
  return "executable";
}

void add_instructions(FileReport& r, const Image& image, const CodeFacts& facts, const Guards& guards) {
  std::map<uint32_t, size_t> function_of_unit;
  for (const Finding& f : facts.untranslatable) {
    if (!guards.kept[f.unit]) continue;
    const char* optional = optional_extension(f.extension);
    const std::string guard = !guards.guard[f.unit].empty() ? guards.guard[f.unit] : optional ? optional : "";
    r.untranslatable.push_back(Instruction{f.address, image.name_of(f.address), f.text, f.extension, f.level, guard});
    auto [it, added] = function_of_unit.emplace(f.unit, r.functions.size());
    if (added) {
      const Unit& u = facts.units[f.unit];
      const std::string name = image.name_of(u.begin);
      r.functions.push_back(FunctionNeed{u.begin, name.empty() ? hex(u.begin) : name, u.level, u.level_extension, 0, guard});
    }
    ++r.functions[it->second].untranslatable;
  }
}

void add_levels(FileReport& r, const CodeFacts& facts, const Guards& guards) {
  for (size_t u = 0; u < facts.units.size(); ++u) {
    if (!guards.kept[u]) continue;
    r.level_any = std::max<int>(r.level_any, facts.units[u].level);
    if (guards.guard[u].empty() && facts.units[u].level > r.level_needed) {
      r.level_needed = facts.units[u].level;
      r.level_needed_at = facts.units[u].level_address;
      r.level_needed_extension = facts.units[u].level_extension;
    }
  }
}

void decide(FileReport& r) {
  unsigned unconditional = 0, guarded = 0;
  const Instruction* first = nullptr;
  for (const Instruction& i : r.untranslatable) {
    if (!i.guard.empty()) {
      ++guarded;
    } else {
      if (!first) first = &i;
      ++unconditional;
    }
  }
  std::vector<std::string> missing;
  for (const LibraryStatus& l : r.libraries)
    if (l.state == LibraryStatus::Missing) missing.push_back(l.name);
  r.runs = unconditional == 0 && missing.empty() && r.interpreter_found;
  std::string why;
  auto reason = [&](const std::string& s) { why += (why.empty() ? "" : "; ") + s; };
  if (!r.interpreter_found) reason("its interpreter " + r.interpreter + " is missing");
  for (const std::string& m : missing) reason(m + " is missing");
  if (unconditional)
    reason(std::to_string(unconditional) + " instruction" + (unconditional > 1 ? "s" : "") +
           " phybin cannot translate, not behind a CPU check the scan can see (first: '" + first->text + "', " +
           first->extension +
           ", at " + hex(first->address) + (first->function.empty() ? "" : " in " + first->function) + ")");
  if (r.runs) {
    r.verdict = "runs";
    if (guarded)
      r.verdict += " (" + std::to_string(guarded) + " instruction" + (guarded > 1 ? "s" : "") +
                   " phybin cannot translate, all behind CPU checks that phybin's CPU answers no)";
  } else {
    r.verdict = "will not run: " + why;
  }
}

}  // namespace

std::string level_name(int level) { return "x86-64-v" + std::to_string(level); }

FileReport scan_image(const Image& image, const x86::Frontend& frontend, LibraryLookup& libraries,
                      const ScanOptions& options, const std::map<std::string, std::string>& bundled) {
  const auto start = std::chrono::steady_clock::now();
  FileReport r;
  r.path = image.path;
  r.kind = kind_of(image);
  r.interpreter = image.interpreter;
  if (!image.interpreter.empty()) r.interpreter_found = !libraries.find_interpreter(image.interpreter).empty();
  for (const CodeSection& s : image.code) r.code_bytes += s.size;
  const CodeFacts facts = decode_code(image, frontend, options.threads);
  const Guards guards = find_guards(image, facts);
  r.instructions = facts.instructions;
  r.undecodable_bytes = facts.undecodable_bytes;
  add_instructions(r, image, facts, guards);
  add_levels(r, facts, guards);
  r.libraries = libraries.resolve(image, bundled);
  decide(r);
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return r;
}

}  // namespace phybin::scan
