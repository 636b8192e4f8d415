# drydbConfig.cmake - find_package(drydb) for an installed drydb.
# Written by hand: the library is built by the Go toolchain, so CMake cannot
# export a target it did not build. Provides:
#   drydb::drydb         the shared library (libdrydb.so.0)
#   drydb::drydb_static  the static archive (needs Threads)
# Layout: <prefix>/lib/cmake/drydb/drydbConfig.cmake, <prefix>/lib/libdrydb.*,
# <prefix>/include/drydb.h.
get_filename_component(_drydb_prefix "${CMAKE_CURRENT_LIST_DIR}/../../.." ABSOLUTE)

if(NOT TARGET drydb::drydb)
  add_library(drydb::drydb SHARED IMPORTED)
  set_target_properties(drydb::drydb PROPERTIES
    IMPORTED_LOCATION "${_drydb_prefix}/lib/libdrydb.so.0"
    IMPORTED_SONAME "libdrydb.so.0"
    INTERFACE_INCLUDE_DIRECTORIES "${_drydb_prefix}/include")
endif()

if(NOT TARGET drydb::drydb_static AND EXISTS "${_drydb_prefix}/lib/libdrydb.a")
  include(CMakeFindDependencyMacro)
  find_dependency(Threads)
  add_library(drydb::drydb_static STATIC IMPORTED)
  set_target_properties(drydb::drydb_static PROPERTIES
    IMPORTED_LOCATION "${_drydb_prefix}/lib/libdrydb.a"
    INTERFACE_INCLUDE_DIRECTORIES "${_drydb_prefix}/include"
    INTERFACE_LINK_LIBRARIES "Threads::Threads;m;dl")
endif()

set(drydb_FOUND TRUE)
unset(_drydb_prefix)
