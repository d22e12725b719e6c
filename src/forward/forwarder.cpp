#include "forward/forwarder.h"

#include <dlfcn.h>
#include <link.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string_view>

#include "common/error.h"
#include "common/log.h"
#include "forward/guest_calls.h"
#include "forward/marshal.h"
#include "forward/native_call.h"
#include "linux/signal_delivery.h"
#include "x86/forward_entry.h"

namespace phybin::forward {

namespace {

struct FunctionEntry {
  const char* name;
  const char* signature;
  int handout;
  int handout_out = -1;  // hands out through this pointer argument, not its result
  int table_arg = -1, extension_arg = -1, length_arg = -1;  // fills a table of functions
  const char* host_map_failures = nullptr;  // "2 0x1008": results meaning host memory was not mapped
};
struct TableEntry {
  uint16_t extension;
  bool in_first_version;  // in its 1.00 table
  const char* name;
  const char* signature;
};
struct LibraryEntry {
  const char* name;
  const char* soname;
  const char* package;
  const FunctionEntry* functions;
  size_t count;
  const FunctionEntry* handed_out;  // ends with a null name
  const TableEntry* table_entries;  // ends with a null name
  bool rocm_layout;
  const char* environment;
};

// The build's tables (cmake/forward_generate.cmake), one per description,
// and kLibraries: all of them, in the order of their system call numbers.
#include "forward_libraries.inc"

constexpr uint32_t kFunctionsPerLibrary = 4096;
// The numbers of phybin's own code in the guest sides (guest_calls.h),
// then of handed-out functions' entries: past every library's.
constexpr uint32_t kGuestCallsFirst = 14 * kFunctionsPerLibrary;
constexpr uint32_t kHandedOutFirst = 15 * kFunctionsPerLibrary;
static_assert(PHYBIN_GUEST_CALL_REGISTER == sys::ForwardedCalls::kFirst + kGuestCallsFirst);
constexpr size_t kEntriesPage = 4096;
constexpr uint32_t kMaxHandedOut = kEntriesPage / x86::kForwardEntryBytes;

// The last component of a path.
const char* base_name(const char* path) {
  const char* slash = std::strrchr(path, '/');
  return slash ? slash + 1 : path;
}

// "libOpenCL.so" for "libOpenCL.so.1": the name a program may dlopen.
bool names_library(const char* base, const char* soname) {
  if (std::strcmp(base, soname) == 0) return true;
  const char* so = std::strstr(soname, ".so");
  return so && std::strncmp(base, soname, static_cast<size_t>(so + 3 - soname)) == 0 &&
         base[so + 3 - soname] == '\0';
}

// The names of a PHYBIN_FORWARD list ("opencl,hip"), or of a
// description's environment prefixes ("HSA_ ROCR_").
std::vector<std::string> names_in(const std::string& which, char separator = ',') {
  std::vector<std::string> names;
  for (size_t at = 0; at <= which.size();) {
    const size_t end = std::min(which.find(separator, at), which.size());
    names.push_back(which.substr(at, end - at));
    at = end + 1;
  }
  return names;
}

// Each function the record `bytes` holds (by `rec`'s fields), replaced by
// what `map(function, field)` makes of it.
template <typename Map>
void map_functions(const RecordFunctions& rec, uint8_t* bytes, Map&& map) {
  for (const RecordFunctions::Field& field : rec.fields) {
    if (!field.holds_function(bytes)) continue;
    uint64_t fn;
    std::memcpy(&fn, bytes + field.offset, 8);
    fn = map(fn, field);
    std::memcpy(bytes + field.offset, &fn, 8);
  }
}

// The file the loader loaded for `handle`; empty when it does not say.
std::string loaded_file(void* handle) {
  const link_map* map = nullptr;
  return dlinfo(handle, RTLD_DI_LINKMAP, &map) == 0 && map && map->l_name ? map->l_name : "";
}

bool listed(const std::string& which, const char* name) {
  if (which.empty() || which == "all") return true;
  if (which == "none") return false;
  for (const std::string& n : names_in(which))
    if (n == name) return true;
  return false;
}

}  // namespace

std::vector<std::string> Forwarder::known_libraries() {
  std::vector<std::string> names;
  for (const LibraryEntry& e : kLibraries)  // one name for each soname of a library (hip)
    if (std::find(names.begin(), names.end(), e.name) == names.end()) names.emplace_back(e.name);
  return names;
}

std::optional<std::string> Forwarder::unknown_library(const std::string& which) {
  if (which == "all" || which == "none") return std::nullopt;
  const std::vector<std::string> known = known_libraries();
  for (const std::string& name : names_in(which))
    if (std::find(known.begin(), known.end(), name) == known.end()) return name;
  return std::nullopt;
}

Forwarder::Forwarder(Options options)
    : options_(std::move(options)),
      direct_(static_cast<const void**>(std::calloc(kCount, sizeof(void*)))),
      watchdog_(options_.watchdog_seconds, options_.watchdog_abort) {
  if (!direct_) fatal(ErrorCode::PHYBIN_ERR_HOST_MMAP, "no memory for the forwarded calls' table");
  handed_out_.reserve(kMaxHandedOut);  // never moves: calls use entries without the lock
  for (const LibraryEntry& e : kLibraries) {
    Library lib{e.name, e.soname, e.package, {}, e.handed_out, e.table_entries, e.rocm_layout, e.environment};
    lib.enabled = listed(options_.which, e.name);
    lib.guest_path = options_.guest_dir + "/" + e.soname;
    for (size_t i = 0; i < e.count; ++i) {
      const FunctionEntry& f = e.functions[i];
      lib.functions.push_back(Function{f.name, f.signature, f.handout, f.handout_out, {f.table_arg, f.extension_arg, f.length_arg}});
      for (const std::string& r : names_in(f.host_map_failures ? f.host_map_failures : "", ' '))
        if (!r.empty()) lib.functions.back().host_map_failures.push_back(static_cast<uint32_t>(std::stoul(r, nullptr, 0)));
    }
    if (lib.enabled)
      for (std::string& prefix : names_in(lib.environment, ' '))
        if (!prefix.empty()) environment_prefixes_.push_back(std::move(prefix));
    libraries_.push_back(std::move(lib));
  }
}

// The native library where a user's installation puts it: a ROCm one in
// PHYBIN_ROCM_PATH's lib/ when that is set, else on the host's loader
// path, else in the default ROCm installation's lib/.  `looked` says where
// it was looked for.
void* Forwarder::open_native(const Library& lib, std::string& looked) {
  const std::string in_rocm = options_.rocm_path + "/lib/" + lib.soname;
  if (lib.rocm_layout && options_.rocm_path_set) {
    if (void* handle = dlopen(in_rocm.c_str(), RTLD_NOW | RTLD_LOCAL)) return handle;
    logf(LogLevel::Warn, "phybin: PHYBIN_ROCM_PATH=%s: no usable %s there (%s); trying the loader path",
         options_.rocm_path.c_str(), in_rocm.c_str(), dlerror());
  }
  looked = "the loader path";
  if (void* handle = dlopen(lib.soname, RTLD_NOW | RTLD_LOCAL)) return handle;
  looked += std::string(" (") + dlerror() + ")";
  if (lib.rocm_layout && !options_.rocm_path_set) {
    looked += " and " + in_rocm;
    if (void* handle = dlopen(in_rocm.c_str(), RTLD_NOW | RTLD_LOCAL)) return handle;
  }
  return nullptr;
}

// The native library, once.
bool Forwarder::load(Library& lib) {
  if (lib.state != Library::State::Untried) return lib.state == Library::State::Loaded;
  lib.state = Library::State::Missing;
  if (access(lib.guest_path.c_str(), R_OK) != 0) {
    logf(LogLevel::Warn, "phybin: %s is not forwarded: phybin's guest side %s is missing", lib.soname,
         lib.guest_path.c_str());
    return false;
  }
  std::string looked;
  lib.handle = open_native(lib, looked);
  if (!lib.handle) {
    logf(LogLevel::Warn, "phybin: %s is not forwarded: no native %s on this machine (Debian package %s; looked on %s)",
         lib.soname, lib.soname, lib.package, looked.c_str());
    return false;
  }
  lib.state = Library::State::Loaded;
  const std::string file = loaded_file(lib.handle);
  logf(LogLevel::Info, "phybin: forwarding %s to the native AArch64 library %s (%zu functions)", lib.soname,
       file.empty() ? lib.soname : file.c_str(), lib.functions.size());
  return true;
}

std::vector<std::pair<std::string, uint64_t>> Forwarder::call_counts() const {
  std::vector<std::pair<std::string, uint64_t>> counts;
  for (const Library& lib : libraries_)
    for (const Function& fn : lib.functions)
      if (const uint64_t n = std::atomic_ref<const uint64_t>(fn.calls).load(std::memory_order_relaxed))
        counts.emplace_back(fn.name, n);
  std::sort(counts.begin(), counts.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
  return counts;
}

std::vector<Forwarder::LibraryReport> Forwarder::survey() {
  std::vector<LibraryReport> reports;
  for (Library& lib : libraries_) {
    LibraryReport r{lib.name, lib.soname, lib.package, lib.enabled, access(lib.guest_path.c_str(), R_OK) == 0, {}, {}};
    if (void* handle = open_native(lib, r.looked)) {
      char resolved[PATH_MAX];
      r.native = loaded_file(handle);
      if (!r.native.empty() && realpath(r.native.c_str(), resolved)) r.native = resolved;
    }
    reports.push_back(std::move(r));
  }
  return reports;
}

// The guest's values of the variables the forwarded libraries read (their
// prefixes), set in phybin's own environment, which the native libraries'
// getenv reads; those the guest removed are removed.  Before a function's
// first call: the runtimes read their variables when they start.
void Forwarder::pass_environment() {
  if (!guest_environ_) return;
  const auto wanted = [this](std::string_view name) {
    return std::any_of(environment_prefixes_.begin(), environment_prefixes_.end(),
                       [&](const std::string& p) { return name.substr(0, p.size()) == p; });
  };
  std::vector<std::string> guest_names;
  uint64_t array = 0;
  if (!sys::guest_read(&array, guest_environ_, 8)) return;
  for (uint64_t entry = 0; array && sys::guest_read(&entry, array, 8) && entry; array += 8) {
    const char* text = reinterpret_cast<const char*>(entry);  // guest addresses are host addresses
    const char* eq = std::strchr(text, '=');
    if (!eq || !wanted(std::string_view(text, static_cast<size_t>(eq - text)))) continue;
    guest_names.emplace_back(text, static_cast<size_t>(eq - text));
    const char* host = std::getenv(guest_names.back().c_str());
    if (host && std::strcmp(host, eq + 1) == 0) continue;
    setenv(guest_names.back().c_str(), eq + 1, 1);
    logf(LogLevel::Info, "phybin: %s reaches the native libraries", text);
  }
  std::vector<std::string> removed;
  for (char** v = environ; *v; ++v) {
    const char* eq = std::strchr(*v, '=');
    const std::string name(*v, eq ? static_cast<size_t>(eq - *v) : std::strlen(*v));
    if (wanted(name) && std::find(guest_names.begin(), guest_names.end(), name) == guest_names.end())
      removed.push_back(name);
  }
  for (const std::string& name : removed) {
    unsetenv(name.c_str());
    logf(LogLevel::Info, "phybin: %s is unset for the native libraries, as in the guest", name.c_str());
  }
}

const char* Forwarder::library_for(const char* path) {
  const char* base = base_name(path);
  if (std::strncmp(base, "lib", 3) != 0) return nullptr;  // the common case, cheaply
  const std::lock_guard<std::mutex> guard(mutex_);
  for (Library& lib : libraries_) {
    if (!lib.enabled || !names_library(base, lib.soname)) continue;
    if (!load(lib)) return nullptr;
    logf(LogLevel::Debug, "phybin: %s opens the guest side of %s", path, lib.soname);
    return lib.guest_path.c_str();
  }
  return nullptr;
}

// Translated code may call it directly from now on (ir CallNative): not
// while the watchdog watches calls (it watches the system call way).
void Forwarder::enable_direct(uint32_t index, const Signature& sig, const void* native) {
  ir::NativeCallShape shape;
  if (watchdog_.on() || options_.count_calls || !forward::direct_shape(sig, shape)) return;
  std::atomic_ref<const void*>(direct_[index]).store(native, std::memory_order_release);
}

bool Forwarder::direct_shape(uint32_t index, ir::NativeCallShape& shape) {
  if (watchdog_.on() || options_.count_calls) return false;
  std::optional<Signature> sig;
  if (index >= kHandedOutFirst) {
    const std::lock_guard<std::mutex> guard(mutex_);
    if (index - kHandedOutFirst >= handed_out_.size()) return false;
    sig = parse_signature(handed_out_[index - kHandedOutFirst].signature);
  } else if (index < kGuestCallsFirst) {
    const uint32_t lib_index = index / kFunctionsPerLibrary, fn_index = index % kFunctionsPerLibrary;
    if (lib_index >= libraries_.size() || fn_index >= libraries_[lib_index].functions.size()) return false;
    const Library& lib = libraries_[lib_index];
    const Function& fn = lib.functions[fn_index];
    if (!lib.enabled || fn.result_looked_at()) return false;
    sig = parse_signature(fn.signature_text);
  }
  if (!sig || !forward::direct_shape(*sig, shape)) return false;
  shape.index = static_cast<uint16_t>(index);
  return true;
}

// The first call of a function: its native address and its plan.
void Forwarder::prepare(Library& lib, Function& fn, uint32_t index) {
  const std::lock_guard<std::mutex> guard(mutex_);
  if (fn.native) return;
  if (!load(lib))
    fatal(ErrorCode::PHYBIN_ERR_FORWARD,
          std::string(fn.name) + ": the native " + lib.soname + " is not loaded (Debian package " + lib.package + ")");
  pass_environment();
  const std::optional<Signature> sig = parse_signature(fn.signature_text);
  std::string why = "phybin does not forward this function of " + std::string(lib.soname) + " yet";
  std::optional<CallPlan> plan = sig ? plan_call(*sig, why) : std::nullopt;
  if (!plan) fatal(ErrorCode::PHYBIN_ERR_FORWARD, std::string(fn.name) + ": " + why);
  void* native = dlsym(lib.handle, fn.name);
  if (!native) fatal(ErrorCode::PHYBIN_ERR_FORWARD, std::string(fn.name) + ": not in the native " + lib.soname);
  fn.plan = std::move(*plan);
  fn.guest_fns = {sig->callbacks, sig->records};
  std::atomic_ref<void*>(fn.native).store(native, std::memory_order_release);
  if (!fn.result_looked_at()) enable_direct(index, *sig, native);
}

// The guest's entry for a native function the library handed out, bound
// to its description `signature` (nullptr: none), made once per function;
// 0 (and a log line naming `via` and `name`) when it cannot be called.
uint64_t Forwarder::entry_for(uint64_t native, const char* name, const char* signature, const char* via) {
  const std::lock_guard<std::mutex> guard(mutex_);
  if (auto it = entry_of_.find(native); it != entry_of_.end()) return it->second;
  std::string why = "no description of it";
  const std::optional<Signature> sig = signature ? parse_signature(signature) : std::nullopt;
  std::optional<CallPlan> plan = sig ? plan_call(*sig, why) : std::nullopt;
  if (plan && !entries_page_) {
    uint8_t page[kEntriesPage];
    for (uint32_t i = 0; i < kMaxHandedOut; ++i) {
      const auto entry = x86::forward_entry(kFirst + kHandedOutFirst + i);
      std::memcpy(page + i * x86::kForwardEntryBytes, entry.data(), entry.size());
    }
    entries_page_ = sys::map_guest_code(page, sizeof page);
  }
  if (!plan || !entries_page_ || handed_out_.size() >= kMaxHandedOut) {
    logf(LogLevel::Warn, "phybin: %s(\"%s\"): the guest gets NULL: %s", via, name,
         plan ? "no room for more handed-out functions" : why.c_str());
    return 0;
  }
  handed_out_.push_back(
      HandedOut{reinterpret_cast<void*>(native), std::move(*plan), name, signature, {sig->callbacks, sig->records}});
  enable_direct(kHandedOutFirst + static_cast<uint32_t>(handed_out_.size() - 1), *sig,
                reinterpret_cast<const void*>(native));
  const uint64_t entry = entries_page_ + (handed_out_.size() - 1) * x86::kForwardEntryBytes;
  entry_of_.emplace(native, entry);
  logf(LogLevel::Debug, "phybin: %s hands out %s: guest entry %#llx", via, name, static_cast<unsigned long long>(entry));
  return entry;
}

// The guest gets its entries for the functions a call hands out: as its
// result (clGetExtensionFunctionAddress), or through a pointer argument
// when the call answers 0 (HIP's hipGetProcAddress).
void Forwarder::deliver_handed_out(const Library& lib, const Function& fn, NativeCall& call) {
  if (fn.handout_out < 0) {
    if (call.x0 != 0) call.x0 = hand_out(lib, fn, call, call.x0);
    return;
  }
  const uint64_t out = argument(fn, call, fn.handout_out);
  uint64_t native = 0;
  if (static_cast<uint32_t>(call.x0) != 0 || !sys::guest_read(&native, out, 8) || !native) return;
  const uint64_t entry = hand_out(lib, fn, call, native);
  std::memcpy(reinterpret_cast<void*>(out), &entry, 8);  // guest addresses are host addresses
}

// A function the library handed out, named by the call's argument
// fn.handout: the guest gets an entry bound to its description, from the
// build's table of handed-out functions by that name, else from the
// library's own export at that address (hipGetProcAddress hands out
// exports, under the name of the version asked for:
// "hipGetDeviceProperties" at version 600 is hipGetDevicePropertiesR0600);
// NULL when nothing describes it, as from a library without it.
uint64_t Forwarder::hand_out(const Library& lib, const Function& fn, const NativeCall& call, uint64_t native) {
  const auto* name = reinterpret_cast<const char*>(argument(fn, call, fn.handout));  // guest addresses are host ones
  const auto* described = static_cast<const FunctionEntry*>(lib.handed_out);
  while (described->name && std::strcmp(described->name, name) != 0) ++described;
  if (described->name) return entry_for(native, described->name, described->signature, fn.name);
  void* const address = reinterpret_cast<void*>(native);
  Dl_info info{};
  if (dladdr(address, &info) && info.dli_sname && info.dli_saddr == address) {
    for (const Function& own : lib.functions) {
      if (std::strcmp(own.name, info.dli_sname) == 0 && *own.signature_text && dlsym(lib.handle, own.name) == address)
        return entry_for(native, own.name, own.signature_text, fn.name);
    }
  }
  return entry_for(native, name, nullptr, fn.name);
}

// A table of functions the library filled (an HSA extension's): each
// native function in it becomes the guest's entry for it, by the
// extension's layout in the description (its 1.00 table for a call
// without a length).
void Forwarder::convert_table(const Library& lib, const Function& fn, const NativeCall& call) {
  const auto extension = static_cast<uint16_t>(argument(fn, call, fn.table_arg[1]));
  const uint64_t table = argument(fn, call, fn.table_arg[0]);
  const uint64_t slots = fn.table_arg[2] >= 0 ? argument(fn, call, fn.table_arg[2]) / 8 : ~uint64_t{0};
  const auto* e = static_cast<const TableEntry*>(lib.table_entries);
  uint64_t slot = 0;
  for (; e->name && slot < slots; ++e) {
    if (e->extension != extension || (fn.table_arg[2] < 0 && !e->in_first_version)) continue;
    uint64_t native = 0;
    const uint64_t at = table + 8 * slot++;
    if (!sys::guest_read(&native, at, 8) || !native) continue;
    const uint64_t entry = entry_for(native, e->name, e->signature, fn.name);
    std::memcpy(reinterpret_cast<void*>(at), &entry, 8);  // guest addresses are host addresses
  }
  logf(LogLevel::Debug, "phybin: %s: %llu functions of extension %#x handed out", fn.name,
       static_cast<unsigned long long>(slot), static_cast<unsigned>(extension));
}

// A runtime's answer that it could not map host memory for the device
// (hipHostMalloc's hipErrorOutOfMemory, hsa_amd_memory_lock's
// HSA_STATUS_ERROR_OUT_OF_RESOURCES): said once per function, at any log
// level, with what to check; the program gets the answer as natively.
void Forwarder::check_host_mapping(Function& fn, uint32_t result) {
  if (std::find(fn.host_map_failures.begin(), fn.host_map_failures.end(), result) == fn.host_map_failures.end())
    return;
  if (std::atomic_ref<bool>(fn.host_map_reported).exchange(true)) return;
  logf(LogLevel::Error,
       "phybin: error %#x (PHYBIN_ERR_HOST_MMAP) in the native runtime: %s returned %#x: it could not map host "
       "memory for the device; check the IOMMU (amd_iommu=on iommu=pt on the kernel command line), the locked-memory "
       "limit (ulimit -l: ROCm wants unlimited) and the kernel's messages (dmesg)",
       static_cast<unsigned>(ErrorCode::PHYBIN_ERR_HOST_MMAP), fn.name, result);
}

// The native call on the guest's behalf, watched.
void Forwarder::run_native(const char* name, NativeCall& call, GuestState& st) {
  std::optional<Watchdog::Call> watched;
  if (watchdog_.on()) watched.emplace(watchdog_, name, call.x, st);
  native_call(call);
}

uint64_t Forwarder::host_function_for(uint64_t guest_fn, CallbackThread thread, const std::string& signature,
                                      GuestState& st, const char* via) {
  if (!guest_fn) return 0;
  if (thread == CallbackThread::Any) callbacks_.threads().ensure_started(st, via);
  return callbacks_.host_function(guest_fn, signature, via);
}

// Guest functions among a call's arguments: the library gets host ones.
// A record holding some (RecordFunctions) is copied, and the library gets
// the copy, with host functions in place of the guest ones (an in-out
// record goes back after the call: give_back_records).  A record phybin
// cannot read is passed as it is: the library faults on it as natively.
void Forwarder::convert_guest_functions(const GuestFunctionArgs& args, const CallPlan& plan, NativeCall& call,
                                        GuestState& st, const char* via, std::vector<RecordCopy>& copies) {
  for (const Callback& cb : args.callbacks) {
    auto* place = reinterpret_cast<uint8_t*>(&call) + plan.native_place(cb.arg);
    uint64_t fn;
    std::memcpy(&fn, place, 8);
    fn = host_function_for(fn, cb.thread, cb.signature, st, via);
    std::memcpy(place, &fn, 8);
  }
  copies.reserve(args.records.size());  // the library gets addresses inside: never moved
  for (const RecordFunctions& rec : args.records) {
    auto* place = reinterpret_cast<uint8_t*>(&call) + plan.native_place(rec.arg);
    RecordCopy& copy = copies.emplace_back();
    copy.rec = &rec;
    std::memcpy(&copy.guest, place, 8);
    if (!copy.guest || !sys::guest_read(copy.bytes, copy.guest, rec.bytes)) {
      copies.pop_back();
      continue;
    }
    map_functions(rec, copy.bytes, [&](uint64_t fn, const RecordFunctions::Field& field) {
      return host_function_for(fn, rec.thread, field.signature, st, via);
    });
    const auto host = reinterpret_cast<uint64_t>(copy.bytes);
    std::memcpy(place, &host, 8);
  }
}

// Records the library may have written (RecordFunctions::in_out) back to
// the guest, with the guest functions its host functions stand for.
void Forwarder::give_back_records(std::vector<RecordCopy>& copies) {
  for (RecordCopy& copy : copies) {
    if (!copy.rec->in_out) continue;
    map_functions(*copy.rec, copy.bytes,
                  [this](uint64_t fn, const RecordFunctions::Field&) { return callbacks_.guest_function(fn); });
    std::memcpy(reinterpret_cast<void*>(copy.guest), copy.bytes, copy.rec->bytes);  // guest addresses are host ones
  }
}

// Around a guest fork: the locks calls on other threads may hold are taken
// first, so that the child's copies are whole and free (none is held
// while another is taken); in the child the threads that served callbacks
// and the watchdog's are gone.
void Forwarder::on_fork(sys::ForkStage stage) {
  if (stage == sys::ForkStage::Prepare) {
    mutex_.lock();
    callbacks_.on_fork(stage);
    watchdog_.on_fork(stage);
    return;
  }
  watchdog_.on_fork(stage);
  callbacks_.on_fork(stage);
  mutex_.unlock();
}

void Forwarder::call_handed_out(GuestState& st, uint32_t entry) {
  HandedOut* h = nullptr;
  {
    const std::lock_guard<std::mutex> guard(mutex_);
    if (entry < handed_out_.size()) h = &handed_out_[entry];
  }
  if (!h) {
    st.gpr[RAX] = static_cast<uint64_t>(-ENOSYS);  // an entry never handed out
    return;
  }
  NativeCall call;
  call.fn = h->native;
  std::string why;
  if (!gather_args(h->plan, st, &sys::guest_read, call, why))
    fatal(ErrorCode::PHYBIN_ERR_FORWARD, std::string(h->name) + ": " + why);
  std::vector<RecordCopy> copies;
  convert_guest_functions(h->guest_fns, h->plan, call, st, h->name, copies);
  run_native(h->name, call, st);
  give_back_records(copies);
  deliver_result(h->plan, call, st);
}

void Forwarder::guest_side_call(GuestState& st, uint32_t number) {
  switch (number) {
    case PHYBIN_GUEST_CALL_REGISTER: {
      callbacks_.threads().set_starter(st.gpr[RDI]);
      const std::lock_guard<std::mutex> guard(mutex_);
      if (!guest_environ_) guest_environ_ = st.gpr[RSI];
      st.gpr[RAX] = 0;
      return;
    }
    case PHYBIN_GUEST_CALL_SERVE:
      st.gpr[RAX] = callbacks_.threads().serve(st, static_cast<int64_t>(st.gpr[RDI]));
      return;
    default:
      st.gpr[RAX] = static_cast<uint64_t>(-ENOSYS);
  }
}

// Every call after the first takes no lock and allocates nothing.
void Forwarder::call(GuestState& st, uint32_t index) {
  if (index >= kHandedOutFirst) {
    call_handed_out(st, index - kHandedOutFirst);
    return;
  }
  if (index >= kGuestCallsFirst) {
    guest_side_call(st, kFirst + index);
    return;
  }
  const uint32_t lib_index = index / kFunctionsPerLibrary, fn_index = index % kFunctionsPerLibrary;
  if (lib_index >= libraries_.size() || fn_index >= libraries_[lib_index].functions.size()) {
    st.gpr[RAX] = static_cast<uint64_t>(-ENOSYS);  // as a kernel would answer
    return;
  }
  Library& lib = libraries_[lib_index];
  Function& fn = lib.functions[fn_index];
  if (options_.count_calls) std::atomic_ref<uint64_t>(fn.calls).fetch_add(1, std::memory_order_relaxed);
  NativeCall call;
  call.fn = std::atomic_ref<void*>(fn.native).load(std::memory_order_acquire);
  if (!call.fn) {
    prepare(lib, fn, index);
    call.fn = fn.native;
  }
  std::string why;
  if (!gather_args(fn.plan, st, &sys::guest_read, call, why))
    fatal(ErrorCode::PHYBIN_ERR_FORWARD, std::string(fn.name) + ": " + why);
  std::vector<RecordCopy> copies;
  convert_guest_functions(fn.guest_fns, fn.plan, call, st, fn.name, copies);
  run_native(fn.name, call, st);
  give_back_records(copies);
  if (fn.handout >= 0) deliver_handed_out(lib, fn, call);
  if (fn.table_arg[0] >= 0 && static_cast<uint32_t>(call.x0) == 0) convert_table(lib, fn, call);
  if (!fn.host_map_failures.empty()) check_host_mapping(fn, static_cast<uint32_t>(call.x0));
  deliver_result(fn.plan, call, st);
}

}  // namespace phybin::forward
