// The forwarded libraries of a run: when the guest's loader opens one of
// them (libOpenCL.so.1 ...) and the host has the native AArch64 library,
// it gets phybin's guest side instead, whose every export makes a private
// system call; phybin then calls the native function with the arguments
// moved from SysV to AAPCS64 (marshal.h).  Each library is described once
// (src/forward/libs/*.fwd, from the real headers by tools/fwdgen); the
// build makes both sides from that.
#pragma once

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <optional>
#include <string>
#include <vector>

#include "forward/callbacks.h"
#include "forward/marshal.h"
#include "forward/watchdog.h"
#include "linux/syscalls.h"

namespace phybin::forward {

class Forwarder final : public sys::ForwardedCalls {
 public:
  struct Options {
    std::string guest_dir;      // where the guest sides are (libOpenCL.so.1 ...)
    std::string which = "all";  // PHYBIN_FORWARD: all, none, or library names (opencl,hip)
    // Where ROCm is installed (PHYBIN_ROCM_PATH; else the build's
    // default, tried after the loader path).
    std::string rocm_path = PHYBIN_DEFAULT_ROCM_PATH;
    bool rocm_path_set = false;
    unsigned watchdog_seconds = 0;  // PHYBIN_WATCHDOG (0: off)
    bool watchdog_abort = false;    // PHYBIN_WATCHDOG_ACTION=abort
    bool count_calls = false;       // PHYBIN_PROFILE: every call counted (none made directly)
  };
  explicit Forwarder(Options options);

  const char* library_for(const char* path) override;
  void call(GuestState& st, uint32_t index) override;
  bool direct_shape(uint32_t index, ir::NativeCallShape& shape) override;
  const void* const* direct_table() override { return direct_.get(); }
  void on_fork(sys::ForkStage stage) override;

  // Those the build made, by name (opencl...).
  static std::vector<std::string> known_libraries();

  // What `phybin info` says of each library the build forwards: whether
  // PHYBIN_FORWARD enables it, its guest side, and the native library
  // found (loaded as a call would load it) or where it was looked for.
  struct LibraryReport {
    std::string name, soname, package;
    bool enabled = false;
    bool guest_side = false;
    std::string native;  // the native file's resolved path; empty: not found
    std::string looked;  // where it was looked for
  };
  std::vector<LibraryReport> survey();

  // PHYBIN_PROFILE: the calls made, by function (those made at least once).
  std::vector<std::pair<std::string, uint64_t>> call_counts() const override;
  // The first name of a PHYBIN_FORWARD list the build does not know, if
  // any (all and none name none).
  static std::optional<std::string> unknown_library(const std::string& which);

 private:
  // A call's arguments that are guest functions, or records holding some.
  struct GuestFunctionArgs {
    std::vector<Callback> callbacks;
    std::vector<RecordFunctions> records;
  };
  struct Function {
    const char* name;
    const char* signature_text;
    int handout = -1;  // hands out the function its argument `handout` names:
    int handout_out = -1;  // as its result, or through this pointer when it answers 0
    // Fills a table of functions: its arguments that are the table, the
    // extension and the length in bytes (-1: none).
    int table_arg[3] = {-1, -1, -1};
    // Its results that mean the runtime could not map host memory.
    std::vector<uint32_t> host_map_failures;
    bool host_map_reported = false;  // std::atomic_ref
    uint64_t calls = 0;               // std::atomic_ref; counted with Options::count_calls
    CallPlan plan;  // made on the first call, before `native` is set
    GuestFunctionArgs guest_fns;
    void* native = nullptr;  // read and set atomically (std::atomic_ref)
    // phybin looks at its result after the call (a handed-out function, a
    // table, a host-mapping failure): it never takes the direct way.
    bool result_looked_at() const { return handout >= 0 || table_arg[0] >= 0 || !host_map_failures.empty(); }
  };
  struct Library {
    const char* name;
    const char* soname;
    const char* package;
    std::vector<Function> functions;
    const void* handed_out;  // the build's table of the functions it hands out
    const void* table_entries;  // the functions of the tables it fills, by extension
    bool rocm_layout;         // also in a ROCm installation's lib/
    const char* environment;  // prefixes of the variables it reads ("HSA_ ROCR_")
    bool enabled = false;
    enum class State : uint8_t { Untried, Loaded, Missing } state = State::Untried;
    void* handle = nullptr;
    std::string guest_path;
  };

  bool load(Library& lib);
  void* open_native(const Library& lib, std::string& looked);
  void pass_environment();
  void prepare(Library& lib, Function& fn, uint32_t index);
  void enable_direct(uint32_t index, const Signature& sig, const void* native);
  uint64_t entry_for(uint64_t native, const char* name, const char* signature, const char* via);
  void deliver_handed_out(const Library& lib, const Function& fn, NativeCall& call);
  uint64_t hand_out(const Library& lib, const Function& fn, const NativeCall& call, uint64_t native);
  void convert_table(const Library& lib, const Function& fn, const NativeCall& call);
  void check_host_mapping(Function& fn, uint32_t result);
  // Copies of records holding guest functions, for one call.
  struct RecordCopy {
    const RecordFunctions* rec;
    uint64_t guest;  // the guest's record
    alignas(16) uint8_t bytes[kMaxRecordFunctionsBytes];
  };
  void convert_guest_functions(const GuestFunctionArgs& args, const CallPlan& plan, NativeCall& call,
                               GuestState& st, const char* via, std::vector<RecordCopy>& copies);
  void give_back_records(std::vector<RecordCopy>& copies);
  uint64_t host_function_for(uint64_t guest_fn, CallbackThread thread, const std::string& signature, GuestState& st,
                             const char* via);
  // Argument `index` of a call as the library gets it.
  static uint64_t argument(const Function& fn, const NativeCall& call, int index) {
    uint64_t v;
    std::memcpy(&v, reinterpret_cast<const uint8_t*>(&call) + fn.plan.native_place(static_cast<size_t>(index)), 8);
    return v;
  }
  void run_native(const char* name, NativeCall& call, GuestState& st);
  void call_handed_out(GuestState& st, uint32_t entry);
  void guest_side_call(GuestState& st, uint32_t number);

  // Entries the guest calls for functions a library handed out: a guest
  // page of x86-64 entries (x86/forward_entry.h) numbered from
  // kHandedOutFirst, each bound to a native function and its plan.
  struct HandedOut {
    void* native;
    CallPlan plan;
    const char* name;
    const char* signature;
    GuestFunctionArgs guest_fns;
  };
  std::vector<HandedOut> handed_out_;
  std::unordered_map<uint64_t, uint64_t> entry_of_;  // native function -> guest entry
  uint64_t entries_page_ = 0;

  std::vector<Library> libraries_;
  Options options_;
  // GuestState::forward_table: calloc'd, so that its untouched pages cost
  // nothing.
  struct FreeTable {
    void operator()(const void** table) const { std::free(static_cast<void*>(table)); }
  };
  std::unique_ptr<const void*[], FreeTable> direct_;
  // The guest's `environ` variable (its C library's, told by the guest
  // sides), for the variables the native libraries read: those whose
  // names start with one of the enabled libraries' prefixes.
  uint64_t guest_environ_ = 0;
  std::vector<std::string> environment_prefixes_;
  std::mutex mutex_;
  Callbacks callbacks_;
  Watchdog watchdog_;
};

}  // namespace phybin::forward
