# The version find_package(Linkopt VERSION) compares with: any request up
# to this version is compatible.
# VERSION: the tree's own, or an install's PREFIX/share/linkopt/VERSION
file(STRINGS "${CMAKE_CURRENT_LIST_DIR}/../VERSION" PACKAGE_VERSION LIMIT_COUNT 1)
if(PACKAGE_FIND_VERSION VERSION_GREATER PACKAGE_VERSION)
  set(PACKAGE_VERSION_COMPATIBLE FALSE)
else()
  set(PACKAGE_VERSION_COMPATIBLE TRUE)
  if(PACKAGE_FIND_VERSION VERSION_EQUAL PACKAGE_VERSION)
    set(PACKAGE_VERSION_EXACT TRUE)
  endif()
endif()
