// phybin's settings: built-in defaults overridden by PHYBIN_* environment
// variables.  Each setting remembers where its value came from.
#pragma once

#include <cstddef>
#include <string>

namespace phybin::app {

struct Settings {
  size_t cache_bytes = 64u << 20;
  int log_level = 0;
  bool strict_flags = false;  // PHYBIN_STRICT_FLAGS
  bool verify_ir = false;     // PHYBIN_IR_VERIFY
  bool host_crc32 = true;     // PHYBIN_HOST_CRC32=0: x86 crc32 through the helper (tests it)
  bool exact_mxcsr = false;   // PHYBIN_EXACT_MXCSR
  bool host_pmull = true;     // PHYBIN_HOST_PMULL=0: pclmulqdq through the helper
  bool host_aes = true;       // PHYBIN_HOST_AES=0: the AES rounds through the helper
  bool superblocks = true;    // PHYBIN_SUPERBLOCKS=0: every conditional branch ends its block
  bool host_lse = true;       // PHYBIN_HOST_LSE=0: locked instructions as exclusive loops
  std::string tso = "auto";   // PHYBIN_TSO: auto, strict or off
  std::string forward = "all";  // PHYBIN_FORWARD: all, none, or library names (opencl,...)
  unsigned watchdog_seconds = 0;  // PHYBIN_WATCHDOG: report forwarded calls blocked this long (0: off)
  bool watchdog_abort = false;    // PHYBIN_WATCHDOG_ACTION=abort: then stop with PHYBIN_ERR_WATCHDOG
  std::string rocm_path;          // PHYBIN_ROCM_PATH: a ROCm installation (empty: the build's default)
  std::string log_file;
  // PHYBIN_ROOTFS (or --rootfs): a separate x86-64 root; empty: the machine's files.
  std::string rootfs;
  // --blocked-signals: the SIGSEGV and SIGBUS bits (sig - 1) an execve'ing
  // guest blocked, which the host's mask does not carry.
  uint64_t blocked_runtime_signals = 0;
  // PHYBIN_CACHE_DIR: where translations are kept between runs; empty: not kept.
  std::string translation_dir;
  std::string cache_source = "default";
};

// Throws Error(PHYBIN_ERR_USAGE) on a malformed value.
Settings read_settings();

// `dir` as an x86-64 root; throws Error(PHYBIN_ERR_USAGE) naming `from`.
std::string checked_rootfs(const std::string& dir, const char* from);
// A --blocked-signals value: a decimal mask of SIGSEGV and SIGBUS bits only.
uint64_t checked_signal_mask(const std::string& text);

// "64" -> 64 MiB, "512K" -> 512 KiB, "1M"/"1G" as said.
size_t parse_size(const std::string& text, const char* name);

}  // namespace phybin::app
