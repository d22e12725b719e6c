#include "app/config.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>

#include "app/config_files.h"
#include "common/error.h"
#include "forward/forwarder.h"

namespace phybin::app {

size_t parse_size(const std::string& text, const char* name) {
  char* end = nullptr;
  unsigned long long n = std::strtoull(text.c_str(), &end, 10);
  size_t unit = 1u << 20;
  std::string suffix = end ? end : "";
  if (suffix == "K" || suffix == "k") unit = 1u << 10;
  else if (suffix == "G" || suffix == "g") unit = 1u << 30;
  else if (!suffix.empty() && suffix != "M" && suffix != "m") n = 0;
  if (text.empty() || end == text.c_str() || n == 0 || text[0] == '-')
    throw Error(ErrorCode::PHYBIN_ERR_USAGE,
                std::string(name) + "='" + text + "' is not a size: give megabytes (64) or a K/M/G suffix (512K)");
  // Larger than any setting allows; the setting's own check names its range.
  constexpr unsigned long long kMost = 1ull << 40;
  return n > kMost / unit ? kMost : static_cast<size_t>(n) * unit;
}

// An x86-64 root must be an absolute directory (a relative one would
// change meaning with the guest's working directory).
std::string checked_rootfs(const std::string& dir, const char* from) {
  struct stat st {};
  if (dir.empty() || dir[0] != '/' || ::stat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
    throw Error(ErrorCode::PHYBIN_ERR_USAGE,
                std::string(from) + "='" + dir + "' must name an existing directory by its absolute path");
  return dir;
}

uint64_t checked_signal_mask(const std::string& text) {
  constexpr uint64_t kAllowed = (uint64_t{1} << (SIGSEGV - 1)) | (uint64_t{1} << (SIGBUS - 1));
  char* end = nullptr;
  errno = 0;
  const unsigned long long value = std::strtoull(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0' || errno != 0 || (value & ~kAllowed) != 0)
    throw Error(ErrorCode::PHYBIN_ERR_USAGE,
                "--blocked-signals '" + text + "' must be a decimal mask of the SIGSEGV and SIGBUS bits");
  return value;
}

namespace {

[[noreturn]] void bad(const char* name, const std::string& text, const std::string& want) {
  throw Error(ErrorCode::PHYBIN_ERR_USAGE, std::string(name) + "='" + text + "' " + want);
}

bool parse_switch(const char* name, const std::string& text) {
  if (text != "0" && text != "1") bad(name, text, "must be 0 or 1");
  return text == "1";
}

unsigned parse_number(const char* name, const std::string& text, unsigned long most, const std::string& want) {
  char* end = nullptr;
  errno = 0;
  const unsigned long n = std::strtoul(text.c_str(), &end, 10);
  if (text.empty() || text[0] == '-' || *end != '\0' || errno != 0 || n > most) bad(name, text, want);
  return static_cast<unsigned>(n);
}

std::string parse_choice(const char* name, const std::string& text, std::initializer_list<const char*> choices,
                         const std::string& want) {
  for (const char* c : choices)
    if (text == c) return text;
  bad(name, text, want);
}

// One parser per setting of the table: a setting without one does not
// compile.
void parse_PHYBIN_CACHE_SIZE(Settings& s, const char* name, const std::string& v) {
  s.cache_bytes = parse_size(v, name);
  // Block-to-block branches reach +-128 MiB: the cache must fit in that.
  if (s.cache_bytes > (120u << 20)) bad(name, v, "is too large: at most 120 (MiB), or 122880K");
}
void parse_PHYBIN_ROOTFS(Settings& s, const char* name, const std::string& v) {
  if (!v.empty()) s.rootfs = checked_rootfs(v, name);
}
// "off" keeps nothing; unset, the XDG cache directory (read_settings).
void parse_PHYBIN_CACHE_DIR(Settings& s, const char* name, const std::string& v) {
  if (v == "off" || v == "0") return;
  if (v.empty() || v[0] != '/') bad(name, v, "must be an absolute directory path, or off");
  s.translation_dir = v;
}
void parse_PHYBIN_LOG_LEVEL(Settings& s, const char* name, const std::string& v) {
  s.log_level = static_cast<int>(parse_number(name, v, 3, "must be 0, 1, 2 or 3"));
}
void parse_PHYBIN_LOG_FILE(Settings& s, const char*, const std::string& v) { s.log_file = v; }
void parse_PHYBIN_STRICT_FLAGS(Settings& s, const char* name, const std::string& v) {
  s.strict_flags = parse_switch(name, v);
}
void parse_PHYBIN_EXACT_MXCSR(Settings& s, const char* name, const std::string& v) {
  s.exact_mxcsr = parse_switch(name, v);
}
void parse_PHYBIN_IR_VERIFY(Settings& s, const char* name, const std::string& v) { s.verify_ir = parse_switch(name, v); }
void parse_PHYBIN_HOST_CRC32(Settings& s, const char* name, const std::string& v) {
  s.host_crc32 = parse_switch(name, v);
}
void parse_PHYBIN_HOST_AES(Settings& s, const char* name, const std::string& v) { s.host_aes = parse_switch(name, v); }
void parse_PHYBIN_HOST_PMULL(Settings& s, const char* name, const std::string& v) {
  s.host_pmull = parse_switch(name, v);
}
void parse_PHYBIN_FP_REGIONS(Settings& s, const char* name, const std::string& v) {
  s.fp_regions = parse_switch(name, v);
}
void parse_PHYBIN_SUPERBLOCKS(Settings& s, const char* name, const std::string& v) {
  s.superblocks = parse_switch(name, v);
}
void parse_PHYBIN_HOST_LSE(Settings& s, const char* name, const std::string& v) { s.host_lse = parse_switch(name, v); }
void parse_PHYBIN_TSO(Settings& s, const char* name, const std::string& v) {
  s.tso = parse_choice(name, v, {"auto", "strict", "off"}, "must be auto, strict or off");
}
// all, none, or names the build knows.
void parse_PHYBIN_FORWARD(Settings& s, const char* name, const std::string& v) {
  if (const std::optional<std::string> unknown = forward::Forwarder::unknown_library(v)) {
    std::string list;
    for (const std::string& k : forward::Forwarder::known_libraries()) list += " " + k;
    throw Error(ErrorCode::PHYBIN_ERR_USAGE, std::string(name) + "='" + v + "': '" + *unknown +
                                                 "' is not a forwarded library (all, none," + list + ")");
  }
  s.forward = v;
}
void parse_PHYBIN_ROCM_PATH(Settings& s, const char* name, const std::string& v) {
  if (v.empty()) return;
  if (v[0] != '/') bad(name, v, "must be an absolute path (a ROCm installation, like /opt/rocm)");
  s.rocm_path = v;
}
void parse_PHYBIN_WATCHDOG(Settings& s, const char* name, const std::string& v) {
  s.watchdog_seconds = parse_number(name, v, 86400, "must be a number of seconds (0 to 86400; 0: off)");
}
void parse_PHYBIN_WATCHDOG_ACTION(Settings& s, const char* name, const std::string& v) {
  s.watchdog_abort = parse_choice(name, v, {"report", "abort"}, "must be report or abort") == "abort";
}
void parse_PHYBIN_PERF_MAP(Settings& s, const char* name, const std::string& v) { s.perf_map = parse_switch(name, v); }
void parse_PHYBIN_PROFILE(Settings& s, const char* name, const std::string& v) {
  if (v == "0" || v.empty()) return;
  if (v != "1" && v[0] != '/') bad(name, v, "must be 1 (report on standard error), an absolute file path, or 0");
  s.profile = v;
}
void parse_PHYBIN_WARP_SIZE(Settings& s, const char*, const std::string& v) { s.warp_size = v; }

using Parser = void (*)(Settings&, const char*, const std::string&);
struct Entry {
  SettingInfo info;
  Parser parse;
};
const std::vector<Entry>& table() {
  static const std::vector<Entry> entries = {
#define PHYBIN_SETTING(NAME, DEFAULT, MEANING) {{#NAME, DEFAULT, MEANING}, &parse_##NAME},
#include "app/settings.inc"
#undef PHYBIN_SETTING
  };
  return entries;
}

constexpr const char* kSystemConfig = "PHYBIN_SYSTEM_CONFIG";

// Levenshtein distance: the fewest insertions, deletions and substitutions.
// A common prefix (PHYBIN_) changes nothing and is not compared.
size_t edit_distance(std::string_view a, std::string_view b) {
  while (!a.empty() && !b.empty() && a.front() == b.front()) {
    a.remove_prefix(1);
    b.remove_prefix(1);
  }
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t above = row[j];
      row[j] = std::min({above + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

// A PHYBIN_* variable phybin does not read is a misspelt setting when a
// setting is at most max(2, length / 8) edits away; farther ones belong to
// the scripts and the site's own tools (PHYBIN_ARM64_ROOT, PHYBIN_GUEST_CC,
// PHYBIN_REPO) and are left alone.
void note_misspelt_variables(std::vector<SettingsNote>& notes) {
  for (char** env = environ; *env; ++env) {
    if (std::strncmp(*env, "PHYBIN_", 7) != 0) continue;
    const std::string name(*env, std::strcspn(*env, "="));
    const NearestSetting nearest = nearest_setting(name, std::max<size_t>(2, name.size() / 8));
    if (!nearest.name || nearest.edits == 0) continue;
    notes.push_back({1, "phybin: warning: " + name + " is not a phybin setting and is ignored; did you mean " +
                            nearest.name + "? ('phybin info' lists the settings)"});
  }
}

// Unset: the XDG cache directory, else ~/.cache; off without either.
std::string default_translation_dir() {
  const char* xdg = std::getenv("XDG_CACHE_HOME");
  if (xdg && xdg[0] == '/') return std::string(xdg) + "/phybin";
  const char* home = std::getenv("HOME");
  if (home && home[0] == '/') return std::string(home) + "/.cache/phybin";
  return {};
}

}  // namespace

const std::vector<SettingInfo>& known_settings() {
  static const std::vector<SettingInfo> infos = [] {
    std::vector<SettingInfo> out;
    for (const Entry& e : table()) out.push_back(e.info);
    return out;
  }();
  return infos;
}

// Every run looks at each PHYBIN_* variable: names whose lengths differ by
// more than `most` are that many edits apart at least, and are not compared.
NearestSetting nearest_setting(const std::string& name, size_t most) {
  NearestSetting best{nullptr, SIZE_MAX};
  auto consider = [&](const char* known) {
    const size_t length = std::strlen(known);
    if (std::max(length, name.size()) - std::min(length, name.size()) > most) return;
    if (name == known) best = {known, 0};
    else if (const size_t d = edit_distance(name, known); d <= most && d < best.edits) best = {known, d};
  };
  consider(kSystemConfig);
  for (const Entry& e : table())
    if (best.edits != 0) consider(e.info.name);
  return best;
}

std::vector<SettingsFile> settings_files() {
  std::vector<SettingsFile> files;
  const char* system = std::getenv(kSystemConfig);
  if (system && *system) files.push_back({system, true});
  else files.push_back({"/etc/phybin.conf", false});
  const char* xdg = std::getenv("XDG_CONFIG_HOME");
  const char* home = std::getenv("HOME");
  if (xdg && xdg[0] == '/') files.push_back({std::string(xdg) + "/phybin/phybin.conf", false});
  else if (home && home[0] == '/') files.push_back({std::string(home) + "/.config/phybin/phybin.conf", false});
  return files;
}

Settings read_settings(const std::string& program) {
  std::map<std::string, SettingValue> values;
  std::vector<SettingsNote> notes;
  for (const SettingsFile& file : settings_files())
    if (const std::string absent = read_settings_file(file, program, values); !absent.empty())
      notes.push_back({2, "phybin: settings file " + file.path + " skipped: " + absent});
  for (const Entry& e : table())
    if (const char* v = std::getenv(e.info.name)) values[e.info.name] = {v, "environment"};
  note_misspelt_variables(notes);
  Settings s;
  s.notes = std::move(notes);
  for (const Entry& e : table()) {
    const auto it = values.find(e.info.name);
    if (it == values.end()) continue;
    try {
      e.parse(s, e.info.name, it->second.text);
    } catch (const Error& error) {
      if (it->second.origin == "environment") throw;
      throw Error(error.code(), it->second.origin + ": " + error.what());
    }
  }
  if (!values.contains("PHYBIN_CACHE_DIR")) s.translation_dir = default_translation_dir();
  s.values = std::move(values);
  return s;
}

}  // namespace phybin::app
