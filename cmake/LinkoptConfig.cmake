# find_package(Linkopt): linkopt's CMake module, from an install
# (PREFIX/share/linkopt/cmake) or the linkopt tree (-DLinkopt_DIR=TREE/cmake).
# Gives linkopt_startup(); see LinkoptStartup.cmake beside this file.
include("${CMAKE_CURRENT_LIST_DIR}/LinkoptStartup.cmake")
