// C++ exceptions in a static program: throw and catch across frames, with
// destructors run on the way, rethrow, nested try blocks, std exceptions
// from the library (vector::at, stoi) and a catch(...) of a non-class type.
// libgcc's unwinder reads the CET shadow-stack pointer (rdsspq) on every
// throw: on a CPU without shadow stacks that is a NOP.
#include <cstdio>
#include <stdexcept>
#include <string>
#include <vector>

static int destroyed = 0;

struct Guard {
  int id;
  explicit Guard(int i) : id(i) {}
  ~Guard() { destroyed += id; }
};

[[gnu::noinline]] static int deep(int n) {
  Guard g(n);
  if (n == 0) throw std::runtime_error("bottom");
  return deep(n - 1) + 1;
}

[[gnu::noinline]] static void rethrow_it() {
  try {
    deep(5);
  } catch (const std::exception&) {
    throw;
  }
}

int main() {
  for (int depth = 0; depth < 40; depth += 7) {
    destroyed = 0;
    try {
      deep(depth);
    } catch (const std::runtime_error& e) {
      std::printf("depth %2d: caught '%s', destructors summed %d\n", depth, e.what(), destroyed);
    }
  }
  try {
    rethrow_it();
  } catch (const std::runtime_error& e) {
    std::printf("rethrown: %s\n", e.what());
  }
  std::vector<int> v(3);
  try {
    v.at(7) = 1;
  } catch (const std::out_of_range&) {
    std::printf("vector::at: out_of_range\n");
  }
  try {
    std::stoi("not a number");
  } catch (const std::invalid_argument&) {
    std::printf("stoi: invalid_argument\n");
  }
  try {
    try {
      throw 42;
    } catch (int x) {
      std::printf("inner caught %d\n", x);
      throw std::string("outer");
    }
  } catch (const std::string& s) {
    std::printf("outer caught %s\n", s.c_str());
  }
  try {
    throw 3.5;
  } catch (...) {
    std::printf("catch-all\n");
  }
  return 0;
}
