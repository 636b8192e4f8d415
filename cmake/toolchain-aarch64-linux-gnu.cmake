# Cross-build for Linux arm64 with Debian's gcc-aarch64-linux-gnu, tests run
# under qemu-user (qemu-aarch64, with the cross sysroot libc6-arm64-cross):
# make test-arm64.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
set(CMAKE_NM aarch64-linux-gnu-nm)
set(CMAKE_FIND_ROOT_PATH /usr/aarch64-linux-gnu)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
find_program(DRYDB_QEMU NAMES qemu-aarch64 qemu-aarch64-static NO_CMAKE_FIND_ROOT_PATH)
if(DRYDB_QEMU)
  set(CMAKE_CROSSCOMPILING_EMULATOR ${DRYDB_QEMU} -L /usr/aarch64-linux-gnu)
endif()
