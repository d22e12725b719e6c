// phybin info [PROGRAM]: what phybin would run with, without running
// anything: the host CPU and the AArch64 features phybin uses, the page
// size, the x86-64 root, the forwarded libraries found on the host, the
// code cache and saved translations, binfmt_misc, and every setting in
// force (for PROGRAM's sections of the settings files) with its origin.
#include "app/commands.h"

#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <string>

#include "app/config.h"
#include "app/setup.h"
#include "forward/forwarder.h"
#include "runtime/host_features.h"

namespace phybin::app {

namespace {

// "CPU implementer" and "CPU part" of /proc/cpuinfo's first processor.
std::string cpu_line() {
  std::ifstream in("/proc/cpuinfo");
  std::string line, implementer, part, model;
  while (std::getline(in, line)) {
    const size_t colon = line.find(':');
    if (colon == std::string::npos) continue;
    const std::string key = line.substr(0, line.find_last_not_of(" \t", colon - 1) + 1);
    const size_t start = line.find_first_not_of(" \t", colon + 1);
    const std::string value = start == std::string::npos ? "" : line.substr(start);
    if (key == "CPU implementer" && implementer.empty()) implementer = value;
    else if (key == "CPU part" && part.empty()) part = value;
    else if (key == "model name" && model.empty()) model = value;
  }
  if (!implementer.empty()) {
    const unsigned long id = std::stoul(implementer, nullptr, 0);
    const char* vendor = id == 0x41 ? "Arm" : id == 0x70 ? "Phytium" : id == 0x48 ? "HiSilicon" : id == 0x61 ? "Apple"
                                                                       : id == 0xc0 ? "Ampere" : "implementer";
    return std::string(vendor) + " (implementer " + implementer + ", part " + part + ")";
  }
  return model.empty() ? "unknown" : model;
}

// The saved translations: files and bytes.
std::string saved_translations(const std::string& dir) {
  if (dir.empty()) return "off";
  DIR* d = opendir(dir.c_str());
  if (!d) return dir + " (none yet)";
  unsigned files = 0;
  unsigned long long bytes = 0;
  while (const dirent* e = readdir(d)) {
    const std::string name = e->d_name;
    struct stat st {};
    if (name.size() > 4 && name.ends_with(".ptc") && stat((dir + "/" + name).c_str(), &st) == 0) {
      ++files;
      bytes += static_cast<unsigned long long>(st.st_size);
    }
  }
  closedir(d);
  char text[64];
  std::snprintf(text, sizeof text, " (%u files, %.1f MiB)", files, static_cast<double>(bytes) / (1 << 20));
  return dir + text;
}

// The version a library's file name carries after ".so." (libOpenCL.so.1.0.0 -> 1.0.0).
std::string version_of(const std::string& path) {
  const size_t so = path.rfind(".so.");
  return so == std::string::npos ? "" : path.substr(so + 4);
}

void print_host() {
  const long cpus = sysconf(_SC_NPROCESSORS_ONLN), page = sysconf(_SC_PAGESIZE);
  std::printf("host CPU: %s, %ld CPUs, page size %ld bytes\n", cpu_line().c_str(), cpus, page);
  for (const runtime::HostFeatureInfo& f : runtime::kHostFeatures)
    std::printf("  %-6s %-3s  %s\n", f.name, runtime::host_has(f.feature) ? "yes" : "no", f.use);
}

void print_root(const Settings& settings) {
  const std::string root = settings.rootfs.empty() ? "" : settings.rootfs;
  const std::string loader = root + "/lib64/ld-linux-x86-64.so.2";
  std::printf("x86-64 root: %s; its loader %s %s\n", root.empty() ? "this machine's files" : root.c_str(),
              loader.c_str(), access(loader.c_str(), R_OK) == 0 ? "is there" : "is missing (dynamic programs cannot start)");
}

void print_forwarding(const Settings& settings) {
  forward::Forwarder forwarder(forwarder_options(settings, own_executable()));
  std::printf("forwarded libraries (PHYBIN_FORWARD=%s):\n", settings.forward.c_str());
  for (const forward::Forwarder::LibraryReport& r : forwarder.survey()) {
    std::string state;
    if (!r.enabled) state = "not forwarded (PHYBIN_FORWARD)";
    else if (!r.guest_side) state = "not forwarded: phybin's guest side is missing";
    else if (r.native.empty()) state = "not forwarded: no native library (Debian package " + r.package + "; looked on " + r.looked + ")";
    else state = "forwarded to " + r.native + (version_of(r.native).empty() ? "" : " (version " + version_of(r.native) + ")");
    std::printf("  %-6s %-22s %s\n", r.name.c_str(), r.soname.c_str(), state.c_str());
  }
}

void print_settings(const Settings& settings) {
  std::printf("settings files:");
  for (const SettingsFile& file : settings_files())
    std::printf(" %s%s", file.path.c_str(), access(file.path.c_str(), F_OK) == 0 ? "" : " (none)");
  std::printf("\nsettings:\n");
  for (const SettingInfo& info : known_settings()) {
    const auto it = settings.values.find(info.name);
    if (it == settings.values.end()) std::printf("  %-24s default\n", info.name);
    else std::printf("  %-24s %-16s (%s)\n", info.name, it->second.text.c_str(), it->second.origin.c_str());
  }
}

}  // namespace

int run_info(const std::string& program) {
  const Settings settings = read_settings(program);
  std::printf("phybin %s (%s)\n", kVersion, own_executable().c_str());
  if (!program.empty()) std::printf("settings for %s\n", program.c_str());
  print_host();
  print_root(settings);
  print_forwarding(settings);
  std::printf("code cache: %zu KiB%s\n", settings.cache_bytes >> 10,
              settings.values.contains("PHYBIN_CACHE_SIZE") ? "" : " (default)");
  std::printf("saved translations: %s\n", saved_translations(settings.translation_dir).c_str());
  std::printf("binfmt_misc: %s\n", binfmt_status_line().c_str());
  print_settings(settings);
  return 0;
}

}  // namespace phybin::app
