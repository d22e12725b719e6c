#include "forward/signature.h"

#include <algorithm>
#include <array>
#include <string>

namespace phybin::forward {

namespace {

constexpr std::array<std::pair<std::string_view, ArgClass>, 13> kNames = {{
    {"void", ArgClass::Void}, {"i8", ArgClass::I8},   {"u8", ArgClass::U8},   {"i16", ArgClass::I16},
    {"u16", ArgClass::U16},   {"i32", ArgClass::I32}, {"u32", ArgClass::U32}, {"i64", ArgClass::I64},
    {"u64", ArgClass::U64},   {"ptr", ArgClass::Ptr}, {"fn", ArgClass::FnPtr}, {"f32", ArgClass::F32},
    {"f64", ArgClass::F64},
}};

// A class and, for a record, its size: "rec12", "mem24".
std::optional<std::pair<ArgClass, uint16_t>> class_named(std::string_view word) {
  for (const auto& [name, c] : kNames)
    if (name == word) return std::pair{c, uint16_t{0}};
  for (const auto& [prefix, c] : {std::pair{std::string_view("rec"), ArgClass::Rec}, {"mem", ArgClass::Mem}}) {
    if (word.size() <= 3 || word.size() > 7 || word.substr(0, 3) != prefix) continue;
    const std::string digits(word.substr(3));
    if (digits.find_first_not_of("0123456789") != std::string::npos) return std::nullopt;
    const auto bytes = static_cast<uint16_t>(std::stoul(digits));
    if (c == ArgClass::Rec ? bytes == 0 || bytes > 16 : bytes <= 16) return std::nullopt;
    return std::pair{c, bytes};
  }
  return std::nullopt;
}

// The next space-separated word of `text` from `at` on (empty at the end).
std::string_view next_word(std::string_view text, size_t& at) {
  while (at < text.size() && text[at] == ' ') ++at;
  const size_t begin = at;
  while (at < text.size() && text[at] != ' ') ++at;
  return text.substr(begin, at - begin);
}

// "fn<void,ptr,ptr>" -> "void : ptr ptr", checked; nullopt otherwise.
std::optional<std::string> callback_signature(std::string_view word) {
  if (word.size() < 5 || word.substr(0, 3) != "fn<" || word.back() != '>') return std::nullopt;
  std::string text(word.substr(3, word.size() - 4));
  const size_t comma = text.find(',');
  if (comma == std::string::npos) text += " :";
  else text.replace(comma, 1, " : ");
  for (char& c : text) c = c == ',' ? ' ' : c;
  std::optional<Signature> inner = parse_signature(text);
  if (!inner || !inner->callbacks.empty() || !inner->records.empty()) return std::nullopt;  // no callbacks of callbacks
  return text;
}

// "in16{0:fn<void,ptr>}" or "out16{...}": a pointer to a record holding
// functions at those offsets; nullopt otherwise.
std::optional<RecordFunctions> record_functions(std::string_view word) {
  RecordFunctions rec;
  rec.out = word.substr(0, 3) == "out";
  if (!rec.out && word.substr(0, 2) != "in") return std::nullopt;
  word.remove_prefix(rec.out ? 3 : 2);
  const size_t open = word.find('{');
  if (open == 0 || open == std::string_view::npos || word.back() != '}') return std::nullopt;
  const std::string size(word.substr(0, open));
  if (size.size() > 3 || size.find_first_not_of("0123456789") != std::string::npos) return std::nullopt;
  rec.bytes = static_cast<uint16_t>(std::stoul(size));
  std::string_view fields = word.substr(open + 1, word.size() - open - 2);
  while (!fields.empty()) {
    const size_t end = std::min(fields.find('|'), fields.size());
    const std::string_view field = fields.substr(0, end);
    fields.remove_prefix(std::min(end + 1, fields.size()));
    const size_t colon = field.find(':');
    const std::string offset(field.substr(0, colon));
    if (colon == std::string_view::npos || offset.empty() || offset.size() > 3 ||
        offset.find_first_not_of("0123456789") != std::string::npos)
      return std::nullopt;
    std::optional<std::string> fn = callback_signature(field.substr(colon + 1));
    const auto at = static_cast<uint16_t>(std::stoul(offset));
    if (!fn || at % 8 != 0 || at + 8u > rec.bytes) return std::nullopt;
    rec.fields.emplace_back(at, std::move(*fn));
  }
  if (rec.fields.empty() || rec.bytes > kMaxRecordFunctionsBytes) return std::nullopt;
  return rec;
}

bool mark_thread(std::string_view word, Signature& sig) {
  const size_t eq = word.find('=');
  if (eq == std::string_view::npos || eq < 2) return false;
  const std::string index(word.substr(1, eq - 1));
  if (index.find_first_not_of("0123456789") != std::string::npos || index.size() > 2) return false;
  const auto n = static_cast<size_t>(std::stoul(index));
  if (word.substr(eq + 1) != "any") return false;
  for (Callback& cb : sig.callbacks)
    if (cb.arg == n) {
      cb.thread = CallbackThread::Any;
      return true;
    }
  for (RecordFunctions& rec : sig.records)
    if (rec.arg == n) {
      rec.thread = CallbackThread::Any;
      return true;
    }
  return false;
}

}  // namespace

bool is_float(ArgClass c) { return c == ArgClass::F32 || c == ArgClass::F64; }

std::optional<Signature> parse_signature(std::string_view text) {
  Signature sig;
  size_t at = 0;
  const auto result = class_named(next_word(text, at));
  if (!result || result->first == ArgClass::FnPtr || next_word(text, at) != ":") return std::nullopt;
  sig.result = result->first;
  sig.result_bytes = result->second;
  bool threads = false;  // past the arguments, at the @INDEX=any marks
  for (std::string_view word = next_word(text, at); !word.empty(); word = next_word(text, at)) {
    if (word[0] == '@') {
      if (!mark_thread(word, sig)) return std::nullopt;
      threads = true;
      continue;
    }
    if (threads) return std::nullopt;
    if (std::optional<std::string> cb = callback_signature(word)) {
      sig.callbacks.push_back(Callback{static_cast<uint8_t>(sig.args.size()), CallbackThread::Caller, *cb});
      sig.args.push_back(ArgClass::FnPtr);
      sig.bytes.push_back(0);
      continue;
    }
    if (std::optional<RecordFunctions> rec = record_functions(word)) {
      rec->arg = static_cast<uint8_t>(sig.args.size());
      sig.records.push_back(std::move(*rec));
      sig.args.push_back(ArgClass::Ptr);
      sig.bytes.push_back(0);
      continue;
    }
    const auto c = class_named(word);
    if (!c || c->first == ArgClass::Void || c->first == ArgClass::FnPtr) return std::nullopt;
    sig.args.push_back(c->first);
    sig.bytes.push_back(c->second);
  }
  return sig;
}

}  // namespace phybin::forward
