// scan's output: the text a user reads and the JSON doc/scan-schema.md
// describes.
#include <cstdio>

#include "scan/scan.h"

namespace phybin::scan {

namespace {

const char* state_name(LibraryStatus::State s) {
  return s == LibraryStatus::Forwarded ? "forwarded" : s == LibraryStatus::Found ? "found" : "missing";
}

std::string quoted(const std::string& s) {
  std::string out = "\"";
  for (const unsigned char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c < 0x20) {
      char b[8];
      std::snprintf(b, sizeof b, "\\u%04x", c);
      out += b;
    } else {
      out += static_cast<char>(c);
    }
  }
  return out + "\"";
}

// A JSON object written field by field.
class Object {
 public:
  Object& field(const char* name, const std::string& json) {
    text_ += (text_.empty() ? "{" : ", ") + quoted(name) + ": " + json;
    return *this;
  }
  Object& str(const char* name, const std::string& v) { return field(name, quoted(v)); }
  Object& num(const char* name, uint64_t v) { return field(name, std::to_string(v)); }
  Object& flag(const char* name, bool v) { return field(name, v ? "true" : "false"); }
  std::string done() const { return text_.empty() ? "{}" : text_ + "}"; }

 private:
  std::string text_;
};

template <typename T, typename F>
std::string array(const std::vector<T>& items, F one, const char* indent) {
  if (items.empty()) return "[]";
  std::string out = "[";
  for (size_t i = 0; i < items.size(); ++i) out += std::string(i ? "," : "") + "\n" + indent + one(items[i]);
  return out + "]";
}

std::string library_line(const LibraryStatus& l) {
  std::string s = "  library " + l.name + ": " + state_name(l.state);
  if (l.state == LibraryStatus::Forwarded) s += " to the host's " + l.path;
  else if (l.state == LibraryStatus::Found) s += " (" + l.path + ")";
  if (l.state == LibraryStatus::Missing) s += ", needed by " + l.needed_by;
  return s + "\n";
}

std::string instruction_line(const Instruction& i) {
  return "  " + hex(i.address) + (i.function.empty() ? "" : " <" + i.function + ">") + ": " + i.text + "  (" +
         i.extension + ", " + level_name(i.level) + ") " + (i.guard.empty() ? "unconditional" : "guarded: " + i.guard) +
         "\n";
}

std::string file_json(const FileReport& r) {
  Object o;
  o.str("path", r.path).str("kind", r.kind).flag("runs", r.runs).str("verdict", r.verdict);
  o.field("isa_level", Object().str("needed", level_name(r.level_needed)).str("any", level_name(r.level_any)).done());
  o.field("interpreter", r.interpreter.empty() ? "null"
                                               : Object().str("path", r.interpreter).flag("found", r.interpreter_found).done());
  o.field("libraries", array(r.libraries, [](const LibraryStatus& l) {
            return Object().str("name", l.name).str("state", state_name(l.state)).str("path", l.path)
                .str("needed_by", l.needed_by).done();
          }, "      "));
  o.field("functions", array(r.functions, [](const FunctionNeed& f) {
            return Object().str("name", f.name).str("address", hex(f.address)).str("level", level_name(f.level))
                .str("extension", f.extension).num("untranslatable", f.untranslatable).flag("guarded", !f.guard.empty())
                .str("guard", f.guard).done();
          }, "      "));
  o.field("untranslatable", array(r.untranslatable, [](const Instruction& i) {
            return Object().str("address", hex(i.address)).str("function", i.function).str("instruction", i.text)
                .str("extension", i.extension).str("level", level_name(i.level)).flag("guarded", !i.guard.empty())
                .str("guard", i.guard).done();
          }, "      "));
  char seconds[32];
  std::snprintf(seconds, sizeof seconds, "%.3f", r.seconds);
  o.num("code_bytes", r.code_bytes).num("instructions", r.instructions).num("undecodable_bytes", r.undecodable_bytes);
  return o.field("seconds", seconds).done();
}

}  // namespace

std::string text_report(const FileReport& r, bool details) {
  std::string out = r.path + ": " + r.verdict + "\n";
  if (!details && r.runs) return out;
  out += "  " + r.kind + ", " + level_name(r.level_needed) + " needed";
  if (r.level_needed > 1) out += " (" + r.level_needed_extension + " at " + hex(r.level_needed_at) + ")";
  if (r.level_any > r.level_needed) out += ", up to " + level_name(r.level_any) + " behind CPU checks";
  out += "; phybin translates up to " + level_name(kTranslatedLevel) + " and more (AES, SHA, BMI, MOVBE...)\n";
  for (const LibraryStatus& l : r.libraries)
    if (details || l.state == LibraryStatus::Missing) out += library_line(l);
  unsigned functions = 0;
  for (const FunctionNeed& f : r.functions)
    if ((details || f.guard.empty()) && functions++ < (details ? ~0u : 10u))
      out += "  function " + f.name + " at " + hex(f.address) + ": " + std::to_string(f.untranslatable) +
             " instruction" + (f.untranslatable > 1 ? "s" : "") + " phybin cannot translate (" + level_name(f.level) +
             ", " + f.extension + "), " + (f.guard.empty() ? "unconditional" : "guarded: " + f.guard) + "\n";
  unsigned shown = 0, left = 0;
  for (const Instruction& i : r.untranslatable) {
    if (!details && !i.guard.empty()) continue;
    if (shown < (details ? ~0u : 20u)) {
      out += instruction_line(i);
      ++shown;
    } else {
      ++left;
    }
  }
  if (left) out += "  ... and " + std::to_string(left) + " more (--details or --json: all)\n";
  return out;
}

std::string json_report(const std::vector<FileReport>& reports, const std::vector<std::string>& skipped,
                        const std::vector<std::string>& errors) {
  auto strings = [](const std::vector<std::string>& v) { return array(v, quoted, "    "); };
  bool all_run = errors.empty();
  for (const FileReport& r : reports) all_run = all_run && r.runs;
  Object o;
  o.num("schema", 1).str("translated_level", level_name(kTranslatedLevel)).flag("all_run", all_run);
  o.field("files", array(reports, file_json, "    "));
  return o.field("skipped", strings(skipped)).field("errors", strings(errors)).done() + "\n";
}

}  // namespace phybin::scan
