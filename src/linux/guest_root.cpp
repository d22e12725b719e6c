#include "linux/guest_root.h"

#include <sys/stat.h>
#include <unistd.h>

#include <climits>
#include <deque>

namespace phybin::sys {
namespace {

// Linux gives up after 40 links in one lookup (ELOOP).
constexpr int kMaxLinks = 40;

void push_components(std::deque<std::string>& pending, const std::string& path) {
  std::deque<std::string> parts;
  size_t i = 0;
  while (i <= path.size()) {
    const size_t slash = path.find('/', i);
    const size_t end = slash == std::string::npos ? path.size() : slash;
    if (end > i) parts.push_back(path.substr(i, end - i));
    i = end + 1;
  }
  pending.insert(pending.begin(), parts.begin(), parts.end());
}

bool starts_with_dir(const std::string& path, const std::string& dir) {
  return path.compare(0, dir.size(), dir) == 0 && (path.size() == dir.size() || path[dir.size()] == '/');
}

bool exists_on_machine(const std::string& path) {
  struct stat st {};
  return ::lstat(path.c_str(), &st) == 0;
}

}  // namespace

GuestRoot::GuestRoot(std::string root, std::string home) : root_(std::move(root)) {
  while (root_.size() > 1 && root_.back() == '/') root_.pop_back();
  if (root_ == "/") root_.clear();  // the machine's own root: nothing to map
  machine_prefixes_ = {"/proc", "/sys", "/dev", "/tmp"};
  while (home.size() > 1 && home.back() == '/') home.pop_back();
  if (home.size() > 1 && home[0] == '/') machine_prefixes_.push_back(home);
}

bool GuestRoot::machine_only(const std::string& path) const {
  for (const std::string& dir : machine_prefixes_)
    if (starts_with_dir(path, dir)) return true;
  return false;
}

std::optional<std::string> GuestRoot::resolve_in_root(const std::string& path, Last last,
                                                      bool* parent_only) const {
  std::deque<std::string> pending;
  push_components(pending, path);
  std::string resolved;  // inside the root: "" or "/a/b"
  int links = 0;
  *parent_only = false;
  while (!pending.empty()) {
    const std::string name = pending.front();
    pending.pop_front();
    if (name == ".") continue;
    if (name == "..") {  // never above the root, as in a chroot
      resolved.erase(resolved.empty() ? 0 : resolved.rfind('/'));
      continue;
    }
    const std::string candidate = resolved + "/" + name;
    const std::string host = root_ + candidate;
    struct stat st {};
    if (::lstat(host.c_str(), &st) != 0) {
      *parent_only = pending.empty();
      return std::nullopt;
    }
    if (S_ISLNK(st.st_mode) && (!pending.empty() || last == Last::Follow)) {
      char target[PATH_MAX];
      const ssize_t n = ::readlink(host.c_str(), target, sizeof target - 1);
      if (n <= 0 || ++links > kMaxLinks) return std::nullopt;
      const std::string text(target, static_cast<size_t>(n));
      if (text[0] == '/') resolved.clear();
      push_components(pending, text);
      continue;
    }
    resolved = candidate;
  }
  return root_ + (resolved.empty() ? "/" : resolved);
}

std::string GuestRoot::host_path(const std::string& path, Last last) const {
  if (!active() || path.empty() || path[0] != '/' || machine_only(path)) return path;
  bool parent_only = false;
  if (auto in_root = resolve_in_root(path, last, &parent_only)) return *in_root;
  // A name to be made: where its directory is, unless the machine has it.
  if (parent_only && !exists_on_machine(path)) {
    std::string trimmed = path;
    while (trimmed.size() > 1 && trimmed.back() == '/') trimmed.pop_back();
    const size_t slash = trimmed.rfind('/');
    bool unused = false;
    if (auto dir = resolve_in_root(slash == 0 ? "/" : trimmed.substr(0, slash), Last::Follow, &unused)) {
      if (dir->back() == '/') dir->pop_back();
      return *dir + trimmed.substr(slash);
    }
  }
  return path;
}

std::string GuestRoot::guest_view(const std::string& host) const {
  if (!active() || !starts_with_dir(host, root_)) return host;
  const std::string rest = host.substr(root_.size());
  return rest.empty() ? "/" : rest;
}

}  // namespace phybin::sys
