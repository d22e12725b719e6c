#include "forward/signature.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <string>

namespace phybin::forward {

namespace {

constexpr std::array<std::pair<std::string_view, ArgClass>, 13> kNames = {{
    {"void", ArgClass::Void}, {"i8", ArgClass::I8},   {"u8", ArgClass::U8},   {"i16", ArgClass::I16},
    {"u16", ArgClass::U16},   {"i32", ArgClass::I32}, {"u32", ArgClass::U32}, {"i64", ArgClass::I64},
    {"u64", ArgClass::U64},   {"ptr", ArgClass::Ptr}, {"fn", ArgClass::FnPtr}, {"f32", ArgClass::F32},
    {"f64", ArgClass::F64},
}};

// A number of at most `digits` decimal digits.
std::optional<uint32_t> number(std::string_view text, size_t digits) {
  if (text.empty() || text.size() > digits || text.find_first_not_of("0123456789") != std::string_view::npos)
    return std::nullopt;
  return static_cast<uint32_t>(std::stoul(std::string(text)));
}

// A class and, for a record, its size: "rec12", "mem24".
std::optional<std::pair<ArgClass, uint16_t>> class_named(std::string_view word) {
  for (const auto& [name, c] : kNames)
    if (name == word) return std::pair{c, uint16_t{0}};
  for (const auto& [prefix, c] : {std::pair{std::string_view("rec"), ArgClass::Rec}, {"mem", ArgClass::Mem}}) {
    if (word.size() <= 3 || word.size() > 7 || word.substr(0, 3) != prefix) continue;
    const std::optional<uint32_t> size = number(word.substr(3), 4);
    if (!size) return std::nullopt;
    const auto bytes = static_cast<uint16_t>(*size);
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

// "16:fn<void,ptr>" or "16:fn<void,ptr>?0=3" (when the tag at 0 is 3).
std::optional<RecordFunctions::Field> record_field(std::string_view text, uint16_t bytes) {
  RecordFunctions::Field field;
  const size_t colon = text.find(':'), question = text.find('?');
  const std::optional<uint32_t> at = number(text.substr(0, colon), 3);
  if (colon == std::string_view::npos || !at || *at % 8 != 0 || *at + 8u > bytes) return std::nullopt;
  std::optional<std::string> fn = callback_signature(text.substr(colon + 1, question - std::min(question, colon + 1)));
  if (!fn) return std::nullopt;
  field.offset = static_cast<uint16_t>(*at);
  field.signature = std::move(*fn);
  if (question == std::string_view::npos) return field;
  const std::string_view tag = text.substr(question + 1);
  const size_t eq = tag.find('=');
  const std::optional<uint32_t> tag_at = number(tag.substr(0, eq), 3);
  const std::optional<uint32_t> value = eq == std::string_view::npos ? std::nullopt : number(tag.substr(eq + 1), 10);
  if (!tag_at || !value || *tag_at % 4 != 0 || *tag_at + 4u > bytes) return std::nullopt;
  field.tag_offset = static_cast<int16_t>(*tag_at);
  field.tag_value = *value;
  return field;
}

// "in16{0:fn<void,ptr>}" or "io16{...}": a pointer to a record holding
// functions at those offsets; nullopt otherwise.
std::optional<RecordFunctions> record_functions(std::string_view word) {
  RecordFunctions rec;
  rec.in_out = word.substr(0, 2) == "io";
  if (!rec.in_out && word.substr(0, 2) != "in") return std::nullopt;
  word.remove_prefix(2);
  const size_t open = word.find('{');
  if (open == 0 || open == std::string_view::npos || word.back() != '}') return std::nullopt;
  const std::optional<uint32_t> size = number(word.substr(0, open), 3);
  if (!size) return std::nullopt;
  rec.bytes = static_cast<uint16_t>(*size);
  std::string_view fields = word.substr(open + 1, word.size() - open - 2);
  while (!fields.empty()) {
    const size_t end = std::min(fields.find('|'), fields.size());
    std::optional<RecordFunctions::Field> field = record_field(fields.substr(0, end), rec.bytes);
    if (!field) return std::nullopt;
    rec.fields.push_back(std::move(*field));
    fields.remove_prefix(std::min(end + 1, fields.size()));
  }
  if (rec.fields.empty() || rec.bytes > kMaxRecordFunctionsBytes) return std::nullopt;
  return rec;
}

bool mark_thread(std::string_view word, Signature& sig) {
  const size_t eq = word.find('=');
  if (eq == std::string_view::npos) return false;
  const std::optional<uint32_t> n = number(word.substr(1, eq - 1), 2);
  if (!n || word.substr(eq + 1) != "any") return false;
  for (Callback& cb : sig.callbacks)
    if (cb.arg == *n) {
      cb.thread = CallbackThread::Any;
      return true;
    }
  for (RecordFunctions& rec : sig.records)
    if (rec.arg == *n) {
      rec.thread = CallbackThread::Any;
      return true;
    }
  return false;
}

}  // namespace

bool is_float(ArgClass c) { return c == ArgClass::F32 || c == ArgClass::F64; }

bool RecordFunctions::Field::holds_function(const uint8_t* record) const {
  if (tag_offset < 0) return true;
  uint32_t tag;
  std::memcpy(&tag, record + tag_offset, sizeof tag);
  return tag == tag_value;
}

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
