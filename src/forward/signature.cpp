#include "forward/signature.h"

#include <array>
#include <string>

namespace phybin::forward {

namespace {

constexpr std::array<std::pair<std::string_view, ArgClass>, 13> kNames = {{
    {"void", ArgClass::Void}, {"i8", ArgClass::I8},   {"u8", ArgClass::U8},   {"i16", ArgClass::I16},
    {"u16", ArgClass::U16},   {"i32", ArgClass::I32}, {"u32", ArgClass::U32}, {"i64", ArgClass::I64},
    {"u64", ArgClass::U64},   {"ptr", ArgClass::Ptr}, {"fnptr", ArgClass::FnPtr}, {"f32", ArgClass::F32},
    {"f64", ArgClass::F64},
}};

std::optional<ArgClass> class_named(std::string_view word) {
  for (const auto& [name, c] : kNames)
    if (name == word) return c;
  return std::nullopt;
}

// The next space-separated word of `text` from `at` on (empty at the end).
std::string_view next_word(std::string_view text, size_t& at) {
  while (at < text.size() && text[at] == ' ') ++at;
  const size_t begin = at;
  while (at < text.size() && text[at] != ' ') ++at;
  return text.substr(begin, at - begin);
}

bool add_callback(std::string_view word, Signature& sig) {
  const size_t eq = word.find('=');
  if (eq == std::string_view::npos || eq < 2) return false;
  const std::string index(word.substr(1, eq - 1));
  if (index.find_first_not_of("0123456789") != std::string::npos || index.size() > 2) return false;
  const auto n = static_cast<size_t>(std::stoul(index));
  const std::string_view thread = word.substr(eq + 1);
  if (n >= sig.args.size() || sig.args[n] != ArgClass::FnPtr || (thread != "caller" && thread != "any")) return false;
  sig.callbacks.emplace_back(static_cast<uint8_t>(n), thread == "any" ? CallbackThread::Any : CallbackThread::Caller);
  return true;
}

}  // namespace

bool is_float(ArgClass c) { return c == ArgClass::F32 || c == ArgClass::F64; }

std::optional<Signature> parse_signature(std::string_view text) {
  Signature sig;
  size_t at = 0;
  const std::optional<ArgClass> result = class_named(next_word(text, at));
  if (!result || next_word(text, at) != ":") return std::nullopt;
  sig.result = *result;
  for (std::string_view word = next_word(text, at); !word.empty(); word = next_word(text, at)) {
    if (word[0] == '@') {
      if (!add_callback(word, sig)) return std::nullopt;
      continue;
    }
    const std::optional<ArgClass> c = class_named(word);
    if (!c || *c == ArgClass::Void || !sig.callbacks.empty()) return std::nullopt;
    sig.args.push_back(*c);
  }
  // A fnptr argument without a note is a callback on the caller's thread.
  for (size_t i = 0; i < sig.args.size(); ++i) {
    bool noted = false;
    for (const auto& cb : sig.callbacks) noted = noted || cb.first == i;
    if (sig.args[i] == ArgClass::FnPtr && !noted)
      sig.callbacks.emplace_back(static_cast<uint8_t>(i), CallbackThread::Caller);
  }
  return sig;
}

}  // namespace phybin::forward
