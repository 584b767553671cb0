# LinkoptStartup.cmake: start-up-ordered programs and shared libraries.
#
#   find_package(Linkopt REQUIRED)         # or include(LinkoptStartup)
#   linkopt_startup(TARGET xmlwf expat
#                   RUN $<TARGET_FILE:xmlwf> ${CMAKE_SOURCE_DIR}/data.xml
#                   [HOST target...] [LINKER gnu-ld|gold|lld|mold]
#                   [PLACEMENT head|cold-start|data-first|best] [READ_AHEAD_KB n]
#                   [UNTRACED_SEGMENT_KB n]
#                   [WORKLOAD shell-line...] [HELD_OUT shell-line...]
#                   [STEADY shell-line] [BEST_WITHOUT relr|bolt|segments|cut|cross...]
#                   [REQUEST_PAGES n]
#                   [RELR] [BOLT] [LLVM_BOLT program] [CHECK shell-line]
#                   [NAME custom-target] [WORKING_DIRECTORY dir]
#                   [TRACE_CHILDREN])
#
# Each TARGET (an executable, a shared or a module library) is compiled
# with -ffunction-sections -fdata-sections and linked through linkopt-cc,
# its C and CXX linker launcher, which records the link in LINKOPT_DIR
# (default: ${CMAKE_BINARY_DIR}/linkopt).  Two custom targets (NAME,
# default: the first TARGET followed by -startup):
#
#   cmake --build build --target xmlwf-startup
#       builds the TARGETs and HOSTs, then linkopt-startup(1) relinks each
#       TARGET with GNU ld and a map, runs RUN under pagein, orders each
#       link with deporder and relinks the TARGET itself with its order,
#       in place.  The build's later links of a TARGET keep its order, so
#       that `cmake --install` installs the ordered files; remove
#       LINKOPT_DIR/TARGET.apply to link as before.
#   cmake --build build --target xmlwf-startup-report
#       the same, then RUN again under pagein: the code and data pages of
#       each TARGET, plain and ordered; it fails when RUN printed anything
#       else with the ordered files.
#
# The compile flags reach the TARGETs' own sources: give them to the static
# libraries a TARGET links too (target_compile_options) for their code to
# be ordered function by function.
#
# RUN is a command (generator expressions allowed): it must run each
# TARGET, a shared library through a program that loads it from the build
# tree (CMake's build RPATH does).  HOST names more targets RUN needs built.
# TRACE_CHILDREN traces the processes RUN starts too (a script).
# PLACEMENT, READ_AHEAD_KB, UNTRACED_SEGMENT_KB, RELR, BOLT, LLVM_BOLT and
# CHECK are linkopt-startup's --placement, --read-ahead-kb,
# --untraced-segment-kb, --relr, --bolt, --llvm-bolt and --check: the
# placement, the code no trace ran in segments of n KiB (GNU ld, not
# best, no BOLT), -z pack-relative-relocs, linkopt-bolt's rewrite, a check
# that must print the same with the ordered files.  PLACEMENT best
# searches: every placement with and without relr and BOLT made, traced
# on RUN and each WORKLOAD, scored (HELD_OUT workloads shown, never used
# to choose), checked, timed on STEADY; the layout a cold start reads
# least of is kept, each read request counted as REQUEST_PAGES pages
# (default: a read-ahead window's; 0: pages alone) (linkopt-startup's
# --workload, --held-out, --steady, --request-pages).
# BEST_WITHOUT leaves candidates out of that search: relr (a target whose
# glibc is older than 2.36), bolt, segments, or its cross (linkopt-startup's
# --no-relr, --no-bolt, --no-segments, --no-cut, --no-cross).

if(CMAKE_VERSION VERSION_LESS 3.21)
  message(FATAL_ERROR "LinkoptStartup needs CMake 3.21 or later (the <LANG>_LINKER_LAUNCHER target property); "
    "this is ${CMAKE_VERSION}")
endif()

# linkopt-cc and linkopt-startup: the copies beside this module (an
# install's PREFIX/bin, or the linkopt tree), else found on PATH.
set(_linkopt_module_dir "${CMAKE_CURRENT_LIST_DIR}")
foreach(_linkopt_pair "LINKOPT_CC;linkopt-cc" "LINKOPT_STARTUP;linkopt-startup")
  list(GET _linkopt_pair 0 _linkopt_variable)
  list(GET _linkopt_pair 1 _linkopt_program)
  find_program(${_linkopt_variable} ${_linkopt_program}
    HINTS "${_linkopt_module_dir}/../../../bin" "${_linkopt_module_dir}/../${_linkopt_program}" NO_DEFAULT_PATH)
  find_program(${_linkopt_variable} ${_linkopt_program})
  if(NOT ${_linkopt_variable})
    message(FATAL_ERROR "LinkoptStartup: ${_linkopt_program} not found beside ${_linkopt_module_dir} nor on PATH; "
      "build linkopt (make) or install it (make install PREFIX=...)")
  endif()
endforeach()

set(LINKOPT_DIR "${CMAKE_BINARY_DIR}/linkopt" CACHE PATH
  "where linkopt-cc records the links and linkopt-startup keeps the maps, traces and orders")

function(linkopt_startup)
  cmake_parse_arguments(PARSE_ARGV 0 arg "TRACE_CHILDREN;RELR;BOLT" "LINKER;PLACEMENT;READ_AHEAD_KB;UNTRACED_SEGMENT_KB;NAME;WORKING_DIRECTORY;CHECK;LLVM_BOLT;STEADY;REQUEST_PAGES"
    "TARGET;RUN;HOST;WORKLOAD;HELD_OUT;BEST_WITHOUT")
  if(arg_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "linkopt_startup: unknown arguments: ${arg_UNPARSED_ARGUMENTS}")
  endif()
  if(NOT arg_TARGET)
    message(FATAL_ERROR "linkopt_startup: no TARGET given")
  endif()
  if(NOT arg_RUN)
    message(FATAL_ERROR "linkopt_startup: no RUN command given: the start-up to order for")
  endif()
  if(NOT arg_LINKER)
    set(arg_LINKER gnu-ld)
  endif()
  if(NOT arg_LINKER MATCHES "^(gnu-ld|gold|lld|mold)$")
    message(FATAL_ERROR "linkopt_startup: LINKER ${arg_LINKER}: not one of gnu-ld, gold, lld, mold")
  endif()
  if(NOT arg_PLACEMENT)
    set(arg_PLACEMENT head)
  endif()
  if(NOT arg_PLACEMENT MATCHES "^(head|cold-start|data-first|best)$")
    message(FATAL_ERROR "linkopt_startup: PLACEMENT ${arg_PLACEMENT}: not head, cold-start, data-first or best")
  endif()
  if((arg_WORKLOAD OR arg_HELD_OUT OR DEFINED arg_STEADY) AND NOT arg_PLACEMENT STREQUAL "best")
    message(FATAL_ERROR "linkopt_startup: WORKLOAD, HELD_OUT and STEADY are for PLACEMENT best")
  endif()
  foreach(option IN ITEMS BEST_WITHOUT REQUEST_PAGES)
    if(DEFINED arg_${option} AND NOT arg_PLACEMENT STREQUAL "best")
      message(FATAL_ERROR "linkopt_startup: ${option} is for PLACEMENT best")
    endif()
  endforeach()
  foreach(word IN LISTS arg_BEST_WITHOUT)
    if(NOT word MATCHES "^(relr|bolt|segments|cut|cross)$")
      message(FATAL_ERROR "linkopt_startup: BEST_WITHOUT ${word}: not relr, bolt, segments, cut or cross")
    endif()
  endforeach()
  if(arg_PLACEMENT STREQUAL "data-first" AND NOT arg_LINKER STREQUAL "gnu-ld")
    message(FATAL_ERROR "linkopt_startup: PLACEMENT data-first is a GNU ld script: it needs LINKER gnu-ld")
  endif()
  # the options that are numbers: of KiB (..._KB), or of pages
  foreach(option IN ITEMS UNTRACED_SEGMENT_KB READ_AHEAD_KB REQUEST_PAGES)
    if(DEFINED arg_${option} AND NOT arg_${option} MATCHES "^[0-9]+$")
      if(option MATCHES "_KB$")
        set(unit KiB)
      else()
        set(unit pages)
      endif()
      message(FATAL_ERROR "linkopt_startup: ${option} ${arg_${option}}: not a number of ${unit}")
    endif()
  endforeach()
  list(GET arg_TARGET 0 first)
  if(NOT arg_NAME)
    set(arg_NAME "${first}-startup")
  endif()
  if(NOT arg_WORKING_DIRECTORY)
    set(arg_WORKING_DIRECTORY "${CMAKE_CURRENT_BINARY_DIR}")
  endif()

  set(outputs "")
  foreach(target IN LISTS arg_TARGET)
    if(NOT TARGET "${target}")
      message(FATAL_ERROR "linkopt_startup: ${target} is not a target (call linkopt_startup after add_executable or add_library)")
    endif()
    get_target_property(type "${target}" TYPE)
    if(NOT type MATCHES "^(EXECUTABLE|SHARED_LIBRARY|MODULE_LIBRARY)$")
      message(FATAL_ERROR "linkopt_startup: ${target} is a ${type}, not linked: order the program or shared library that links it")
    endif()
    get_target_property(launcher "${target}" C_LINKER_LAUNCHER)
    if(launcher MATCHES "linkopt-cc")
      message(FATAL_ERROR "linkopt_startup: ${target} is already ordered by another linkopt_startup call")
    endif()
    if(NOT launcher)
      set(launcher "")
    endif()
    target_compile_options("${target}" PRIVATE -ffunction-sections -fdata-sections)
    set(ours "${LINKOPT_CC}" "--dir=${LINKOPT_DIR}" "--name=${target}")
    set_property(TARGET "${target}" PROPERTY C_LINKER_LAUNCHER ${ours} ${launcher})
    get_target_property(launcher "${target}" CXX_LINKER_LAUNCHER)
    if(NOT launcher)
      set(launcher "")
    endif()
    set_property(TARGET "${target}" PROPERTY CXX_LINKER_LAUNCHER ${ours} ${launcher})
    list(APPEND outputs "--target=${target}")
  endforeach()

  string(REPLACE ";" " " names "${arg_TARGET}")
  set(command "${LINKOPT_STARTUP}" "--dir=${LINKOPT_DIR}" ${outputs} "--linker=${arg_LINKER}"
      "--placement=${arg_PLACEMENT}")
  if(DEFINED arg_READ_AHEAD_KB)
    list(APPEND command "--read-ahead-kb=${arg_READ_AHEAD_KB}")
  endif()
  if(DEFINED arg_UNTRACED_SEGMENT_KB)
    list(APPEND command "--untraced-segment-kb=${arg_UNTRACED_SEGMENT_KB}")
  endif()
  if(arg_TRACE_CHILDREN)
    list(APPEND command --trace-children)
  endif()
  if(arg_RELR)
    list(APPEND command --relr)
  endif()
  if(arg_BOLT)
    list(APPEND command --bolt)
  endif()
  if(DEFINED arg_LLVM_BOLT)
    if(NOT arg_BOLT)
      message(FATAL_ERROR "linkopt_startup: LLVM_BOLT is for BOLT")
    endif()
    list(APPEND command "--llvm-bolt=${arg_LLVM_BOLT}")
  endif()
  if(DEFINED arg_CHECK)
    list(APPEND command "--check=${arg_CHECK}")
  endif()
  foreach(line IN LISTS arg_WORKLOAD)
    list(APPEND command "--workload=${line}")
  endforeach()
  foreach(line IN LISTS arg_HELD_OUT)
    list(APPEND command "--held-out=${line}")
  endforeach()
  if(DEFINED arg_STEADY)
    list(APPEND command "--steady=${arg_STEADY}")
  endif()
  if(DEFINED arg_REQUEST_PAGES)
    list(APPEND command "--request-pages=${arg_REQUEST_PAGES}")
  endif()
  list(REMOVE_DUPLICATES arg_BEST_WITHOUT)
  foreach(word IN LISTS arg_BEST_WITHOUT)
    list(APPEND command "--no-${word}")
  endforeach()
  add_custom_target("${arg_NAME}"
    COMMAND ${command} -- ${arg_RUN}
    WORKING_DIRECTORY "${arg_WORKING_DIRECTORY}"
    COMMENT "linkopt: ordering ${names} for the start-up of the workload"
    VERBATIM USES_TERMINAL)
  add_custom_target("${arg_NAME}-report"
    COMMAND ${command} --report -- ${arg_RUN}
    WORKING_DIRECTORY "${arg_WORKING_DIRECTORY}"
    COMMENT "linkopt: ordering ${names} for the start-up of the workload, and the pages before and after"
    VERBATIM USES_TERMINAL)
  add_dependencies("${arg_NAME}" ${arg_TARGET} ${arg_HOST})
  add_dependencies("${arg_NAME}-report" ${arg_TARGET} ${arg_HOST})
endfunction()
