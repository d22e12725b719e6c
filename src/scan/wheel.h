// A Python wheel (a zip file) opened for the scanner: its members that are
// ELF files, read into memory (stored or deflated, through zlib).
#pragma once

#include <string>
#include <vector>

#include "scan/image.h"

namespace phybin::scan {

struct WheelMember {
  std::string name;  // the path inside the wheel
  Bytes bytes;
};

// Whether `bytes` start like a zip file.
bool is_zip(const Bytes& bytes);

// The ELF members of the zip file `path`.  Throws PHYBIN_ERR_BAD_ELF when
// the archive is damaged (the code for a damaged input file).
std::vector<WheelMember> elf_members(const std::string& path, const Bytes& zip);

}  // namespace phybin::scan
