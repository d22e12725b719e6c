// Where a file's libraries come from when phybin runs it: forwarded to the
// host's native library, found in the x86-64 root (or on the machine, as
// phybin's file lookup falls back to it), or missing.  The search follows
// the x86-64 dynamic loader: LD_LIBRARY_PATH, RUNPATH or RPATH ($ORIGIN
// expanded), ld.so.conf's directories, the default ones, and last the
// directory of the library that needs it (where a plugin host loads its
// plugins' neighbours from by path); and goes on through the libraries
// found, so a library missing deeper is named with the one that needs it.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "scan/image.h"

namespace phybin::scan {

struct Forwarded {
  std::string soname;
  std::string native;  // the host's library; "" when not found on this host
};

struct LibraryStatus {
  enum State { Forwarded, Found, Missing };
  std::string name;
  State state = Missing;
  std::string path;       // Found: the x86-64 file; Forwarded: the native one
  std::string needed_by;  // the file that names it
};

class LibraryLookup {
 public:
  // `root`: the x86-64 root ("" for the machine's own files).
  LibraryLookup(std::string root, std::vector<Forwarded> forwarded, std::vector<std::string> library_path);

  // The libraries `image` needs, directly and through others; those in
  // `bundled` (by file name: a wheel's own) count as found there.
  std::vector<LibraryStatus> resolve(const Image& image, const std::map<std::string, std::string>& bundled = {});

  // The program interpreter's file, or "" when it is missing.
  std::string find_interpreter(const std::string& interpreter) const;

 private:
  struct Known {
    std::string path;                 // "" when not found
    std::vector<std::string> needed;  // its own DT_NEEDED
    std::vector<std::string> runpath;
  };
  const Forwarded* forwarded(const std::string& name) const;
  // The file `name` is found at for a file in directory `origin` with
  // `runpath` (its RUNPATH, else its RPATH), or "".
  std::string search(const std::string& name, const std::string& origin, const std::vector<std::string>& runpath) const;
  // `path` as phybin would open it: in the root first, then on the machine;
  // "" when neither is an x86-64 ELF file.
  std::string existing(const std::string& path) const;
  const Known& known(const std::string& path);
  void read_ld_so_conf(const std::string& file, int depth);

  std::string root_;
  std::vector<Forwarded> forwarded_;
  std::vector<std::string> library_path_;
  std::vector<std::string> system_dirs_;
  std::map<std::string, Known> known_;  // by path
};

}  // namespace phybin::scan
