#include "scan/unwind.h"

#include <cstring>
#include <string>
#include <unordered_map>

namespace phybin::scan {

namespace {

// DWARF pointer encodings (DW_EH_PE_*): the low nibble is the format, the
// next the base it is relative to.
constexpr uint8_t kOmit = 0xff, kPcRel = 0x10, kDataRel = 0x30;

// A cursor over [data, end) that turns false on reading past the end.
class Cursor {
 public:
  Cursor(const uint8_t* data, size_t size, uint64_t address) : begin_(data), p_(data), end_(data + size), address_(address) {}
  bool ok() const { return ok_; }
  size_t offset() const { return static_cast<size_t>(p_ - begin_); }
  uint64_t address() const { return address_ + offset(); }
  void seek(size_t offset) {
    if (offset > static_cast<size_t>(end_ - begin_)) ok_ = false;
    else p_ = begin_ + offset;
  }
  template <typename T>
  T fixed() {
    T v{};
    if (static_cast<size_t>(end_ - p_) < sizeof(T)) {
      ok_ = false;
      return v;
    }
    std::memcpy(&v, p_, sizeof(T));
    p_ += sizeof(T);
    return v;
  }
  uint64_t uleb() {
    uint64_t v = 0;
    for (unsigned shift = 0; shift < 64; shift += 7) {
      const auto byte = fixed<uint8_t>();
      v |= uint64_t{byte & 0x7fu} << shift;
      if (!(byte & 0x80) || !ok_) return v;
    }
    ok_ = false;
    return v;
  }
  int64_t sleb() {
    uint64_t v = 0;
    unsigned shift = 0;
    uint8_t byte = 0x80;
    while ((byte & 0x80) && shift < 64 && ok_) {
      byte = fixed<uint8_t>();
      v |= uint64_t{byte & 0x7fu} << shift;
      shift += 7;
    }
    if (shift < 64 && (byte & 0x40)) v |= ~uint64_t{0} << shift;
    return static_cast<int64_t>(v);
  }
  std::string cstring() {
    std::string s;
    while (ok_) {
      const auto c = fixed<char>();
      if (!c) break;
      s += c;
    }
    return s;
  }
  // A value in `encoding`; `data_base` for DW_EH_PE_datarel.
  uint64_t encoded(uint8_t encoding, uint64_t data_base = 0) {
    const uint64_t at = address();
    uint64_t v = 0;
    switch (encoding & 0x0f) {
      case 0x00: v = fixed<uint64_t>(); break;
      case 0x01: v = uleb(); break;
      case 0x02: v = fixed<uint16_t>(); break;
      case 0x03: v = fixed<uint32_t>(); break;
      case 0x04: v = fixed<uint64_t>(); break;
      case 0x09: v = static_cast<uint64_t>(sleb()); break;
      case 0x0a: v = static_cast<uint64_t>(int64_t{fixed<int16_t>()}); break;
      case 0x0b: v = static_cast<uint64_t>(int64_t{fixed<int32_t>()}); break;
      case 0x0c: v = fixed<uint64_t>(); break;
      default: ok_ = false; return 0;
    }
    if ((encoding & 0x70) == kPcRel) v += at;
    else if ((encoding & 0x70) == kDataRel) v += data_base;
    return v;
  }

 private:
  const uint8_t* begin_;
  const uint8_t* p_;
  const uint8_t* end_;
  uint64_t address_;
  bool ok_ = true;
};

// A CIE's encoding of its FDEs' addresses ('R' of the augmentation).
bool cie_address_encoding(Cursor c, uint8_t& encoding) {
  const auto version = c.fixed<uint8_t>();
  const std::string augmentation = c.cstring();
  if (version >= 4) c.fixed<uint16_t>();  // address and segment selector sizes
  c.uleb();                              // code alignment
  c.sleb();                              // data alignment
  if (version == 1) c.fixed<uint8_t>();
  else c.uleb();  // return address register
  encoding = 0;   // absolute, 8 bytes
  if (augmentation.empty() || augmentation[0] != 'z') return c.ok();
  c.uleb();
  for (size_t i = 1; i < augmentation.size() && c.ok(); ++i) {
    switch (augmentation[i]) {
      case 'R': encoding = c.fixed<uint8_t>(); break;
      case 'L': c.fixed<uint8_t>(); break;
      case 'P': {
        const auto personality = c.fixed<uint8_t>();
        c.encoded(personality & 0x7f);
        break;
      }
      case 'S': case 'B': break;
      default: return false;  // an augmentation we cannot skip
    }
  }
  return c.ok();
}

}  // namespace

std::vector<Extent> unwind_extents(const uint8_t* data, size_t size, uint64_t address) {
  std::vector<Extent> out;
  std::unordered_map<size_t, uint8_t> encodings;  // by CIE offset
  Cursor c(data, size, address);
  while (c.ok()) {
    const size_t start = c.offset();
    const auto length = c.fixed<uint32_t>();
    if (!c.ok() || length == 0 || length == 0xffffffff) break;  // end, or a 64-bit record (not in .eh_frame)
    const size_t id_at = c.offset(), next = id_at + length;
    const auto id = c.fixed<uint32_t>();
    if (id == 0) {
      uint8_t encoding = 0;
      if (cie_address_encoding(c, encoding)) encodings[start] = encoding;
    } else if (id <= id_at) {
      const auto cie = encodings.find(id_at - id);
      if (cie != encodings.end() && cie->second != kOmit) {
        const uint64_t begin = c.encoded(cie->second);
        const uint64_t range = c.encoded(cie->second & 0x0f);
        if (c.ok() && begin && range) out.push_back(Extent{begin, begin + range});
      }
    }
    c.seek(next);
  }
  return out;
}

uint64_t eh_frame_address_from_header(const uint8_t* data, size_t size, uint64_t address) {
  Cursor c(data, size, address);
  const auto version = c.fixed<uint8_t>();
  const auto encoding = c.fixed<uint8_t>();
  c.fixed<uint16_t>();  // the encodings of the count and the table
  if (!c.ok() || version != 1 || encoding == kOmit) return 0;
  const uint64_t v = c.encoded(encoding, address);
  return c.ok() ? v : 0;
}

}  // namespace phybin::scan
