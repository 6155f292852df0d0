# Cross toolchain for arm64 (issue 24, image/arm64/Containerfile): Debian's
# gcc-aarch64-linux-gnu and the arm64 packages of the libraries (multiarch,
# /usr/lib/aarch64-linux-gnu).  The seccomp filter's generator and the unit
# tests are arm64 programs: they run under qemu-user (the emulator CMake puts
# before them), which needs no binfmt registration.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
find_program(CS_QEMU_AARCH64 NAMES qemu-aarch64 qemu-aarch64-static REQUIRED)
set(CMAKE_CROSSCOMPILING_EMULATOR ${CS_QEMU_AARCH64})
# pkg-config reads the arm64 .pc files only.
set(ENV{PKG_CONFIG_LIBDIR} /usr/lib/aarch64-linux-gnu/pkgconfig:/usr/share/pkgconfig)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_LIBRARY_ARCHITECTURE aarch64-linux-gnu)
