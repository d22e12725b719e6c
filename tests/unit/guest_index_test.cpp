// The dispatcher's guest address index: the same answers as a std map
// through random insertions, replacements and erasures (erasure by moving
// entries back is where open addressing goes wrong), and growth.
#include "runtime/guest_index.h"

#include <gtest/gtest.h>

#include <random>
#include <unordered_map>

namespace phybin::runtime {
namespace {

TEST(GuestIndex, AgreesWithAMapThroughRandomChanges) {
  GuestIndex index;
  std::unordered_map<uint64_t, uint32_t> model;
  std::mt19937_64 rng(12345);
  // Keys from a small range: many collide, many runs wrap around.
  auto key = [&] { return 0x400000 + (rng() % 3000) * 16; };
  for (int step = 0; step < 200000; ++step) {
    const uint64_t k = key();
    const auto v = static_cast<uint32_t>(rng() % 1000);
    switch (rng() % 4) {
      case 0:
      case 1:
        index.set(k, v);
        model[k] = v;
        break;
      case 2: {  // erase only when it maps to the value asked
        auto it = model.find(k);
        const uint32_t asked = it != model.end() && rng() % 2 ? it->second : v;
        index.erase(k, asked);
        if (it != model.end() && it->second == asked) model.erase(it);
        break;
      }
      default: {
        auto it = model.find(k);
        ASSERT_EQ(index.find(k), it == model.end() ? GuestIndex::kNone : it->second) << "step " << step;
      }
    }
    ASSERT_EQ(index.size(), model.size());
  }
  for (const auto& [k, v] : model) ASSERT_EQ(index.find(k), v);
  index.clear();
  EXPECT_EQ(index.size(), 0u);
  for (const auto& [k, v] : model) EXPECT_EQ(index.find(k), GuestIndex::kNone);
}

TEST(GuestIndex, GrowsAndKeepsEverything) {
  GuestIndex index;
  EXPECT_EQ(index.find(0x1000), GuestIndex::kNone);
  for (uint32_t i = 0; i < 50000; ++i) index.set(0x7f0000000000 + uint64_t{i} * 4, i);
  EXPECT_EQ(index.size(), 50000u);
  for (uint32_t i = 0; i < 50000; ++i) ASSERT_EQ(index.find(0x7f0000000000 + uint64_t{i} * 4), i);
  index.reserve(200000);
  for (uint32_t i = 0; i < 50000; i += 7) ASSERT_EQ(index.find(0x7f0000000000 + uint64_t{i} * 4), i);
}

}  // namespace
}  // namespace phybin::runtime
