// famcost (bench/tools): its figures against costs worked out by hand from
// the backend's lowering, so the tool cannot silently report garbage.
#if PHYBIN_HAVE_FAMCOST
#include <gtest/gtest.h>

#include <set>
#include <sstream>
#include <string>

#include "famcost.h"
#include "famcost_record.h"

namespace phybin::famcost {
namespace {

Cost cost_of(const std::string& text) {
  const Sample* s = find_sample(text);
  EXPECT_NE(s, nullptr) << text << " is not a sample";
  if (!s) return {};
  Cost c = Meter().measure(*s);
  EXPECT_TRUE(c.translated) << text << ": " << c.error;
  return c;
}

TEST(Famcost, TableIsReadWithItsBytesAndFamilies) {
  const Sample* add = find_sample("add rax, rbx");
  ASSERT_NE(add, nullptr);
  EXPECT_EQ(add->family, "alu");
  EXPECT_EQ(add->bytes, (std::vector<uint8_t>{0x48, 0x01, 0xD8}));
  const Sample* paddd = find_sample("paddd xmm0, xmm1");
  ASSERT_NE(paddd, nullptr);
  EXPECT_EQ(paddd->bytes, (std::vector<uint8_t>{0x66, 0x0F, 0xFE, 0xC1}));
  std::set<std::string> families;
  for (const Sample& s : samples()) {
    EXPECT_FALSE(s.bytes.empty()) << s.text;
    families.insert(s.family);
  }
  for (const char* f : {"alu", "shift", "sse_int", "sse_shuffle", "x87", "cmpxchg"}) EXPECT_EQ(families.count(f), 1u) << f;
}

// Guest RAX/RBX live in x4/x5 and XMM0/XMM1 in v16/v17 for the whole block,
// so with the flags dead an instruction that maps onto one AArch64
// instruction costs exactly that one.
TEST(Famcost, OneInstructionTranslations) {
  EXPECT_EQ(cost_of("add rax, rbx").flags_dead, 1);  // add x4, x4, x5
  EXPECT_EQ(cost_of("mov rax, rbx").flags_dead, 1);  // mov x4, x5
  EXPECT_EQ(cost_of("shl rax, 3").flags_dead, 1);    // lsl x4, x4, #3
  EXPECT_EQ(cost_of("paddd xmm0, xmm1").flags_dead, 1);  // add v16.4s, v16.4s, v17.4s
  EXPECT_EQ(cost_of("pand xmm0, xmm1").flags_dead, 1);   // and v16.16b, v16.16b, v17.16b
  EXPECT_FALSE(cost_of("paddd xmm0, xmm1").helper);
  // A load whose only user sign-extends it is one LDRSW/LDRSB.
  EXPECT_EQ(cost_of("movsxd rax, dword ptr [rbx]").flags_dead, 1);  // ldrsw x4, [x5]
  EXPECT_EQ(cost_of("movsx eax, byte ptr [rbx+1]").flags_dead, 1);  // ldrsb w4, [x5, #1]
}

// pshufb: TBL zeroes indexes >= 16 where x86 looks at bit 7 and bits 0-3,
// so the index is masked first: movi #0x8f, and, tbl (compile_vector_ext.cpp).
TEST(Famcost, PshufbIsMaskAndTable) {
  const Cost c = cost_of("pshufb xmm0, xmm1");
  EXPECT_EQ(c.flags_dead, 3);
  EXPECT_FALSE(c.helper);
}

// An aligned store checks the address (tst, b.ne) and stores; the fault
// behind the b.ne is out of line: on the fast path, not counted, but
// emitted.
TEST(Famcost, SlowPathsAreOffTheFastPath) {
  const Cost c = cost_of("movdqa [rax], xmm0");
  EXPECT_EQ(c.flags_dead, 3);  // tst x4, #0xf; b.ne fault; str q16, [x4]
  EXPECT_GT(c.emitted, c.flags_dead + 10);
  EXPECT_EQ(cost_of("movdqu xmm0, [rax]").flags_dead, 1);  // ldr q16, [x4]
}

TEST(Famcost, FastPathFollowsBranchesAndStopsAtExits) {
  const uint32_t b_plus2 = 0x14000002, b_minus1 = 0x17FFFFFF, nop = 0xD503201F, ret = 0xD65F03C0;
  const uint32_t b_cond_eq = 0x54000040, blr_x30 = 0xD63F03C0, br_x16 = 0xD61F0200;
  EXPECT_EQ(fast_path_words({nop, b_plus2, nop, nop, ret, nop}), 4);  // skips one word
  EXPECT_EQ(fast_path_words({nop, b_cond_eq, nop, blr_x30, nop, br_x16, nop}), 6);
  EXPECT_EQ(fast_path_words({nop, nop, b_minus1}), 3);   // a loop: counted once
  EXPECT_EQ(fast_path_words({nop, 0x17FFFFF0}), 2);       // a branch out of the block
}

// cmovcc after cmp compares and selects in one go (cmp x4, x7; csel x4,
// x5, x4, lt), and a setcc writes its byte in place (cmp; cset; bfxil into
// the guest register).  tests/guest/programs/cond_select.c checks the
// results against the CPU.
TEST(Famcost, CompareAndSelectOrSet) {
  EXPECT_EQ(cost_of("cmp rax, rbx; cmovl rax, rcx").flags_dead, 2);
  EXPECT_EQ(cost_of("cmp eax, ebx; setl al").flags_dead, 3);
  EXPECT_EQ(cost_of("add al, bl").flags_dead, 2);  // add w, w, w; bfxil x4, ...
}

// x87 arithmetic other than the control word goes through helper_x87.
TEST(Famcost, HelperCallsAreMarked) {
  EXPECT_TRUE(cost_of("fsin").helper);
  EXPECT_TRUE(cost_of("faddp st(1), st").helper);
  EXPECT_FALSE(cost_of("add rax, rbx").helper);
}

// A lone jz tests ZF in the guest RFLAGS (ubfx, cbnz: 2 before the exits);
// after `test eax, eax` it is cbz w4 (1), after `sub ecx, 1` the sub and
// cbz w6 (2).  With the flags dead, test leaves nothing.
TEST(Famcost, LiveFlagsAreCounted) {
  const Cost test = cost_of("test eax, eax");
  EXPECT_EQ(test.flags_dead, 0);
  EXPECT_EQ(test.zf_live, -1);
  EXPECT_EQ(cost_of("sub ecx, 1").zf_live, 0);  // sub w6, w6, #1; cbz w6
  const Cost mov = cost_of("mov rax, rbx");
  EXPECT_EQ(mov.zf_live, mov.flags_dead);
}

// Rows are found by their text (find_sample, --dump, the record): two with
// one text would hide the second.
TEST(Famcost, SampleTextsAreUnique) {
  std::set<std::string> texts;
  for (const Sample& s : samples()) EXPECT_TRUE(texts.insert(s.text).second) << s.text;
  EXPECT_GE(samples().size(), kMinRecordForms);
}

// A BRANCH row is its instruction's bytes alone; its jcc only gives the
// condition the flags are read with.
TEST(Famcost, BranchRowsNameTheirCondition) {
  const Sample* jl = find_sample("cmp rax, rbx; jl");
  ASSERT_NE(jl, nullptr);
  EXPECT_EQ(jl->family, "branch");
  EXPECT_EQ(jl->bytes, find_sample("cmp rax, rbx")->bytes);
  EXPECT_EQ(jl->live_cond, 0xC);
  EXPECT_EQ(find_sample("cmp rax, rbx")->live_cond, kCondZ);
  EXPECT_EQ(find_sample("ucomisd xmm0, xmm1; jp")->live_cond, 0xA);
  // The compare goes into the branch (cmp, b.lt), which costs less than a
  // lone jl reading SF and OF from the guest RFLAGS: so the measured jcc is
  // jl and not jz, whose lone form is cheaper (ubfx, cbnz).
  EXPECT_LT(cost_of("cmp rax, rbx; jl").zf_live, 0);
  EXPECT_LT(cost_of("cmp rax, rbx; jl").zf_live, cost_of("cmp rax, rbx").zf_live);
}

Entry entry(const std::string& text, long fast, long live, long emitted) {
  return {"alu", text, true, fast, live, emitted};
}

// `count` forms f0, f1, ... costing 1, 1, 2 each.
std::vector<Entry> forms(size_t count) {
  std::vector<Entry> out;
  for (size_t i = 0; i < count; ++i) out.push_back(entry("f" + std::to_string(i), 1, 1, 2));
  return out;
}

TEST(FamcostRecord, FormatThenParseGivesTheEntries) {
  std::vector<Entry> entries = forms(3);
  entries[1].zf_live = -1;
  entries.push_back({"x87_transcendental", "cmp rax, rbx; jl", true, 2, 0, 3});
  entries.push_back({"sse_fp", "unknown xmm0, [rax]", false, 0, 0, 0});
  std::istringstream in(format_record(entries));
  const std::vector<Entry> back = parse_record(in);
  ASSERT_EQ(back.size(), entries.size());
  for (size_t i = 0; i < back.size(); ++i) {
    EXPECT_EQ(back[i].family, entries[i].family);
    EXPECT_EQ(back[i].text, entries[i].text);
    EXPECT_EQ(back[i].translated, entries[i].translated);
    EXPECT_EQ(back[i].flags_dead, entries[i].flags_dead);
    EXPECT_EQ(back[i].zf_live, entries[i].zf_live);
    EXPECT_EQ(back[i].emitted, entries[i].emitted);
  }
  std::istringstream bad("alu | add rax, rbx | 1 | x | 1\n");
  EXPECT_THROW(parse_record(bad), std::runtime_error);
  std::istringstream short_row("alu | add rax, rbx | 1 | 1\n");
  EXPECT_THROW(parse_record(short_row), std::runtime_error);
}

TEST(FamcostRecord, SameCountsPass) {
  const Verdict v = check_record(forms(kMinRecordForms), forms(kMinRecordForms));
  EXPECT_TRUE(v.failures.empty());
  EXPECT_TRUE(v.notes.empty());
}

// Any of the three counts growing fails, naming old and new; a form that
// only got cheaper is a note.
TEST(FamcostRecord, GrowthFailsAndSavingsAreNotes) {
  std::vector<Entry> now = forms(kMinRecordForms);
  now[3].flags_dead = 2;
  now[4].zf_live = 2;
  now[5].emitted = 3;
  now[6].emitted = 1;
  now[7].flags_dead = 0;  // cheaper fast path but longer code: fails
  now[7].emitted = 5;
  const Verdict v = check_record(forms(kMinRecordForms), now);
  ASSERT_EQ(v.failures.size(), 4u);
  EXPECT_EQ(v.failures[0], "`f3` (alu) grew: fast 1 -> 2");
  EXPECT_EQ(v.failures[1], "`f4` (alu) grew: flags live 1 -> 2");
  EXPECT_EQ(v.failures[2], "`f5` (alu) grew: emitted 2 -> 3");
  EXPECT_EQ(v.failures[3], "`f7` (alu) grew: fast 1 -> 0, emitted 2 -> 5");
  ASSERT_EQ(v.notes.size(), 1u);
  EXPECT_EQ(v.notes[0], "`f6` (alu) got cheaper: emitted 2 -> 1");
}

TEST(FamcostRecord, MissingFormsFailOnEitherSide) {
  std::vector<Entry> recorded = forms(kMinRecordForms + 1);
  std::vector<Entry> now = forms(kMinRecordForms);
  now.push_back(entry("new", 1, 1, 1));
  const Verdict v = check_record(recorded, now);
  ASSERT_EQ(v.failures.size(), 2u);
  EXPECT_NE(v.failures[0].find("`f200` (alu) is recorded but no longer a sample"), std::string::npos);
  EXPECT_NE(v.failures[1].find("`new` (alu) is a sample but not recorded"), std::string::npos);
}

TEST(FamcostRecord, TranslationLostFailsAndGainedIsANote) {
  std::vector<Entry> recorded = forms(kMinRecordForms);
  std::vector<Entry> now = recorded;
  now[0].translated = false;
  recorded[1].translated = false;
  const Verdict v = check_record(recorded, now);
  ASSERT_EQ(v.failures.size(), 1u);
  EXPECT_NE(v.failures[0].find("`f0` (alu): no longer translated"), std::string::npos);
  ASSERT_EQ(v.notes.size(), 1u);
  EXPECT_NE(v.notes[0].find("`f1` (alu): translated now"), std::string::npos);
}

TEST(FamcostRecord, ShortOrDuplicatedRecordsFail) {
  const Verdict short_record = check_record(forms(kMinRecordForms - 1), forms(kMinRecordForms - 1));
  ASSERT_EQ(short_record.failures.size(), 1u);
  EXPECT_EQ(short_record.failures[0], "the record holds 199 forms, fewer than 200");
  std::vector<Entry> twice = forms(kMinRecordForms);
  twice.push_back(twice[0]);
  const Verdict dup = check_record(twice, forms(kMinRecordForms));
  ASSERT_EQ(dup.failures.size(), 1u);
  EXPECT_EQ(dup.failures[0], "`f0` is in the record twice");
}

}  // namespace
}  // namespace phybin::famcost
#endif
