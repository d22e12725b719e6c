// Where the guest's absolute paths lead.  By default to the machine itself
// (a Debian ARM64 server with amd64 multiarch libraries).  With an x86-64
// root (PHYBIN_ROOTFS, an unpacked amd64 Debian or RHEL tree) a path is
// looked up in the root first, its symbolic links resolved inside the root
// as a chroot would, and on the machine second; /proc, /sys, /dev, /tmp
// and $HOME always come from the machine.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace phybin::sys {

class GuestRoot {
 public:
  GuestRoot() = default;
  // `root` empty: the machine only.  `home`: the user's $HOME (kept on the
  // machine); empty for none.
  GuestRoot(std::string root, std::string home);

  bool active() const { return !root_.empty(); }
  const std::string& root() const { return root_; }

  enum class Last { Follow, NoFollow };
  // The host path of the absolute guest path `path`: in the root when it is
  // there (or, for a name not yet made anywhere, when its directory is),
  // else `path` itself.  Relative paths are returned unchanged.
  std::string host_path(const std::string& path, Last last = Last::Follow) const;
  // What the guest sees of a host path (getcwd): the root's prefix taken
  // off a path inside the root.
  std::string guest_view(const std::string& host) const;

 private:
  bool machine_only(const std::string& path) const;
  // The root's file for `path` with its links resolved inside the root, or
  // nothing when a component is missing there; *parent_only is set when
  // only the last component is missing.
  std::optional<std::string> resolve_in_root(const std::string& path, Last last, bool* parent_only) const;

  std::string root_;  // without a trailing slash
  std::vector<std::string> machine_prefixes_;
};

}  // namespace phybin::sys
