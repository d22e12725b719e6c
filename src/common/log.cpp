#include "common/log.h"

#include <cstdarg>
#include <cstdio>

namespace phybin {
namespace {
int g_level = 0;
FILE* g_file = nullptr;  // nullptr -> stderr
}  // namespace

void log_configure(int level, const std::string& file) {
  g_level = level;
  if (!file.empty()) {
    g_file = std::fopen(file.c_str(), "a");
    if (!g_file) std::fprintf(stderr, "phybin: cannot open log file %s, logging to stderr\n", file.c_str());
    // Line-buffered, so the log survives a crash of the guest (or of phybin).
    else std::setvbuf(g_file, nullptr, _IOLBF, 0);
  }
}

bool log_enabled(LogLevel level) { return static_cast<int>(level) <= g_level; }

void log_line(LogLevel level, const std::string& text) {
  if (!log_enabled(level)) return;
  FILE* out = g_file ? g_file : stderr;
  std::fprintf(out, "%s\n", text.c_str());
  // Errors always reach the terminal, even when the log goes to a file.
  if (level == LogLevel::Error && g_file) std::fprintf(stderr, "%s\n", text.c_str());
}

void logf(LogLevel level, const char* fmt, ...) {
  if (!log_enabled(level)) return;
  char buf[1024];
  va_list ap;
  va_start(ap, fmt);
  std::vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  log_line(level, buf);
}

}  // namespace phybin
