// phybin scan [--json] [--details] [--threads N] FILE|DIR|WHEEL...: whether
// x86-64 programs and libraries will run under phybin, without running
// them (src/scan does the work).  Exit status 0 when every file will run,
// 1 when one will not, a phybin error status when a named file cannot be
// scanned (the other files are scanned all the same).
#include <dirent.h>
#include <errno.h>
#include <sys/stat.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>

#include "app/commands.h"
#include "app/config.h"
#include "app/setup.h"
#include "common/error.h"
#include "forward/forwarder.h"
#include "scan/scan.h"
#include "scan/wheel.h"
#include "x86/frontend.h"

namespace phybin::app {

namespace {

struct ScanRun {
  bool json = false, details = false;
  scan::ScanOptions options;
  std::vector<std::string> paths;
  std::vector<scan::FileReport> reports;
  std::vector<std::string> skipped, errors;
  std::optional<ErrorCode> first_error;
};

void parse_scan_arguments(ScanRun& run, int argc, char** argv, int first) {
  for (int i = first; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--json") run.json = true;
    else if (a == "--details") run.details = true;
    else if (a == "--threads" && i + 1 < argc) run.options.threads = static_cast<unsigned>(std::strtoul(argv[++i], nullptr, 10));
    else if (a == "--") run.paths.insert(run.paths.end(), argv + i + 1, argv + argc), i = argc;
    else if (a.size() > 1 && a[0] == '-') throw Error(ErrorCode::PHYBIN_ERR_USAGE, "phybin scan: unknown option " + a);
    else run.paths.push_back(a);
  }
  if (run.paths.empty()) throw Error(ErrorCode::PHYBIN_ERR_USAGE, "phybin scan needs a file, a directory or a wheel");
}

// The libraries forwarded to native ones on this host, as a run would.
std::vector<scan::Forwarded> forwarded_libraries(const Settings& settings) {
  std::vector<scan::Forwarded> out;
  forward::Forwarder forwarder(forwarder_options(settings, own_executable()));
  for (const forward::Forwarder::LibraryReport& r : forwarder.survey())
    if (r.enabled && r.guest_side) out.push_back(scan::Forwarded{r.soname, r.native});
  return out;
}

std::vector<std::string> library_path() {
  std::vector<std::string> dirs;
  const char* env = std::getenv("LD_LIBRARY_PATH");
  for (std::string s = env ? env : ""; !s.empty();) {
    const size_t colon = std::min(s.find(':'), s.size());
    if (colon) dirs.push_back(s.substr(0, colon));
    s.erase(0, colon + 1);
  }
  return dirs;
}

// An ELF file of type ET_EXEC or ET_DYN (not an object file: e_type at 16).
bool runnable(const scan::Bytes& bytes) {
  return bytes.size > 17 && bytes.data[17] == 0 && (bytes.data[16] == 2 || bytes.data[16] == 3);
}

class Scanner {
 public:
  Scanner(ScanRun& run, scan::LibraryLookup& libraries)
      : run_(run), libraries_(libraries), frontend_(x86::Hooks{}) {}

  void path(const std::string& p, bool named) {
    struct stat st {};
    if (lstat(p.c_str(), &st) != 0 || (named && stat(p.c_str(), &st) != 0)) {
      error(ErrorCode::PHYBIN_ERR_FILE_ACCESS, p + ": " + std::strerror(errno));
    } else if (S_ISDIR(st.st_mode)) {
      directory(p);
    } else if (S_ISREG(st.st_mode)) {
      file(p, named);
    }  // a link met while walking is not followed: its target is scanned where it lies
  }

 private:
  void directory(const std::string& dir) {
    DIR* d = opendir(dir.c_str());
    if (!d) return error(ErrorCode::PHYBIN_ERR_FILE_ACCESS, dir + ": " + std::strerror(errno));
    std::vector<std::string> names;
    while (const dirent* e = readdir(d))
      if (std::strcmp(e->d_name, ".") != 0 && std::strcmp(e->d_name, "..") != 0) names.push_back(e->d_name);
    closedir(d);
    std::sort(names.begin(), names.end());
    for (const std::string& n : names) path(dir + (dir.ends_with('/') ? "" : "/") + n, false);
  }

  void file(const std::string& p, bool named) {
    try {
      const scan::Bytes bytes = scan::map_file(p);
      if (scan::is_zip(bytes)) return wheel(p, bytes, named);
      const std::string machine = scan::elf_machine(bytes);
      if (machine == "x86-64" && !named && !runnable(bytes)) {
        run_.skipped.push_back(p + ": an x86-64 object file, not a program or shared object");
        return;
      }
      if (machine == "x86-64") return report(scan::read_image(p, bytes), {});
      if (named) scan::read_image(p, bytes);  // throws the error that says what it is
      if (!machine.empty()) run_.skipped.push_back(p + ": an ELF file for " + machine);
    } catch (const Error& e) {
      error(e.code(), e.what());
    }
  }

  void wheel(const std::string& p, const scan::Bytes& bytes, bool named) {
    if (!named && !p.ends_with(".whl")) return;  // a zip file met while walking that is not a wheel
    const std::vector<scan::WheelMember> members = scan::elf_members(p, bytes);
    std::map<std::string, std::string> bundled;  // a wheel's libraries, by file name
    for (const scan::WheelMember& m : members)
      bundled[m.name.substr(m.name.rfind('/') + 1)] = p + "!" + m.name;
    for (const scan::WheelMember& m : members) {
      try {
        if (scan::elf_machine(m.bytes) != "x86-64") {
          run_.skipped.push_back(p + "!" + m.name + ": an ELF file for " + scan::elf_machine(m.bytes));
          continue;
        }
        report(scan::read_image(p + "!" + m.name, m.bytes), bundled);
      } catch (const Error& e) {
        error(e.code(), e.what());
      }
    }
  }

  void report(const scan::Image& image, const std::map<std::string, std::string>& bundled) {
    scan::FileReport r = scan::scan_image(image, frontend_, libraries_, run_.options, bundled);
    if (!run_.json) std::fputs(scan::text_report(r, run_.details).c_str(), stdout);
    run_.reports.push_back(std::move(r));
  }

  void error(ErrorCode code, const std::string& message) {
    if (!run_.first_error) run_.first_error = code;
    run_.errors.push_back(format_error(code, message));
    if (!run_.json) std::fprintf(stderr, "%s\n", run_.errors.back().c_str());
  }

  ScanRun& run_;
  scan::LibraryLookup& libraries_;
  x86::Frontend frontend_;
};

}  // namespace

int run_scan(int argc, char** argv, int first) {
  ScanRun run;
  parse_scan_arguments(run, argc, argv, first);
  const Settings settings = read_settings("");
  scan::LibraryLookup libraries(settings.rootfs, forwarded_libraries(settings), library_path());
  Scanner scanner(run, libraries);
  for (const std::string& p : run.paths) scanner.path(p, true);
  size_t runs = 0;
  for (const scan::FileReport& r : run.reports) runs += r.runs;
  if (run.json) {
    std::fputs(scan::json_report(run.reports, run.skipped, run.errors).c_str(), stdout);
  } else {
    std::printf("%zu x86-64 file%s: %zu will run, %zu will not", run.reports.size(), run.reports.size() == 1 ? "" : "s",
                runs, run.reports.size() - runs);
    if (!run.skipped.empty()) std::printf(" (%zu ELF files for other machines skipped)", run.skipped.size());
    if (!run.errors.empty()) std::printf("; %zu could not be scanned", run.errors.size());
    std::printf("\n");
  }
  std::fflush(stdout);
  if (run.first_error) return error_exit_status(*run.first_error);
  return runs == run.reports.size() ? 0 : 1;
}

}  // namespace phybin::app
