// phybin's settings (settings.inc): built-in defaults, overridden by the
// system's settings file, the user's, and PHYBIN_* environment variables,
// in that order.  A file's section for the program being run overrides
// the file's general part.  Each value remembers where it came from.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace phybin::app {

// A setting's text and where it came from: "environment", or a file and
// line ("/etc/phybin.conf:3", with " [python3]" inside a section).
struct SettingValue {
  std::string text;
  std::string origin;
};

// A line for the log at `level` (common/log.h: 1 warning, 2 info).
struct SettingsNote {
  int level;
  std::string text;
};

struct Settings {
  size_t cache_bytes = 64u << 20;
  int log_level = 0;
  bool strict_flags = false;  // PHYBIN_STRICT_FLAGS
  bool verify_ir = false;     // PHYBIN_IR_VERIFY
  bool host_crc32 = true;     // PHYBIN_HOST_CRC32=0: x86 crc32 through the helper (tests it)
  bool exact_mxcsr = false;   // PHYBIN_EXACT_MXCSR
  bool host_pmull = true;     // PHYBIN_HOST_PMULL=0: pclmulqdq through the helper
  bool host_aes = true;       // PHYBIN_HOST_AES=0: the AES rounds through the helper
  bool fp_regions = true;    // PHYBIN_FP_REGIONS=0: no XMM commit regions
  bool superblocks = true;    // PHYBIN_SUPERBLOCKS=0: every conditional branch ends its block
  bool host_lse = true;       // PHYBIN_HOST_LSE=0: locked instructions as exclusive loops
  std::string tso = "auto";   // PHYBIN_TSO: auto, strict or off
  std::string forward = "all";  // PHYBIN_FORWARD: all, none, or library names (opencl,...)
  unsigned watchdog_seconds = 0;  // PHYBIN_WATCHDOG: report forwarded calls blocked this long (0: off)
  bool watchdog_abort = false;    // PHYBIN_WATCHDOG_ACTION=abort: then stop with PHYBIN_ERR_WATCHDOG
  std::string rocm_path;          // PHYBIN_ROCM_PATH: a ROCm installation (empty: the build's default)
  std::string warp_size;          // PHYBIN_WARP_SIZE: cannot be honoured (said once)
  bool perf_map = false;          // PHYBIN_PERF_MAP: /tmp/perf-PID.map for perf
  std::string profile;            // PHYBIN_PROFILE: "1" (standard error) or a file; empty: off
  bool execed = false;            // started by phybin's own execve (--argv0)
  std::string log_file;
  // PHYBIN_ROOTFS (or --rootfs): a separate x86-64 root; empty: the machine's files.
  std::string rootfs;
  // --blocked-signals: the SIGSEGV and SIGBUS bits (sig - 1) an execve'ing
  // guest blocked, which the host's mask does not carry.
  uint64_t blocked_runtime_signals = 0;
  // PHYBIN_CACHE_DIR: where translations are kept between runs; empty: not kept.
  std::string translation_dir;
  // The values set (not defaults), by name, with their origins.
  std::map<std::string, SettingValue> values;
  // What reading the settings noticed, to be logged once the log is set
  // up: a settings file skipped, a PHYBIN_* variable phybin does not know.
  std::vector<SettingsNote> notes;
};

// The settings for `program` (its path as run; empty: no program, the
// files' general parts only).  Throws Error(PHYBIN_ERR_USAGE) on an
// unknown key, a malformed line or value, naming the file and line or the
// variable, or PHYBIN_SYSTEM_CONFIG naming no file; Error(PHYBIN_ERR_FILE_ACCESS)
// on a file that exists but cannot be read.
Settings read_settings(const std::string& program);

// A settings file; `required` when the user named it (PHYBIN_SYSTEM_CONFIG),
// so that its absence is an error and not a file skipped.
struct SettingsFile {
  std::string path;
  bool required = false;
};

// The settings files, in the order they are read: PHYBIN_SYSTEM_CONFIG
// (default /etc/phybin.conf), then $XDG_CONFIG_HOME/phybin/phybin.conf
// (else $HOME/.config/phybin/phybin.conf).
std::vector<SettingsFile> settings_files();

// Every setting the table knows: name, default (as README shows it) and
// meaning.
struct SettingInfo {
  const char* name;
  const char* default_text;
  const char* meaning;
};
const std::vector<SettingInfo>& known_settings();

// The setting whose name is fewest edits (Levenshtein) away from `name`,
// and how many; of those at most `most` edits away ({nullptr, SIZE_MAX}
// when none is).
struct NearestSetting {
  const char* name;
  size_t edits;
};
NearestSetting nearest_setting(const std::string& name, size_t most = SIZE_MAX);

// `dir` as an x86-64 root; throws Error(PHYBIN_ERR_USAGE) naming `from`.
std::string checked_rootfs(const std::string& dir, const char* from);
// A --blocked-signals value: a decimal mask of SIGSEGV and SIGBUS bits only.
uint64_t checked_signal_mask(const std::string& text);

// "64" -> 64 MiB, "512K" -> 512 KiB, "1M"/"1G" as said.
size_t parse_size(const std::string& text, const char* name);

}  // namespace phybin::app
