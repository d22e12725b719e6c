#include "scan/libraries.h"

#include <glob.h>
#include <limits.h>
#include <stdlib.h>

#include <cstring>
#include <deque>
#include <fstream>
#include <set>

#include "common/error.h"

namespace phybin::scan {

namespace {

// Debian's and Red Hat's directories for x86-64 libraries, after
// ld.so.conf's: those the x86-64 loader searches without being told.
constexpr const char* kDefaultDirs[] = {"/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu", "/lib64", "/usr/lib64",
                                        "/lib", "/usr/lib"};

std::string directory_of(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? "." : slash == 0 ? "/" : path.substr(0, slash);
}

std::string expand_origin(std::string dir, const std::string& origin) {
  for (const char* token : {"${ORIGIN}", "$ORIGIN"})
    for (size_t at; (at = dir.find(token)) != std::string::npos;) dir.replace(at, std::strlen(token), origin);
  return dir;
}

// What the forwarder counts as the same library: the soname, or any file
// name with the same stem up to ".so".
bool names_library(const std::string& name, const std::string& soname) {
  if (name == soname) return true;
  const size_t so = soname.find(".so");
  return so != std::string::npos && name == soname.substr(0, so + 3);
}

}  // namespace

LibraryLookup::LibraryLookup(std::string root, std::vector<Forwarded> forwarded, std::vector<std::string> library_path)
    : root_(std::move(root)), forwarded_(std::move(forwarded)), library_path_(std::move(library_path)) {
  while (root_.size() > 1 && root_.back() == '/') root_.pop_back();
  if (root_ == "/") root_.clear();
  read_ld_so_conf("/etc/ld.so.conf", 0);
  for (const char* dir : kDefaultDirs) system_dirs_.push_back(dir);
}

void LibraryLookup::read_ld_so_conf(const std::string& file, int depth) {
  if (depth > 4) return;
  std::ifstream in(root_ + file);
  if (!in && !root_.empty()) in.open(file);
  std::string line;
  while (std::getline(in, line)) {
    line = line.substr(0, line.find('#'));
    const size_t start = line.find_first_not_of(" \t");
    if (start == std::string::npos) continue;
    line = line.substr(start, line.find_last_not_of(" \t\r") + 1 - start);
    if (line.rfind("include", 0) == 0) {
      std::string pattern = line.substr(line.find_first_not_of(" \t", 7));
      if (pattern[0] != '/') pattern = directory_of(file) + "/" + pattern;
      glob_t g{};
      if (glob((root_ + pattern).c_str(), 0, nullptr, &g) == 0)
        for (size_t i = 0; i < g.gl_pathc; ++i) read_ld_so_conf(std::string(g.gl_pathv[i]).substr(root_.size()), depth + 1);
      globfree(&g);
    } else if (line[0] == '/') {
      system_dirs_.push_back(line);
    }
  }
}

std::string LibraryLookup::existing(const std::string& path) const {
  for (const std::string& candidate : {root_.empty() ? path : root_ + path, path}) {
    try {
      if (elf_machine(map_file(candidate)) == "x86-64") return candidate;
    } catch (const Error&) {
      // absent or unreadable: the next place
    }
    if (root_.empty()) break;
  }
  return {};
}

const Forwarded* LibraryLookup::forwarded(const std::string& name) const {
  for (const Forwarded& f : forwarded_)
    if (names_library(name, f.soname)) return &f;
  return nullptr;
}

std::string LibraryLookup::search(const std::string& name, const std::string& origin,
                                  const std::vector<std::string>& runpath) const {
  if (name.find('/') != std::string::npos) return existing(name[0] == '/' ? name : origin + "/" + name);
  std::vector<std::string> dirs = library_path_;
  for (const std::string& dir : runpath) dirs.push_back(expand_origin(dir, origin));
  dirs.insert(dirs.end(), system_dirs_.begin(), system_dirs_.end());
  for (const std::string& dir : dirs)
    if (std::string found = existing(dir + "/" + name); !found.empty()) return found;
  return {};
}

const LibraryLookup::Known& LibraryLookup::known(const std::string& path) {
  auto it = known_.find(path);
  if (it != known_.end()) return it->second;
  Known k;
  k.path = path;
  try {
    const Image image = read_image(path, map_file(path));
    k.needed = image.needed;
    k.runpath = image.runpath;
  } catch (const Error&) {
    // found but unreadable as ELF: the loader would stop there; named below
  }
  return known_.emplace(path, std::move(k)).first->second;
}

std::vector<LibraryStatus> LibraryLookup::resolve(const Image& image, const std::map<std::string, std::string>& bundled) {
  std::vector<LibraryStatus> out;
  std::set<std::string> seen;
  struct Pending {
    std::string name, needed_by, origin;
    std::vector<std::string> runpath;
  };
  std::deque<Pending> work;
  char real[PATH_MAX];
  const std::string own_dir = directory_of(realpath(image.path.c_str(), real) ? std::string(real) : image.path);
  for (const std::string& n : image.needed) work.push_back(Pending{n, image.path, own_dir, image.runpath});
  while (!work.empty()) {
    Pending p = std::move(work.front());
    work.pop_front();
    if (!seen.insert(p.name).second) continue;
    LibraryStatus s{p.name, LibraryStatus::Missing, "", p.needed_by};
    if (const Forwarded* f = forwarded(p.name); f && !f->native.empty()) {
      s.state = LibraryStatus::Forwarded;
      s.path = f->native;
      out.push_back(s);
      continue;
    }
    if (auto b = bundled.find(p.name); b != bundled.end()) {
      s.state = LibraryStatus::Found;
      s.path = b->second;
      out.push_back(s);
      continue;
    }
    std::string path = search(p.name, p.origin, p.runpath);
    // A plugin host (PoCL's device libraries) loads a plugin's neighbour by
    // path first; the loader then finds it by its soname.
    if (path.empty() && p.name.find('/') == std::string::npos) path = existing(directory_of(p.needed_by) + "/" + p.name);
    if (!path.empty()) {
      s.state = LibraryStatus::Found;
      s.path = path;
      const Known& k = known(path);
      for (const std::string& n : k.needed) work.push_back(Pending{n, path, directory_of(path), k.runpath});
    }
    out.push_back(s);
  }
  return out;
}

std::string LibraryLookup::find_interpreter(const std::string& interpreter) const {
  return interpreter.empty() ? std::string() : existing(interpreter);
}

}  // namespace phybin::scan
