// Logging: PHYBIN_LOG_LEVEL 0 errors, 1 warnings, 2 info, 3 debug;
// PHYBIN_LOG_FILE redirects everything but errors' copy on stderr.
#pragma once

#include <string>

namespace phybin {

enum class LogLevel { Error = 0, Warn = 1, Info = 2, Debug = 3 };

void log_configure(int level, const std::string& file);
bool log_enabled(LogLevel level);
void log_line(LogLevel level, const std::string& text);
// printf-style convenience; formatting happens only when the level is on.
void logf(LogLevel level, const char* fmt, ...) __attribute__((format(printf, 2, 3)));

}  // namespace phybin
