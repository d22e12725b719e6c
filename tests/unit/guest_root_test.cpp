// GuestRoot (src/linux/guest_root.*): where the guest's absolute file names
// lead with an x86-64 root, and the system calls that go through it.  The
// root is a scratch tree in the working directory (not under /tmp, which
// always comes from the machine).
#include "linux/guest_root.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <climits>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "linux/syscalls.h"
#include "linux/x86_abi.h"
#include "guest_syscall.h"

namespace phybin::sys {
namespace {

namespace fs = std::filesystem;

class GuestRootTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = (fs::current_path() / "guest-root-XXXXXX").string();
    ASSERT_NE(mkdtemp(pattern.data()), nullptr);
    root_ = pattern;
    fs::create_directories(root_ + "/usr/lib/x86_64-linux-gnu");
    fs::create_directories(root_ + "/usr/bin");
    fs::create_directories(root_ + "/etc");
    std::ofstream(root_ + "/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2") << "ld";
    std::ofstream(root_ + "/usr/bin/tool") << "tool";
    std::ofstream(root_ + "/etc/only-in-root") << "x";
    fs::create_directory_symlink("usr/lib", root_ + "/lib");  // usrmerge, relative
    fs::create_directories(root_ + "/lib64");
    // An absolute link: inside the root it must stay inside the root.
    fs::create_symlink("/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2", root_ + "/lib64/ld-linux-x86-64.so.2");
    fs::create_symlink("../../etc/only-in-root", root_ + "/usr/bin/up-link");
    fs::create_symlink("loop-b", root_ + "/etc/loop-a");
    fs::create_symlink("loop-a", root_ + "/etc/loop-b");
  }
  void TearDown() override { fs::remove_all(root_); }

  std::string root_;
};

TEST_F(GuestRootTest, WithoutARootNamesAreTheMachines) {
  GuestRoot none;
  EXPECT_FALSE(none.active());
  EXPECT_EQ(none.host_path("/usr/bin/tool"), "/usr/bin/tool");
  EXPECT_FALSE(GuestRoot("/", "").active());
}

TEST_F(GuestRootTest, AbsoluteLinksResolveInsideTheRoot) {
  GuestRoot root(root_ + "/", "/home/someone");
  EXPECT_EQ(root.host_path("/lib64/ld-linux-x86-64.so.2"), root_ + "/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2");
  EXPECT_EQ(root.host_path("/usr/bin/tool"), root_ + "/usr/bin/tool");
  EXPECT_EQ(root.host_path("/usr/bin/up-link"), root_ + "/etc/only-in-root");
  // ".." never leaves the root.
  EXPECT_EQ(root.host_path("/../../etc/only-in-root"), root_ + "/etc/only-in-root");
  EXPECT_EQ(root.host_path("/"), root_ + "/");
}

TEST_F(GuestRootTest, TheLastLinkIsKeptWhenNotFollowed) {
  GuestRoot root(root_, "");
  EXPECT_EQ(root.host_path("/lib64/ld-linux-x86-64.so.2", GuestRoot::Last::NoFollow),
            root_ + "/lib64/ld-linux-x86-64.so.2");
  // Links before the last component are followed all the same.
  EXPECT_EQ(root.host_path("/lib/x86_64-linux-gnu", GuestRoot::Last::NoFollow), root_ + "/usr/lib/x86_64-linux-gnu");
}

TEST_F(GuestRootTest, MissingNamesFallBackToTheMachine) {
  GuestRoot root(root_, "");
  EXPECT_EQ(root.host_path("/usr/bin/not-there/x"), "/usr/bin/not-there/x");
  EXPECT_EQ(root.host_path("/nonexistent-dir/file"), "/nonexistent-dir/file");
  // A name about to be made goes where its directory is, unless the
  // machine has the name itself.
  EXPECT_EQ(root.host_path("/etc/new-file"), root_ + "/etc/new-file");
  EXPECT_EQ(root.host_path("/lib/new-file"), root_ + "/usr/lib/new-file");
  struct stat st {};
  ASSERT_EQ(::stat("/etc/passwd", &st), 0);
  EXPECT_EQ(root.host_path("/etc/passwd"), "/etc/passwd");
  // A link loop is not resolved in the root.
  EXPECT_EQ(root.host_path("/etc/loop-a"), "/etc/loop-a");
}

TEST_F(GuestRootTest, MachineDirectoriesAndRelativeNamesStay) {
  fs::create_directories(root_ + "/tmp");
  fs::create_directories(root_ + "/proc/self");
  fs::create_directories(root_ + "/home/someone");
  GuestRoot root(root_, "/home/someone/");
  EXPECT_EQ(root.host_path("/tmp"), "/tmp");
  EXPECT_EQ(root.host_path("/proc/self"), "/proc/self");
  EXPECT_EQ(root.host_path("/home/someone"), "/home/someone");
  EXPECT_EQ(root.host_path("/tmpx/y"), "/tmpx/y");  // not under /tmp
  EXPECT_EQ(root.host_path("usr/bin/tool"), "usr/bin/tool");
}

TEST_F(GuestRootTest, GuestViewTakesTheRootOff) {
  GuestRoot root(root_, "");
  EXPECT_EQ(root.guest_view(root_ + "/usr/bin"), "/usr/bin");
  EXPECT_EQ(root.guest_view(root_), "/");
  EXPECT_EQ(root.guest_view(root_ + "x/usr"), root_ + "x/usr");
  EXPECT_EQ(root.guest_view("/work"), "/work");
}

TEST_F(GuestRootTest, SystemCallsSeeTheRoot) {
  ProcessConfig config;
  config.root = GuestRoot(root_, "");
  init_process(config);
  struct stat st {};
  const char ld[] = "/lib64/ld-linux-x86-64.so.2";
  EXPECT_EQ(guest_syscall(X86_NR_stat, addr(ld), addr(&st)), 0);
  EXPECT_EQ(st.st_size, 2);
  EXPECT_EQ(guest_syscall(X86_NR_lstat, addr(ld), addr(&st)), 0);
  EXPECT_TRUE(S_ISLNK(st.st_mode));
  char target[PATH_MAX] = {};
  EXPECT_EQ(guest_syscall(X86_NR_readlink, addr(ld), addr(target), sizeof target), 42);
  EXPECT_STREQ(target, "/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2");
  const char tool[] = "/usr/bin/tool";
  EXPECT_EQ(guest_syscall(X86_NR_access, addr(tool), R_OK), 0);
  const int fd = static_cast<int>(guest_syscall(X86_NR_openat, static_cast<uint64_t>(AT_FDCWD), addr(tool), 0));
  ASSERT_GE(fd, 0);
  char text[8] = {};
  EXPECT_EQ(read(fd, text, sizeof text), 4);
  EXPECT_STREQ(text, "tool");
  close(fd);
  // The working directory inside the root, as the guest names it.
  const std::string saved = fs::current_path().string();
  const char dir[] = "/usr/bin";
  ASSERT_EQ(guest_syscall(X86_NR_chdir, addr(dir)), 0);
  char cwd[PATH_MAX] = {};
  EXPECT_EQ(guest_syscall(X86_NR_getcwd, addr(cwd), sizeof cwd), 9);
  EXPECT_STREQ(cwd, "/usr/bin");
  EXPECT_EQ(guest_syscall(X86_NR_getcwd, addr(cwd), 4), -ERANGE);
  ASSERT_EQ(chdir(saved.c_str()), 0);
  init_process(ProcessConfig{});
}

}  // namespace
}  // namespace phybin::sys
