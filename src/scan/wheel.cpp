#include "scan/wheel.h"

#include <zlib.h>

#include <cstring>
#include <memory>

#include "common/error.h"

namespace phybin::scan {

namespace {

constexpr uint32_t kLocalHeader = 0x04034b50, kCentralHeader = 0x02014b50, kEndOfDirectory = 0x06054b50;
// Members are read whole: a wheel's library larger than this is refused.
constexpr uint64_t kMaxMember = uint64_t{1} << 31;

[[noreturn]] void damaged(const std::string& path, const std::string& what) {
  throw Error(ErrorCode::PHYBIN_ERR_BAD_ELF, path + ": a damaged zip file (" + what + ")");
}

uint32_t u32(const uint8_t* p) { return p[0] | p[1] << 8 | p[2] << 16 | static_cast<uint32_t>(p[3]) << 24; }
uint16_t u16(const uint8_t* p) { return static_cast<uint16_t>(p[0] | p[1] << 8); }

struct Entry {
  std::string name;
  uint16_t method = 0;
  uint64_t compressed = 0, size = 0, header = 0;
};

// The end-of-central-directory record: the last one in the file's tail.
const uint8_t* end_of_directory(const std::string& path, const Bytes& zip) {
  if (zip.size < 22) damaged(path, "too short");
  const size_t lowest = zip.size > 22 + 65535 ? zip.size - 22 - 65535 : 0;
  for (size_t at = zip.size - 22;; --at) {
    if (u32(zip.data + at) == kEndOfDirectory) return zip.data + at;
    if (at == lowest) damaged(path, "no central directory");
  }
}

std::vector<Entry> directory(const std::string& path, const Bytes& zip) {
  const uint8_t* end = end_of_directory(path, zip);
  const uint16_t count = u16(end + 10);
  const uint64_t size = u32(end + 12), offset = u32(end + 16);
  if (offset == 0xffffffff || count == 0xffff) damaged(path, "zip64 archives are not read");
  if (offset > zip.size || size > zip.size - offset) damaged(path, "the central directory lies outside the file");
  std::vector<Entry> entries;
  uint64_t at = offset;
  for (unsigned i = 0; i < count; ++i) {
    if (at + 46 > offset + size || u32(zip.data + at) != kCentralHeader) damaged(path, "a bad directory entry");
    const uint8_t* h = zip.data + at;
    Entry e;
    e.method = u16(h + 10);
    e.compressed = u32(h + 20);
    e.size = u32(h + 24);
    e.header = u32(h + 42);
    const uint64_t name_len = u16(h + 28), rest = uint64_t{u16(h + 30)} + u16(h + 32);
    if (at + 46 + name_len + rest > offset + size) damaged(path, "a bad directory entry");
    e.name.assign(reinterpret_cast<const char*>(h + 46), name_len);
    entries.push_back(std::move(e));
    at += 46 + name_len + rest;
  }
  return entries;
}

// The member's data in the file.
const uint8_t* member_data(const std::string& path, const Bytes& zip, const Entry& e) {
  if (e.header > zip.size || zip.size - e.header < 30 || u32(zip.data + e.header) != kLocalHeader)
    damaged(path, e.name + ": a bad local header");
  const uint64_t start = e.header + 30 + u16(zip.data + e.header + 26) + u16(zip.data + e.header + 28);
  if (start > zip.size || e.compressed > zip.size - start) damaged(path, e.name + ": its data lies outside the file");
  return zip.data + start;
}

Bytes inflate_member(const std::string& path, const Entry& e, const uint8_t* data) {
  auto buffer = std::shared_ptr<uint8_t[]>(new uint8_t[e.size ? e.size : 1]);
  z_stream z{};
  if (inflateInit2(&z, -MAX_WBITS) != Z_OK) damaged(path, "zlib cannot start");
  z.next_in = const_cast<Bytef*>(data);
  z.avail_in = static_cast<uInt>(e.compressed);
  z.next_out = buffer.get();
  z.avail_out = static_cast<uInt>(e.size);
  const int status = inflate(&z, Z_FINISH);
  const uint64_t produced = z.total_out;
  inflateEnd(&z);
  if (status != Z_STREAM_END || produced != e.size) damaged(path, e.name + ": its deflated data is corrupt");
  return Bytes{buffer, buffer.get(), static_cast<size_t>(e.size)};
}

}  // namespace

bool is_zip(const Bytes& bytes) { return bytes.size >= 4 && u32(bytes.data) == kLocalHeader; }

std::vector<WheelMember> elf_members(const std::string& path, const Bytes& zip) {
  std::vector<WheelMember> out;
  for (const Entry& e : directory(path, zip)) {
    if (e.name.empty() || e.name.back() == '/' || e.size < 64) continue;
    if (e.size > kMaxMember) damaged(path, e.name + ": larger than 2 GiB");
    const uint8_t* data = member_data(path, zip, e);
    Bytes bytes;
    if (e.method == 0) {
      if (e.compressed != e.size) damaged(path, e.name + ": stored with two sizes");
      bytes = Bytes{zip.owner, data, static_cast<size_t>(e.size)};
    } else if (e.method == 8) {
      // Only members that start like ELF are inflated whole.
      uint8_t head[4] = {};
      z_stream z{};
      if (inflateInit2(&z, -MAX_WBITS) != Z_OK) damaged(path, "zlib cannot start");
      z.next_in = const_cast<Bytef*>(data);
      z.avail_in = static_cast<uInt>(e.compressed);
      z.next_out = head;
      z.avail_out = sizeof head;
      inflate(&z, Z_SYNC_FLUSH);
      inflateEnd(&z);
      if (std::memcmp(head, "\177ELF", 4) != 0) continue;
      bytes = inflate_member(path, e, data);
    } else {
      continue;  // another compression: wheels use only these two
    }
    if (bytes.size >= 4 && std::memcmp(bytes.data, "\177ELF", 4) == 0) out.push_back(WheelMember{e.name, bytes});
  }
  return out;
}

}  // namespace phybin::scan
