// phybin's commands besides running a program (main.cpp dispatches):
// info, scan, register, unregister, status, --help-errors.
#pragma once

#include <string>

namespace phybin::app {

inline constexpr const char* kVersion = "0.1";

// phybin info [PROGRAM] (info.cpp).
int run_info(const std::string& program);

// phybin scan [--json] [--details] [--threads N] PATH... (scan.cpp):
// argv[first..] are its arguments.
int run_scan(int argc, char** argv, int first);

// phybin register | unregister | status (binfmt.cpp).
int run_register();
int run_unregister();
int run_status();
// The entry in binfmt-support's format (the Debian package's), with
// interpreter `interp`.
int print_binfmt_support_entry(const std::string& interp);

// binfmt_misc's state in one line, for info.
std::string binfmt_status_line();

// The name binfmt_misc starts phybin by (a link to phybin beside it): its
// arguments are then the program's path, its argv[0] and the rest (flag P).
inline constexpr const char* kBinfmtInterpreterName = "phybin-binfmt";

}  // namespace phybin::app
