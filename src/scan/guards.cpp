#include "scan/guards.h"

#include <algorithm>
#include <string_view>
#include <utility>

namespace phybin::scan {

namespace {

// What the C libraries and compilers keep the CPU's features in.
constexpr std::string_view kCapabilityObjects[] = {
    "OPENSSL_ia32cap_P", "_rtld_global_ro", "_dl_x86_cpu_features", "__cpu_model", "__cpu_features2", "npy__cpu_have",
};
// Functions that answer with the CPU's features.
constexpr std::string_view kCapabilityFunctions[] = {
    "__get_cpu_features",   "_dl_x86_get_cpu_features", "__x86_get_cpu_features", "__x86_get_cpuid_feature_leaf",
    "__cpu_indicator_init", "OPENSSL_ia32_cpuid",       "av_get_cpu_flags",       "npy_cpu_init",
};

// A method table or other record of function pointers is at most this
// long: a pointer further than this from any address code takes is held
// by data nobody is seen to take.
constexpr uint64_t kMaxObjectBytes = 512;

// A function answering whether the CPU has a feature is short.
constexpr uint64_t kMaxPredicateBytes = 256;

bool listed(const std::string& name, const auto& list) {
  return std::find(std::begin(list), std::end(list), name) != std::end(list);
}

class Analysis {
 public:
  Analysis(const Image& image, const CodeFacts& facts) : image_(image), facts_(facts), n_(facts.units.size()) {
    out_.kept.assign(n_, false);
    out_.guard.assign(n_, "");
  }

  Guards run() {
    targets_.resize(facts_.references.size());
    for (size_t i = 0; i < targets_.size(); ++i)
      targets_[i] = static_cast<uint32_t>(unit_of(facts_.references[i].to));
    find_kept();
    find_capability_data();
    const std::vector<bool> checks = units_checking_cpu();
    std::vector<bool> external(n_, false);
    find_edges(external);
    mark_ifunc_targets();
    mark_vector_abi_variants();
    for (size_t u = 0; u < n_; ++u)
      if (checks[u] && out_.guard[u].empty()) out_.guard[u] = why_[u];
    // Comparing a function pointer with a guarded function is a CPU check
    // made earlier (OpenSSL: "ctx->ghash == gcm_ghash_avx"); each round
    // may find more of them.
    for (int round = 0; round < 8; ++round) {
      const std::vector<std::string> checked = out_.guard;
      spread(external);
      if (!compares_with_guarded(checked)) break;
    }
    return std::move(out_);
  }

 private:
  // The unit holding `address`, or n_.
  size_t unit_of(uint64_t address) const {
    auto it = std::upper_bound(facts_.units.begin(), facts_.units.end(), address,
                               [](uint64_t a, const Unit& u) { return a < u.begin; });
    if (it == facts_.units.begin()) return n_;
    --it;
    return address < it->end ? static_cast<size_t>(it - facts_.units.begin()) : n_;
  }

  // The unit a reference of facts_.references leads into, or n_.
  size_t target_of(const Reference& r) const { return targets_[static_cast<size_t>(&r - facts_.references.data())]; }

  // Functions are code; a run between them is when something reaches it.
  // Hand-written assembly takes its tables' addresses with lea: in a file
  // whose unwind table gives the functions, an address taken into the
  // bytes between them is data's.
  void find_kept() {
    std::vector<uint64_t> seeds;
    for (const Image::CodePointer& p : image_.code_pointers) seeds.push_back(p.to);
    seeds.insert(seeds.end(), image_.ifunc_resolvers.begin(), image_.ifunc_resolvers.end());
    seeds.push_back(image_.entry);
    for (const Image::Symbol& s : image_.symbols)
      if (s.function) seeds.push_back(s.address);
    for (size_t u = 0; u < n_; ++u) out_.kept[u] = !facts_.units[u].between_functions;
    for (uint64_t a : seeds)
      if (size_t u = unit_of(a); u < n_) out_.kept[u] = true;
    // What kept code reaches (references are grouped by unit, in order).
    std::vector<uint32_t> first(n_ + 1, 0);
    for (const Reference& r : facts_.references) ++first[r.unit + 1];
    for (size_t u = 0; u < n_; ++u) first[u + 1] += first[u];
    std::vector<size_t> work;
    for (size_t u = 0; u < n_; ++u)
      if (out_.kept[u]) work.push_back(u);
    while (!work.empty()) {
      const size_t u = work.back();
      work.pop_back();
      for (uint32_t i = first[u]; i < first[u + 1]; ++i) {
        const Reference& r = facts_.references[i];
        if (r.kind == Reference::Read || r.kind == Reference::Compared) continue;
        if (r.kind == Reference::Address && image_.has_unwind_table) continue;
        if (size_t to = target_of(r); to < n_ && !out_.kept[to]) out_.kept[to] = true, work.push_back(to);
      }
    }
  }

  // The named capability objects, and the data that code running cpuid
  // (or calling such code) touches: where it leaves what it found.
  void find_capability_data() {
    for (const Image::Symbol& s : image_.symbols)
      if (!s.function && listed(s.name, kCapabilityObjects))
        capability_data_.push_back({s.address, s.address + std::max<uint64_t>(s.size, 1)});
    std::vector<bool> near_cpuid(n_, false);
    for (size_t u = 0; u < n_; ++u) near_cpuid[u] = out_.kept[u] && facts_.units[u].runs_cpuid;
    for (const Reference& r : facts_.references)
      if (r.kind == Reference::Call && out_.kept[r.unit])
        if (size_t to = target_of(r); to < n_ && facts_.units[to].runs_cpuid) near_cpuid[r.unit] = true;
    for (const Reference& r : facts_.references) {
      if (!near_cpuid[r.unit] || (r.kind != Reference::Read && r.kind != Reference::Address)) continue;
      if (image_.in_code(r.to) || image_.slot_at(r.to)) continue;
      capability_data_.push_back({r.to, r.to + (r.kind == Reference::Address ? 16 : 8)});
    }
    std::sort(capability_data_.begin(), capability_data_.end());
  }

  bool capability_data_at(uint64_t a) const {
    auto it = std::upper_bound(capability_data_.begin(), capability_data_.end(), std::pair{a, ~uint64_t{0}});
    while (it != capability_data_.begin()) {
      --it;
      if (a < it->second) return true;
      if (a - it->first > 4096) break;
    }
    return false;
  }

  std::string unit_name(size_t u) const {
    const std::string name = image_.name_of(facts_.units[u].begin);
    return name.empty() ? hex(facts_.units[u].begin) : name;
  }

  // Units that check the CPU directly, then those calling one of them.
  std::vector<bool> units_checking_cpu() {
    why_.assign(n_, "");
    std::vector<bool> answers(n_, false);  // functions answering with features
    for (size_t u = 0; u < n_; ++u) {
      if (!out_.kept[u] || !facts_.units[u].runs_cpuid) continue;
      why_[u] = "runs cpuid";
      answers[u] = facts_.units[u].end - facts_.units[u].begin <= kMaxPredicateBytes;
    }
    for (const Image::Symbol& s : image_.symbols)
      if (s.function && listed(s.name, kCapabilityFunctions))
        if (size_t u = unit_of(s.address); u < n_ && facts_.units[u].begin == s.address) answers[u] = true;
    for (const Reference& r : facts_.references) {  // a PLT entry of such a function
      const Image::Slot* slot = r.kind == Reference::Read ? image_.slot_at(r.to) : nullptr;
      if (slot && listed(slot->symbol, kCapabilityFunctions) && out_.kept[r.unit]) answers[r.unit] = true;
    }
    std::vector<bool> direct(n_, false);
    for (size_t u = 0; u < n_; ++u) direct[u] = facts_.units[u].runs_cpuid;
    for (const Reference& r : facts_.references) {
      if (!out_.kept[r.unit] || direct[r.unit]) continue;
      const Image::Slot* slot = image_.slot_at(r.to);
      size_t to = n_;
      if (slot && (listed(slot->symbol, kCapabilityObjects) || listed(slot->symbol, kCapabilityFunctions))) {
        why_[r.unit] = "checks the CPU (" + slot->symbol + ")";
      } else if (r.kind != Reference::Call && r.kind != Reference::Jump && capability_data_at(r.to)) {
        const std::string data = image_.object_name(r.to);
        why_[r.unit] = "checks the CPU (reads " + (data.empty() ? "the CPU features cpuid left" : data) + ")";
      } else if (r.kind == Reference::Call && (to = target_of(r)) < n_ && answers[to]) {
        why_[r.unit] = "checks the CPU (calls " + unit_name(to) + ")";
      } else {
        continue;
      }
      direct[r.unit] = true;
    }
    // A small function that only answers whether the CPU has a feature
    // (OpenSSL's rsaz_avx2_eligible): its callers check.  Not a large one
    // that reads the features on its way (glibc's start-up).
    std::vector<bool> predicate = direct, checks = direct;
    for (size_t u = 0; u < n_; ++u)
      predicate[u] = predicate[u] && facts_.units[u].end - facts_.units[u].begin <= kMaxPredicateBytes;
    for (const Reference& r : facts_.references)
      if (r.kind == Reference::Call) predicate[r.unit] = false;
    for (const Reference& r : facts_.references) {
      if (r.kind != Reference::Call || !out_.kept[r.unit] || checks[r.unit]) continue;
      if (size_t to = target_of(r); to < n_ && to != r.unit && predicate[to]) {
        checks[r.unit] = true;
        why_[r.unit] = "checks the CPU (calls " + unit_name(to) + ", which does)";
      }
    }
    return checks;
  }

  // The references between units that spread() follows: branches and
  // addresses taken in code, and the functions a data object holds, as
  // taken by the code that takes the object's address (its nearest
  // address below them that code refers to, a method table's).  The entry
  // point, exported functions and those in data no code refers to are
  // `external`: anything may call them.
  void find_edges(std::vector<bool>& external) {
    std::vector<std::pair<uint64_t, uint32_t>> data_refs;  // (address, unit)
    for (const Reference& r : facts_.references) {
      if (!out_.kept[r.unit] || r.kind == Reference::Compared) continue;
      const size_t to = target_of(r);
      if (to < n_ && to != r.unit && r.kind != Reference::Read) edges_.emplace_back(r.unit, static_cast<uint32_t>(to));
      if (to == n_ && !image_.in_code(r.to) && (r.kind == Reference::Read || r.kind == Reference::Address))
        data_refs.emplace_back(r.to, r.unit);
    }
    std::sort(data_refs.begin(), data_refs.end());
    auto mark = [&](uint64_t a) {
      if (size_t u = unit_of(a); u < n_) external[u] = true;
    };
    mark(image_.entry);
    for (uint64_t a : image_.ifunc_resolvers) mark(a);  // the loader runs them
    for (const Image::Symbol& s : image_.symbols)
      if (s.function && s.exported) mark(s.address);
    for (const Image::CodePointer& p : image_.code_pointers) {
      const size_t to = unit_of(p.to);
      if (to == n_) continue;
      auto it = std::upper_bound(data_refs.begin(), data_refs.end(), std::pair{p.at, ~uint32_t{0}});
      if (it == data_refs.begin() || p.at - std::prev(it)->first > kMaxObjectBytes) {
        external[to] = true;
        continue;
      }
      const uint64_t anchor = std::prev(it)->first;
      for (auto r = std::lower_bound(data_refs.begin(), data_refs.end(), std::pair{anchor, uint32_t{0}});
           r != data_refs.end() && r->first == anchor; ++r)
        edges_.emplace_back(r->second, static_cast<uint32_t>(to));
    }
    std::sort(edges_.begin(), edges_.end());
    edges_.erase(std::unique(edges_.begin(), edges_.end()), edges_.end());
    first_edge_.assign(n_ + 1, 0);
    for (const auto& [from, to] : edges_) ++first_edge_[from + 1];
    for (size_t u = 0; u < n_; ++u) first_edge_[u + 1] += first_edge_[u];
  }

  // Units comparing a pointer with a unit guarded in `checked`'s round
  // that are not guarded yet: they check.  True when there were some.
  bool compares_with_guarded(const std::vector<std::string>& checked) {
    bool more = false;
    for (const Reference& r : facts_.references) {
      if (r.kind != Reference::Compared || !out_.kept[r.unit] || !checked[r.unit].empty()) continue;
      const size_t to = target_of(r);
      if (to == n_ || out_.guard[to].empty() || !out_.guard[r.unit].empty()) continue;
      out_.guard[r.unit] = "checks the CPU (compares a function pointer with " + unit_name(to) + ", chosen by a check)";
      more = true;
    }
    if (!more) return false;
    for (size_t u = 0; u < n_; ++u)  // the next round spreads again from the checks
      if (checked[u].empty() && out_.guard[u].rfind("checks the CPU (compares", 0) != 0) out_.guard[u].clear();
    return true;
  }

  // The vector function ABI's AVX, AVX2 and AVX-512 variants (libmvec's
  // _ZGVdN4v_sin): a compiler calls them only from code vectorised for
  // that extension, which cannot run under phybin before them.
  void mark_vector_abi_variants() {
    for (const Image::Symbol& s : image_.symbols) {
      if (!s.function || s.name.size() < 5 || s.name.compare(0, 4, "_ZGV") != 0) continue;
      const char isa = s.name[4];
      if (isa != 'c' && isa != 'd' && isa != 'e') continue;
      if (size_t u = unit_of(s.address); u < n_ && out_.guard[u].empty())
        out_.guard[u] = "a vector-ABI variant for " + std::string(isa == 'c' ? "AVX" : isa == 'd' ? "AVX2" : "AVX-512") +
                        " callers (" + s.name + "): only code already using it calls it";
    }
  }

  void mark_ifunc_targets() {
    std::vector<bool> resolver(n_, false);
    for (uint64_t a : image_.ifunc_resolvers)
      if (size_t u = unit_of(a); u < n_) resolver[u] = true;
    for (const Reference& r : facts_.references) {
      if (!resolver[r.unit] || r.kind != Reference::Address) continue;
      if (size_t to = target_of(r); to < n_ && to != r.unit)
        out_.guard[to] = "chosen by the IFUNC resolver " + unit_name(r.unit);
    }
  }

  // Code reached only from guarded code is guarded too: what can be
  // reached from where unguarded code starts (exports, data, the entry
  // point) without passing through guarded code is not; the rest is,
  // cycles included, and code nothing refers to (it cannot run).
  void spread(const std::vector<bool>& external) {
    std::vector<bool> referred(n_, false), reached(n_, false);
    for (const auto& [from, to] : edges_) referred[to] = true;
    std::vector<size_t> work;
    for (size_t u = 0; u < n_; ++u)
      if (out_.kept[u] && out_.guard[u].empty() && external[u]) reached[u] = true, work.push_back(u);
    while (!work.empty()) {
      const size_t u = work.back();
      work.pop_back();
      for (uint32_t e = first_edge_[u]; e < first_edge_[u + 1]; ++e)
        if (const uint32_t to = edges_[e].second; !reached[to] && out_.guard[to].empty()) reached[to] = true, work.push_back(to);
    }
    std::vector<bool> checked(n_);
    for (size_t u = 0; u < n_; ++u) checked[u] = !out_.guard[u].empty();
    for (const auto& [from, to] : edges_)
      if (out_.kept[to] && !reached[to] && out_.guard[to].empty() && checked[from])
        out_.guard[to] = "reached only from code that checks the CPU (" + unit_name(from) + ")";
    for (size_t u = 0; u < n_; ++u)  // reached from such code through others, or not at all
      if (out_.kept[u] && !reached[u] && out_.guard[u].empty())
        out_.guard[u] = referred[u] ? "reached only from code that checks the CPU" : "nothing refers to it (unused code)";
  }

  const Image& image_;
  const CodeFacts& facts_;
  const size_t n_;
  Guards out_;
  std::vector<std::pair<uint64_t, uint64_t>> capability_data_;
  std::vector<std::string> why_;
  std::vector<uint32_t> targets_;  // by reference: target_of
  std::vector<std::pair<uint32_t, uint32_t>> edges_;  // (from, to), sorted
  std::vector<uint32_t> first_edge_;                  // by unit: its first edge's index
};

}  // namespace

Guards find_guards(const Image& image, const CodeFacts& facts) { return Analysis(image, facts).run(); }

const char* optional_extension(const std::string& extension) {
  if (extension == "RTM") return "TSX (RTM) is off or absent on most x86-64 CPUs: programs ask CPUID before using it";
  if (extension == "CET") return "shadow-stack instructions run only once the kernel turned the shadow stack on, never under phybin";
  if (extension == "PKU") return "protection keys work only after pkey_alloc succeeds, which needs the CPU's PKU";
  return nullptr;
}

}  // namespace phybin::scan
