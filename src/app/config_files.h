// The settings files (config.h): lines "NAME = VALUE" (a setting of
// settings.inc), "[PROGRAM]" sections and "#" comments.  A section applies
// to a program run by that name (its file name as run or as resolved) or,
// when it holds a '/', by that absolute path; within a file a program's
// sections override the general part.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "app/config.h"

namespace phybin::app {

// Adds what `file` sets for `program` to `values` (over what is there).  A
// file that does not exist, or that a directory it is in that cannot be
// searched hides, sets nothing: the result says why ("" when it was read).
// Throws Error(PHYBIN_ERR_USAGE) naming the file and line for a name not
// among known_settings() or a malformed line, or when a required file is
// absent, and Error(PHYBIN_ERR_FILE_ACCESS) for a file that exists but
// cannot be read.
std::string read_settings_file(const SettingsFile& file, const std::string& program,
                               std::map<std::string, SettingValue>& values);

}  // namespace phybin::app
