// Error codes and the fatal-error path.  Every failure phybin reports to a
// user carries one of these codes; the message says what to do about it.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>

namespace phybin {

enum class ErrorCode : uint32_t {
#define X(name, code, summary, advice) name = code,
#include "common/error_codes.inc"
#undef X
};

const char* error_name(ErrorCode code);
const char* error_summary(ErrorCode code);

// Every code with its meaning and what the user should do (phybin
// --help-errors).
struct ErrorInfo {
  ErrorCode code;
  const char* name;
  const char* summary;
  const char* advice;
};
inline constexpr ErrorInfo kErrorTable[] = {
#define X(name, code, summary, advice) {ErrorCode::name, #name, summary, advice},
#include "common/error_codes.inc"
#undef X
};

// phybin exits with 0x70 + (code & 0xF) on its own errors, so that scripts
// can tell them from the guest's exit status (documented in README).
int error_exit_status(ErrorCode code);

// Thrown where an error is detected; caught at the top of the program,
// printed as one line and turned into the exit status above.
class Error : public std::runtime_error {
 public:
  Error(ErrorCode code, std::string message)
      : std::runtime_error(std::move(message)), code_(code) {}
  ErrorCode code() const { return code_; }

 private:
  ErrorCode code_;
};

// "phybin: error 0x1003 (PHYBIN_ERR_ILLEGAL_INSTR): <message>"
std::string format_error(ErrorCode code, const std::string& message);

[[noreturn]] void fatal(ErrorCode code, const std::string& message);

}  // namespace phybin
