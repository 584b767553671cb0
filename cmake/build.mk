# cmake: the CMake module (linkopt_startup()) and the package files that
# let find_package(Linkopt) find it in PREFIX/share/linkopt/cmake.
CMAKE_FILES = cmake/LinkoptStartup.cmake cmake/LinkoptConfig.cmake cmake/LinkoptConfigVersion.cmake

install::
	install -d '$(DESTDIR)$(PREFIX)/share/linkopt/cmake'
	install -m 644 $(CMAKE_FILES) '$(DESTDIR)$(PREFIX)/share/linkopt/cmake/'
	install -m 644 VERSION '$(DESTDIR)$(PREFIX)/share/linkopt/'
