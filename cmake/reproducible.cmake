# A reproducible init (docs/release.md): the same commit built in any two
# directories gives the same bytes.
#
# - No build paths: the source and build directories are mapped away in
#   __FILE__, debug information and everything else the compiler writes
#   (-ffile-prefix-map covers -fdebug-prefix-map and -fmacro-prefix-map).
#   The build directory is mapped last, so it wins where it lies inside the
#   source tree (GCC and clang apply the last matching map).
# - A build ID computed from the linked content (sha1), never a random one,
#   whatever the toolchain's default.
# - No timestamps: nothing uses __DATE__ or __TIME__, and GCC takes them
#   from SOURCE_DATE_EPOCH where something would.
add_compile_options(-ffile-prefix-map=${CMAKE_SOURCE_DIR}/=
                    -ffile-prefix-map=${CMAKE_BINARY_DIR}/=)
add_link_options(-Wl,--build-id=sha1)

# What `cli-sandbox-init --version` says it was built from: the commit
# (CLI_SANDBOX_COMMIT, which the image build passes as there is no .git in
# its context, else git's HEAD at configure time, plus -dirty for changed
# tracked files) and the versions of the libraries pkg-config found.
set(CLI_SANDBOX_COMMIT "" CACHE STRING "commit the init is built from (default: git HEAD)")
set(CS_BUILD_COMMIT "${CLI_SANDBOX_COMMIT}")
if(CS_BUILD_COMMIT STREQUAL "" AND EXISTS ${CMAKE_SOURCE_DIR}/.git)
  find_package(Git QUIET)
  if(GIT_FOUND)
    execute_process(COMMAND ${GIT_EXECUTABLE} -C ${CMAKE_SOURCE_DIR} rev-parse HEAD
                    OUTPUT_VARIABLE CS_BUILD_COMMIT OUTPUT_STRIP_TRAILING_WHITESPACE
                    ERROR_QUIET)
    execute_process(COMMAND ${GIT_EXECUTABLE} -C ${CMAKE_SOURCE_DIR} diff --quiet HEAD --
                    RESULT_VARIABLE cs_dirty ERROR_QUIET)
    if(CS_BUILD_COMMIT AND NOT cs_dirty EQUAL 0)
      string(APPEND CS_BUILD_COMMIT "-dirty")
    endif()
  endif()
  # A new commit or checkout moves .git/logs/HEAD: configure again then.
  if(EXISTS ${CMAKE_SOURCE_DIR}/.git/logs/HEAD)
    set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/.git/logs/HEAD)
  endif()
endif()
if(CS_BUILD_COMMIT STREQUAL "")
  set(CS_BUILD_COMMIT unknown)
endif()

# cs_build_info(SOURCE): the definitions for the one file that prints them,
# so a new commit recompiles that file only.  Call after the dependencies
# are found (their <name>_VERSION comes from pkg_check_modules).
function(cs_build_info source)
  if(CLI_SANDBOX_STATIC)
    set(linkage static)
  else()
    set(linkage dynamic)
  endif()
  set_property(SOURCE ${source} APPEND PROPERTY COMPILE_DEFINITIONS
    CS_BUILD_COMMIT="${CS_BUILD_COMMIT}"
    CS_BUILD_LINKAGE="${linkage}"
    CS_BUILD_LIBNFTNL="${nftnl_VERSION}"
    CS_BUILD_LIBMNL="${mnl_VERSION}"
    CS_BUILD_LIBCAP_NG="${capng_VERSION}"
    CS_BUILD_LIBSECCOMP="${seccomp_VERSION}"
    CS_BUILD_JANSSON="${jansson_VERSION}")
endfunction()
