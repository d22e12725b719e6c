// Forwarded calls: a description's signature line parses to the classes
// fwdgen wrote, and a call's SysV arguments (registers, then the stack; the
// fourth integer in R10, where the guest side's entry moved RCX) land where
// AAPCS64 wants them, narrow integers widened, the result back in RAX or
// XMM0.  Worked out by hand from the two ABIs.
#include <gtest/gtest.h>

#include <cstring>

#include "forward/marshal.h"
#include "forward/signature.h"

namespace phybin::forward {
namespace {

TEST(ForwardSignature, ParsesWhatFwdgenWrites) {
  auto s = parse_signature("i32 : ptr u32 ptr ptr fn<void,ptr,ptr> ptr");
  ASSERT_TRUE(s);
  EXPECT_EQ(s->result, ArgClass::I32);
  ASSERT_EQ(s->args.size(), 6u);
  EXPECT_EQ(s->args[1], ArgClass::U32);
  EXPECT_EQ(s->args[4], ArgClass::FnPtr);
  ASSERT_EQ(s->callbacks.size(), 1u);  // unmarked: on the caller's thread
  EXPECT_EQ(s->callbacks[0].arg, 4);
  EXPECT_EQ(s->callbacks[0].thread, CallbackThread::Caller);
  EXPECT_EQ(s->callbacks[0].signature, "void : ptr ptr");
  auto any = parse_signature("i32 : ptr i32 fn<void,ptr,i32,ptr> ptr @2=any");
  ASSERT_TRUE(any);
  ASSERT_EQ(any->callbacks.size(), 1u);
  EXPECT_EQ(any->callbacks[0].thread, CallbackThread::Any);
  EXPECT_EQ(any->callbacks[0].signature, "void : ptr i32 ptr");
  auto none = parse_signature("void :");
  ASSERT_TRUE(none);
  EXPECT_TRUE(none->args.empty());
  auto bare = parse_signature("i32 : fn<void>");
  ASSERT_TRUE(bare);
  EXPECT_EQ(bare->callbacks[0].signature, "void :");
}

TEST(ForwardSignature, RefusesWhatItCannotPass) {
  EXPECT_FALSE(parse_signature(""));
  EXPECT_FALSE(parse_signature("i32 ptr"));              // no colon
  EXPECT_FALSE(parse_signature("i32 : ptr struct"));      // no such class
  EXPECT_FALSE(parse_signature("i32 : void"));            // void argument
  EXPECT_FALSE(parse_signature("i32 : fn"));              // a callback without its signature
  EXPECT_FALSE(parse_signature("i32 : fn<void,fn<void>>"));  // a callback's callback
  EXPECT_FALSE(parse_signature("i32 : ptr @0=any"));      // no callback there
  EXPECT_FALSE(parse_signature("i32 : fn<void> @1=any"));  // no such argument
  EXPECT_FALSE(parse_signature("i32 : fn<void> @0=main"));
  EXPECT_FALSE(parse_signature("i32 : fn<void> @0=any ptr"));  // arguments after the marks
}

TEST(ForwardSignature, RecordsHoldingFunctions) {
  auto s = parse_signature("u32 : ptr ptr ptr u64 in16{0:fn<void,ptr>} @4=any");
  ASSERT_TRUE(s);
  ASSERT_EQ(s->args.size(), 5u);
  EXPECT_EQ(s->args[4], ArgClass::Ptr);  // it travels as a pointer
  EXPECT_TRUE(s->callbacks.empty());
  ASSERT_EQ(s->records.size(), 1u);
  const RecordFunctions& in = s->records[0];
  EXPECT_EQ(in.arg, 4);
  EXPECT_FALSE(in.in_out);
  EXPECT_EQ(in.bytes, 16);
  EXPECT_EQ(in.thread, CallbackThread::Any);
  ASSERT_EQ(in.fields.size(), 1u);
  EXPECT_EQ(in.fields[0].offset, 0);
  EXPECT_EQ(in.fields[0].signature, "void : ptr");
  EXPECT_EQ(in.fields[0].tag_offset, -1);
  auto io = parse_signature("u32 : ptr io32{8:fn<i32,ptr,u32>|24:fn<void>?4=3}");
  ASSERT_TRUE(io);
  ASSERT_EQ(io->records.size(), 1u);
  const RecordFunctions& rec = io->records[0];
  EXPECT_TRUE(rec.in_out);
  EXPECT_EQ(rec.thread, CallbackThread::Caller);
  ASSERT_EQ(rec.fields.size(), 2u);
  EXPECT_EQ(rec.fields[0].signature, "i32 : ptr u32");
  EXPECT_EQ(rec.fields[1].offset, 24);
  EXPECT_EQ(rec.fields[1].tag_offset, 4);
  EXPECT_EQ(rec.fields[1].tag_value, 3u);
  uint8_t record[32] = {};
  record[4] = 3;
  EXPECT_TRUE(rec.fields[0].holds_function(record));
  EXPECT_TRUE(rec.fields[1].holds_function(record));  // the tag says so
  record[4] = 2;
  EXPECT_FALSE(rec.fields[1].holds_function(record));
  EXPECT_FALSE(parse_signature("u32 : io32{24:fn<void>?30=3}"));  // tag past the end
  EXPECT_FALSE(parse_signature("u32 : io32{24:fn<void>?4}"));     // tag without a value
  EXPECT_FALSE(parse_signature("u32 : io32{24:fn<void>?4=x}"));
  EXPECT_FALSE(parse_signature("u32 : in16{}"));               // no function in it
  EXPECT_FALSE(parse_signature("u32 : in16{12:fn<void>}"));    // past its end
  EXPECT_FALSE(parse_signature("u32 : in16{4:fn<void>}"));     // not a pointer's place
  EXPECT_FALSE(parse_signature("u32 : in512{0:fn<void>}"));    // larger than phybin copies
  EXPECT_FALSE(parse_signature("u32 : in16{0:ptr}"));          // not a function
  EXPECT_FALSE(parse_signature("u32 : out16{0:fn<void>}"));
  EXPECT_FALSE(parse_signature("u32 : fn<void,in16{0:fn<void>}>"));  // inside a callback
}

// A record of two words takes two moves: an argument after it is found by
// its own index, not by the move's (the function pointer goes to x2).
TEST(ForwardMarshal, ArgumentsAfterATwoWordRecordKeepTheirPlaces) {
  auto s = parse_signature("u32 : rec16 fn<void,ptr> ptr");
  ASSERT_TRUE(s);
  std::string why;
  auto plan = plan_call(*s, why);
  ASSERT_TRUE(plan) << why;
  EXPECT_EQ(plan->moves.size(), 4u);
  EXPECT_EQ(plan->native_place(0), offsetof(NativeCall, x));
  EXPECT_EQ(plan->native_place(1), offsetof(NativeCall, x) + 16);
  EXPECT_EQ(plan->native_place(2), offsetof(NativeCall, x) + 24);
}

std::vector<uint64_t> g_stack;  // the guest stack the test reads from
uint64_t g_stack_base = 0x7000;

bool read_stack(void* out, uint64_t address, size_t n) {
  const uint64_t word = (address - g_stack_base) / 8;
  if (address < g_stack_base || n % 8 != 0 || word + n / 8 > g_stack.size()) return false;
  std::memcpy(out, &g_stack[word], n);
  return true;
}

// The plan of `text` applied to `st`.
bool gather(const char* text, const GuestState& st, NativeCall& call, std::string& why) {
  std::optional<Signature> sig = parse_signature(text);
  EXPECT_TRUE(sig) << text;
  std::optional<CallPlan> plan = sig ? plan_call(*sig, why) : std::nullopt;
  return plan && gather_args(*plan, st, &read_stack, call, why);
}

GuestState state_with_args() {
  GuestState st{};
  const int order[6] = {RDI, RSI, RDX, R10, R8, R9};
  for (int i = 0; i < 6; ++i) st.gpr[order[i]] = 0x1000 + i;
  st.gpr[RCX] = 0xdead;  // the entry's syscall overwrote it: never read
  st.gpr[RSP] = g_stack_base;  // the return address; arguments above it
  for (unsigned i = 0; i < 8; ++i) {
    const double d = 0.5 + i;
    std::memcpy(&st.xmm[i], &d, 8);
  }
  return st;
}

TEST(ForwardMarshal, IntegersPastSixGoFromTheStackToX6X7ThenTheStack) {
  g_stack = {0xaaaa, 0x2006, 0x2007, 0x2008, 0x2009};
  const GuestState st = state_with_args();
  NativeCall a;
  std::string why;
  ASSERT_TRUE(gather("i32 : ptr ptr ptr ptr ptr ptr ptr ptr ptr ptr", st, a, why)) << why;  // 10, as clEnqueueNativeKernel
  for (int i = 0; i < 6; ++i) EXPECT_EQ(a.x[i], 0x1000u + i);
  EXPECT_EQ(a.x[6], 0x2006u);
  EXPECT_EQ(a.x[7], 0x2007u);
  ASSERT_EQ(a.stack_words, 2u);
  EXPECT_EQ(a.stack[0], 0x2008u);
  EXPECT_EQ(a.stack[1], 0x2009u);
}

TEST(ForwardMarshal, FloatsTravelApartFromIntegers) {
  g_stack = {0xaaaa};
  GuestState st = state_with_args();
  const uint64_t f = 0x123456783fc00000;  // 1.5f under garbage
  std::memcpy(&st.xmm[1], &f, 8);
  NativeCall a;
  std::string why;
  ASSERT_TRUE(gather("f64 : f64 ptr f32 u32", st, a, why)) << why;
  double d0;
  std::memcpy(&d0, &a.d[0], 8);
  EXPECT_EQ(d0, 0.5);
  EXPECT_EQ(a.x[0], 0x1000u);
  EXPECT_EQ(a.d[1], 0x3fc00000u);  // the float alone, in the low 32 bits of d1
  EXPECT_EQ(a.x[1], 0x1001u);
  EXPECT_EQ(a.stack_words, 0u);
}

TEST(ForwardMarshal, NarrowIntegersAreWidenedByTheirSign) {
  g_stack = {0xaaaa};
  GuestState st = state_with_args();
  st.gpr[RDI] = 0x12345680;          // i8 0x80
  st.gpr[RSI] = 0xffffffff0000ffff;  // u16 0xffff
  st.gpr[RDX] = 0xabcdef0180000000;  // i32 INT_MIN
  st.gpr[R10] = 0xabcdef01ffffffff;  // u32
  NativeCall a;
  std::string why;
  ASSERT_TRUE(gather("void : i8 u16 i32 u32", st, a, why)) << why;
  EXPECT_EQ(a.x[0], 0xffffffffffffff80u);
  EXPECT_EQ(a.x[1], 0xffffu);
  EXPECT_EQ(a.x[2], 0xffffffff80000000u);
  EXPECT_EQ(a.x[3], 0xffffffffu);
}

// A guest function pointer travels as it is (the forwarder swaps in a host
// one); an unreadable stack argument or too many arguments are refused.
TEST(ForwardMarshal, CallbacksPassUnreadableStacksAreRefused) {
  g_stack = {0xaaaa};
  GuestState st = state_with_args();
  NativeCall a;
  std::string why;
  EXPECT_TRUE(gather("i32 : ptr u32 ptr ptr fn<void,ptr,ptr> ptr", st, a, why)) << why;
  EXPECT_EQ(a.x[4], 0x1004u);
  g_stack = {0xaaaa};  // no seventh argument there
  EXPECT_FALSE(gather("void : ptr ptr ptr ptr ptr ptr ptr", st, a, why));
  EXPECT_NE(why.find("stack"), std::string::npos) << why;
  // More stack than phybin passes: refused when the plan is made.
  std::string many = "void :";
  for (int i = 0; i < 40; ++i) many += " ptr";
  EXPECT_FALSE(gather(many.c_str(), st, a, why));
  EXPECT_NE(why.find("40 arguments"), std::string::npos) << why;
}

// The plan of `text`, for deliver_result.
CallPlan plan_of(const char* text) {
  std::string why;
  return *plan_call(*parse_signature(text), why);
}

TEST(ForwardMarshal, ResultsGoToRaxOrXmm0) {
  GuestState st{};
  NativeCall call;
  call.x0 = 0x12345678fffffff6;
  deliver_result(plan_of("i32 : ptr"), call, st);
  EXPECT_EQ(st.gpr[RAX], 0xfffffffffffffff6u);  // -10, CL_MAP_FAILURE-like
  call.x0 = 0x7f0012345678;
  deliver_result(plan_of("ptr : ptr"), call, st);
  EXPECT_EQ(st.gpr[RAX], 0x7f0012345678u);
  st.gpr[RAX] = 77;
  call.d0 = 0xdeadbeef3f800000;  // 1.0f in the low half
  deliver_result(plan_of("f32 : u16"), call, st);
  uint64_t low, high;
  std::memcpy(&low, &st.xmm[0], 8);
  std::memcpy(&high, reinterpret_cast<const char*>(&st.xmm[0]) + 8, 8);
  EXPECT_EQ(low, 0x3f800000u);
  EXPECT_EQ(high, 0u);
  EXPECT_EQ(st.gpr[RAX], 77u);
}

// Records by value, worked out by hand from the two ABIs: at most 16
// bytes of integers take one or two integer registers on both (when all of
// it fits; SysV then goes on with the registers left, AAPCS64 does not);
// a larger one is copied onto the SysV stack, and AAPCS64 gets its address.
TEST(ForwardSignature, RecordsCarryTheirSizes) {
  const std::optional<Signature> s = parse_signature("rec16 : rec8 rec12 mem24 u32");
  ASSERT_TRUE(s);
  EXPECT_EQ(s->result, ArgClass::Rec);
  EXPECT_EQ(s->result_bytes, 16u);
  ASSERT_EQ(s->args.size(), 4u);
  EXPECT_EQ(s->args[1], ArgClass::Rec);
  EXPECT_EQ(s->args[2], ArgClass::Mem);
  EXPECT_EQ(s->bytes, (std::vector<uint16_t>{8, 12, 24, 0}));
  for (const char* bad : {"void : rec0", "void : rec17", "void : mem16", "void : rec", "void : recx", "void : mem1x"})
    EXPECT_FALSE(parse_signature(bad)) << bad;
}

TEST(ForwardMarshal, SmallRecordsTakeIntegerRegisters) {
  g_stack = {0xaaaa, 0x2000};
  const GuestState st = state_with_args();
  NativeCall a;
  std::string why;
  ASSERT_TRUE(gather("u32 : rec8 rec16 u32 rec12 ptr", st, a, why)) << why;
  for (int i = 0; i < 6; ++i) EXPECT_EQ(a.x[i], 0x1000u + i) << i;  // RDI | RSI RDX | R10 (u32) | R8 R9
  EXPECT_EQ(a.x[6], 0x2000u);  // the pointer, from the stack
  EXPECT_EQ(a.stack_words, 0u);
}

TEST(ForwardMarshal, ARecordThatDoesNotFitGoesOnTheStack) {
  // SysV: five pointers, then a 16-byte record with one register left:
  // the record goes on the stack, the next pointer takes R9.  AAPCS64 has
  // room for all of them in x0-x7.
  g_stack = {0xaaaa, 0x2000, 0x2001};
  NativeCall a;
  std::string why;
  ASSERT_TRUE(gather("void : ptr ptr ptr ptr ptr rec16 ptr", state_with_args(), a, why)) << why;
  EXPECT_EQ(a.x[5], 0x2000u);
  EXPECT_EQ(a.x[6], 0x2001u);
  EXPECT_EQ(a.x[7], 0x1005u);
  EXPECT_EQ(a.stack_words, 0u);
  // Seven pointers, then the record: AAPCS64 has one register left, so
  // the record and every later argument go on its stack.
  g_stack = {0xaaaa, 0x2006, 0x2000, 0x2001, 0x2007};
  NativeCall b;
  ASSERT_TRUE(gather("void : ptr ptr ptr ptr ptr ptr ptr rec16 ptr", state_with_args(), b, why)) << why;
  EXPECT_EQ(b.x[6], 0x2006u);
  EXPECT_EQ(b.x[7], 0u);  // unused
  ASSERT_EQ(b.stack_words, 3u);
  EXPECT_EQ(b.stack[0], 0x2000u);
  EXPECT_EQ(b.stack[1], 0x2001u);
  EXPECT_EQ(b.stack[2], 0x2007u);
}

TEST(ForwardMarshal, LargeRecordsPassByTheAddressOfTheGuestCopy) {
  // hipMemset3D(hipPitchedPtr (32 bytes), int, hipExtent (24 bytes)).
  g_stack = {0xaaaa, 1, 2, 3, 4, 5, 6, 7};
  NativeCall a;
  std::string why;
  ASSERT_TRUE(gather("i32 : mem32 i32 mem24", state_with_args(), a, why)) << why;
  EXPECT_EQ(a.x[0], g_stack_base + 8);       // past the return address
  EXPECT_EQ(a.x[1], 0x1000u);                // the int, in EDI
  EXPECT_EQ(a.x[2], g_stack_base + 8 + 32);  // after the first record
  EXPECT_EQ(a.stack_words, 0u);
}

TEST(ForwardMarshal, RecordResults) {
  // A 20-byte result: the guest's hidden pointer (RDI) becomes x8, the
  // arguments move up by one register, and RAX returns the pointer.
  g_stack = {0xaaaa};
  NativeCall a;
  std::string why;
  ASSERT_TRUE(gather("mem20 : i32 i32", state_with_args(), a, why)) << why;
  EXPECT_EQ(a.x8, 0x1000u);
  EXPECT_EQ(a.x[0], 0x1001u);
  EXPECT_EQ(a.x[1], 0x1002u);
  GuestState st{};
  deliver_result(plan_of("mem20 : i32 i32"), a, st);
  EXPECT_EQ(st.gpr[RAX], 0x1000u);
  // 16 bytes come back in x0:x1, to RAX:RDX; 8 bytes leave RDX alone.
  NativeCall b;
  b.x0 = 0x1111;
  b.x1 = 0x2222;
  deliver_result(plan_of("rec16 : ptr"), b, st);
  EXPECT_EQ(st.gpr[RAX], 0x1111u);
  EXPECT_EQ(st.gpr[RDX], 0x2222u);
  st.gpr[RDX] = 5;
  deliver_result(plan_of("rec8 : ptr"), b, st);
  EXPECT_EQ(st.gpr[RDX], 5u);
}

// Which functions translated code calls directly (ir CallNative): every
// argument a scalar in a register, nothing converted.
TEST(ForwardDirect, ShapesOfRegisterOnlyCalls) {
  ir::NativeCallShape shape;
  ASSERT_TRUE(direct_shape(*parse_signature("i32 : ptr u32 ptr ptr f32 i16 f64"), shape));
  EXPECT_EQ(shape.ints, 5u);
  EXPECT_EQ(shape.floats, 2u);
  EXPECT_EQ(shape.widen[1], ir::Widen::U32);
  EXPECT_EQ(shape.widen[4], ir::Widen::S16);
  EXPECT_EQ(shape.result, ir::NativeResult::Int);
  EXPECT_EQ(shape.result_widen, ir::Widen::S32);
  shape.index = 0x1234;
  const ir::NativeCallShape back = ir::NativeCallShape::unpack(shape.pack());
  EXPECT_EQ(back.index, 0x1234u);
  EXPECT_EQ(back.ints, 5u);
  EXPECT_EQ(back.floats, 2u);
  EXPECT_EQ(back.widen, shape.widen);
  EXPECT_EQ(back.result, shape.result);
  EXPECT_EQ(back.result_widen, shape.result_widen);
  ASSERT_TRUE(direct_shape(*parse_signature("f32 : u16"), shape));
  EXPECT_EQ(shape.result, ir::NativeResult::F32);
  ASSERT_TRUE(direct_shape(*parse_signature("void :"), shape));
  EXPECT_EQ(shape.result, ir::NativeResult::Void);
}

TEST(ForwardDirect, RefusesWhatNeedsConverting) {
  ir::NativeCallShape shape;
  for (const char* text : {"i32 : ptr fn<void,ptr> ptr",              // a guest function
                           "u32 : rec8 u32",                          // a record
                           "u32 : mem24",                             // a record on the stack
                           "mem20 : i32",                             // a hidden result pointer
                           "rec16 : ptr",                             // a two-register result
                           "void : ptr ptr ptr ptr ptr ptr ptr",      // a stack argument
                           "void : f64 f64 f64 f64 f64 f64 f64 f64 f64"})
    EXPECT_FALSE(direct_shape(*parse_signature(text), shape)) << text;
}

}  // namespace
}  // namespace phybin::forward
