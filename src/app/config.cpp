#include "app/config.h"

#include <sys/stat.h>

#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <string>

#include "common/error.h"

namespace phybin::app {

size_t parse_size(const std::string& text, const char* name) {
  char* end = nullptr;
  unsigned long long n = std::strtoull(text.c_str(), &end, 10);
  size_t unit = 1u << 20;
  std::string suffix = end ? end : "";
  if (suffix == "K" || suffix == "k") unit = 1u << 10;
  else if (suffix == "G" || suffix == "g") unit = 1u << 30;
  else if (!suffix.empty() && suffix != "M" && suffix != "m") n = 0;
  if (text.empty() || end == text.c_str() || n == 0 || n > (1ull << 40) / unit)
    throw Error(ErrorCode::PHYBIN_ERR_USAGE,
                std::string(name) + "='" + text + "' is not a size: give megabytes (64) or a K/M/G suffix (512K)");
  return static_cast<size_t>(n) * unit;
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

// PHYBIN_CACHE_DIR, else the XDG cache directory; "off" keeps nothing.
std::string translation_dir_setting() {
  if (const char* v = std::getenv("PHYBIN_CACHE_DIR")) {
    std::string dir = v;
    if (dir == "off" || dir == "0") return {};
    if (dir.empty() || dir[0] != '/')
      throw Error(ErrorCode::PHYBIN_ERR_USAGE,
                  "PHYBIN_CACHE_DIR='" + dir + "' must be an absolute directory path, or off");
    return dir;
  }
  const char* xdg = std::getenv("XDG_CACHE_HOME");
  if (xdg && xdg[0] == '/') return std::string(xdg) + "/phybin";
  const char* home = std::getenv("HOME");
  if (home && home[0] == '/') return std::string(home) + "/.cache/phybin";
  return {};
}

// A 0/1 switch NAME, `fallback` when it is not set.
bool read_switch(const char* name, bool fallback) {
  const char* v = std::getenv(name);
  if (!v) return fallback;
  const std::string text = v;
  if (text != "0" && text != "1")
    throw Error(ErrorCode::PHYBIN_ERR_USAGE, std::string(name) + "='" + text + "' must be 0 or 1");
  return text == "1";
}

}  // namespace

Settings read_settings() {
  Settings s;
  if (const char* v = std::getenv("PHYBIN_CACHE_SIZE")) {
    s.cache_bytes = parse_size(v, "PHYBIN_CACHE_SIZE");
    s.cache_source = "PHYBIN_CACHE_SIZE";
    // Block-to-block branches reach +-128 MiB: the cache must fit in that.
    if (s.cache_bytes > (120u << 20))
      throw Error(ErrorCode::PHYBIN_ERR_USAGE, "PHYBIN_CACHE_SIZE is at most 120 (MiB)");
  }
  if (const char* v = std::getenv("PHYBIN_LOG_LEVEL")) {
    char* end = nullptr;
    long level = std::strtol(v, &end, 10);
    if (*v == '\0' || *end != '\0' || level < 0 || level > 3)
      throw Error(ErrorCode::PHYBIN_ERR_USAGE, std::string("PHYBIN_LOG_LEVEL='") + v + "' must be 0, 1, 2 or 3");
    s.log_level = static_cast<int>(level);
  }
  if (const char* v = std::getenv("PHYBIN_LOG_FILE")) s.log_file = v;
  s.strict_flags = read_switch("PHYBIN_STRICT_FLAGS", s.strict_flags);
  s.verify_ir = read_switch("PHYBIN_IR_VERIFY", s.verify_ir);
  s.translation_dir = translation_dir_setting();
  s.host_crc32 = read_switch("PHYBIN_HOST_CRC32", s.host_crc32);
  s.exact_mxcsr = read_switch("PHYBIN_EXACT_MXCSR", s.exact_mxcsr);
  s.host_pmull = read_switch("PHYBIN_HOST_PMULL", s.host_pmull);
  s.host_aes = read_switch("PHYBIN_HOST_AES", s.host_aes);
  s.superblocks = read_switch("PHYBIN_SUPERBLOCKS", s.superblocks);
  s.host_lse = read_switch("PHYBIN_HOST_LSE", s.host_lse);
  if (const char* v = std::getenv("PHYBIN_ROOTFS"); v && *v) s.rootfs = checked_rootfs(v, "PHYBIN_ROOTFS");
  if (const char* v = std::getenv("PHYBIN_FORWARD")) s.forward = v;
  if (const char* v = std::getenv("PHYBIN_ROCM_PATH"); v && *v) {
    if (*v != '/')
      throw Error(ErrorCode::PHYBIN_ERR_USAGE, std::string("PHYBIN_ROCM_PATH='") + v +
                                                   "' must be an absolute path (a ROCm installation, like /opt/rocm)");
    s.rocm_path = v;
  }
  if (const char* v = std::getenv("PHYBIN_WATCHDOG")) {
    char* end = nullptr;
    errno = 0;
    const unsigned long seconds = std::strtoul(v, &end, 10);
    if (*v == '\0' || *v == '-' || *end != '\0' || errno != 0 || seconds > 86400)
      throw Error(ErrorCode::PHYBIN_ERR_USAGE,
                  std::string("PHYBIN_WATCHDOG='") + v + "' must be a number of seconds (0 to 86400; 0: off)");
    s.watchdog_seconds = static_cast<unsigned>(seconds);
  }
  if (const char* v = std::getenv("PHYBIN_WATCHDOG_ACTION")) {
    const std::string action = v;
    if (action != "report" && action != "abort")
      throw Error(ErrorCode::PHYBIN_ERR_USAGE, "PHYBIN_WATCHDOG_ACTION='" + action + "' must be report or abort");
    s.watchdog_abort = action == "abort";
  }
  if (const char* v = std::getenv("PHYBIN_TSO")) {
    s.tso = v;
    if (s.tso != "auto" && s.tso != "strict" && s.tso != "off")
      throw Error(ErrorCode::PHYBIN_ERR_USAGE, "PHYBIN_TSO='" + s.tso + "' must be auto, strict or off");
  }
  return s;
}

}  // namespace phybin::app
