# Cross build of phybin for AArch64 on an x86-64 machine.  Headers and
# libraries that phybin needs beyond the C/C++ runtime (Zydis) come from the
# arm64 Debian tree made by scripts/bootstrap (PHYBIN_ARM64_ROOT).
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
set(CMAKE_CXX_COMPILER aarch64-linux-gnu-g++)
if(NOT PHYBIN_ARM64_ROOT)
  set(PHYBIN_ARM64_ROOT "$ENV{PHYBIN_ARM64_ROOT}")
endif()
set(CMAKE_FIND_ROOT_PATH ${PHYBIN_ARM64_ROOT})
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_LIBRARY_ARCHITECTURE aarch64-linux-gnu)
set(CMAKE_EXE_LINKER_FLAGS_INIT "-Wl,-rpath-link,${PHYBIN_ARM64_ROOT}/usr/lib/aarch64-linux-gnu")
# The tree's libraries sit where an ARM64 machine has them (qemu -L and
# the world find them there): no run path into the build machine's tree.
set(CMAKE_SKIP_BUILD_RPATH ON)
