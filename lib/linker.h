/* linker: what GNU ld says of itself with --verbose for the options that
   choose its default script (-m, -z, -pie, -no-pie, -shared, -static, -r,
   --no-dynamic-linker): the default script, its SEARCH_DIR folders and the
   symbols the linker defines.  Each program and option set is run once
   per process; deporder's library search and its GNU ld script share it. */
#ifndef LINKOPT_LINKER_H
#define LINKOPT_LINKER_H

#include "util.h"

struct linker {
	char *command;              /* what was run, for messages */
	char *script;               /* the default script between ld's ===== lines; NULL if it printed none */
	char **search_dirs;         /* SEARCH_DIR() folders in order, without the sysroot '=' */
	size_t search_dir_count;
	struct strmap defines;      /* names the output assigns or PROVIDEs (keys owned) */
};

/* The linker program (looked up on PATH) asked with --verbose and the
   options of ld_argv (a linker command line after argv[0], NULL-terminated,
   may be NULL) that choose its default script.  Runs it the first time
   this program and option set are asked for; NULL with *why set (a new
   string) when it could not start or did not exit 0, the first time and
   every later one. */
const struct linker *linker_get(const char *program, char *const ld_argv[], char **why);

/* True if the linker defines name itself: its default script assigns or
   PROVIDEs it, or ld always creates it (_GLOBAL_OFFSET_TABLE_, __ehdr_start
   ...).  linker may be NULL (it could not be asked): then only the latter. */
bool linker_defines(const struct linker *linker, const char *name);

#endif
