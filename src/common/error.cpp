#include "common/error.h"

#include <cstdio>
#include <cstdlib>

#include "common/log.h"

namespace phybin {

const char* error_name(ErrorCode code) {
  switch (code) {
#define X(name, value, summary, advice) \
  case ErrorCode::name:         \
    return #name;
#include "common/error_codes.inc"
#undef X
  }
  return "PHYBIN_ERR_?";
}

const char* error_summary(ErrorCode code) {
  switch (code) {
#define X(name, value, summary, advice) \
  case ErrorCode::name:         \
    return summary;
#include "common/error_codes.inc"
#undef X
  }
  return "unknown error";
}

int error_exit_status(ErrorCode code) { return 0x70 + (static_cast<int>(code) & 0xF); }

std::string format_error(ErrorCode code, const std::string& message) {
  char head[96];
  std::snprintf(head, sizeof head, "phybin: error 0x%04X (%s): ", static_cast<unsigned>(code),
                error_name(code));
  return head + message;
}

void fatal(ErrorCode code, const std::string& message) {
  log_line(LogLevel::Error, format_error(code, message));
  std::fflush(nullptr);
  std::_Exit(error_exit_status(code));
}

}  // namespace phybin
