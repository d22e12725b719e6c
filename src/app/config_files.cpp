#include "app/config_files.h"

#include <limits.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <cstdio>
#include <optional>
#include <sstream>

#include "common/error.h"

namespace phybin::app {

namespace {

std::string trimmed(const std::string& text) {
  const size_t begin = text.find_first_not_of(" \t\r");
  if (begin == std::string::npos) return {};
  return text.substr(begin, text.find_last_not_of(" \t\r") - begin + 1);
}

std::string base_name(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// The names a section may give `program` by: its file name and absolute
// path, as run and with its links resolved.
std::vector<std::string> names_of(const std::string& program) {
  if (program.empty()) return {};
  std::string absolute = program;
  if (program[0] != '/') {
    char cwd[PATH_MAX];
    if (getcwd(cwd, sizeof cwd)) absolute = std::string(cwd) + "/" + program;
  }
  std::vector<std::string> names = {base_name(program), absolute};
  char resolved[PATH_MAX];
  if (realpath(program.c_str(), resolved)) {
    names.emplace_back(base_name(resolved));
    names.emplace_back(resolved);
  }
  return names;
}

bool section_matches(const std::string& section, const std::vector<std::string>& names) {
  if (section.find('/') != std::string::npos && section[0] != '/') return false;  // a relative path names nothing
  return std::find(names.begin(), names.end(), section) != names.end();
}

// Why `file`, which fopen could not open with `error`, is no settings file
// at all; empty when it is one that cannot be read.  A directory on the
// way that cannot be searched (a service running as nobody with
// HOME=/root) hides the file as well as its absence does.
std::string why_absent(const std::string& file, int error) {
  if (error == ENOENT || error == ENOTDIR) return "it does not exist";
  struct stat st {};
  if (error == EACCES && ::stat(file.c_str(), &st) != 0 && errno == EACCES)
    return "a directory on its path cannot be searched";
  return {};
}

// The file's text, or nullopt when there is no such file (why in `absent`).
std::optional<std::string> contents_of(const SettingsFile& file, std::string& absent) {
  std::string text;
  FILE* f = std::fopen(file.path.c_str(), "re");
  if (!f) absent = why_absent(file.path, errno);
  if (!f && !absent.empty()) {
    if (file.required)
      throw Error(ErrorCode::PHYBIN_ERR_USAGE,
                  "PHYBIN_SYSTEM_CONFIG='" + file.path + "' names no settings file: " + absent);
    return std::nullopt;
  }
  char buf[4096];
  size_t n = 0;
  while (f && (n = std::fread(buf, 1, sizeof buf, f)) > 0) text.append(buf, n);
  const int error = !f ? errno : std::ferror(f) ? errno : 0;
  if (f) std::fclose(f);
  if (!f || error)
    throw Error(ErrorCode::PHYBIN_ERR_FILE_ACCESS,
                file.path + ": cannot read this settings file: " + std::strerror(error));
  return text;
}

[[noreturn]] void malformed(const std::string& where, const std::string& why) {
  throw Error(ErrorCode::PHYBIN_ERR_USAGE, where + ": " + why);
}

// A name the table does not know: an error that names the nearest known one.
[[noreturn]] void unknown(const std::string& where, const std::string& name) {
  malformed(where, "unknown setting '" + name + "' (nearest: " + nearest_setting(name).name +
                       "; 'phybin info' lists the settings)");
}

void read_settings_text(const std::string& file, const std::string& contents, const std::string& program,
                        std::map<std::string, SettingValue>& values) {
  std::istringstream in(contents);
  std::string line;
  const std::vector<std::string> names = names_of(program);
  std::map<std::string, SettingValue> general, mine;
  std::string section;
  bool in_mine = false;
  for (unsigned number = 1; std::getline(in, line); ++number) {
    const std::string text = trimmed(line);
    const std::string where = file + ":" + std::to_string(number);
    if (text.empty() || text[0] == '#') continue;
    if (text[0] == '[') {
      if (text.back() != ']' || text.size() < 3) malformed(where, "a section is [PROGRAM] (a name or an absolute path)");
      section = trimmed(text.substr(1, text.size() - 2));
      in_mine = section_matches(section, names);
      continue;
    }
    const size_t eq = text.find('=');
    if (eq == std::string::npos) malformed(where, "'" + text + "' is neither NAME = VALUE nor a [PROGRAM] section");
    const std::string name = trimmed(text.substr(0, eq));
    std::string value = trimmed(text.substr(eq + 1));
    if (value.size() >= 2 && value.front() == '"' && value.back() == '"') value = value.substr(1, value.size() - 2);
    const std::vector<SettingInfo>& known = known_settings();
    if (std::none_of(known.begin(), known.end(), [&](const SettingInfo& s) { return name == s.name; }))
      unknown(where, name);
    if (section.empty()) general[name] = {value, where};
    else if (in_mine) mine[name] = {value, where + " [" + section + "]"};
  }
  for (auto& [name, value] : general) values[name] = std::move(value);
  for (auto& [name, value] : mine) values[name] = std::move(value);
}

}  // namespace

std::string read_settings_file(const SettingsFile& file, const std::string& program,
                               std::map<std::string, SettingValue>& values) {
  std::string absent;
  const std::optional<std::string> text = contents_of(file, absent);
  if (!text) return absent;
  read_settings_text(file.path, *text, program, values);
  return {};
}

}  // namespace phybin::app
