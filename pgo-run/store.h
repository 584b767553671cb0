/* store: pgo-run's profile store (.pgo/ by default).  One folder per build
   configuration (compiler version, flags, build command), named by a hash of
   its description; in it the profile in use is the symlink "profile", which
   points at a complete profile folder and is replaced in one rename. */
#ifndef PGO_STORE_H
#define PGO_STORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct store {
	char *root;        /* absolute path of the store */
	char *config;      /* absolute path of this configuration's folder */
	char *key;         /* its name: 16 hex digits */
	char *description; /* what the key hashes: compiler, flags, build */
};

/* What a profile folder records about how it was made (file "meta"). */
struct store_meta {
	long trained; /* seconds since the epoch */
	char **workloads;
	double *weights;
	size_t nworkloads;
	char **objects; /* notes names (mangled, no .gcno) of the instrumented build */
	bool *has_data;
	size_t nobjects;
	char **sources; /* absolute paths of the sources the objects came from */
	uint64_t *hashes;
	size_t nsources;
};

/* Every function that can fail returns 0 (or a new string), or -1 (NULL)
   with *why set to a newly allocated message "path: call failed: reason";
   none prints. */

/* Opens the store at path for the configuration described; creates the
   folders (and records the description) when create is set.  A store that
   does not exist opens when create is not set: it has no profile.
   store_close frees what it set, also after a failure. */
int store_open(struct store *store, const char *path, const char *description, bool create, char **why);

/* True when name is that of a configuration's folder (a key). */
bool store_is_key(const char *name);

/* Frees what store_open allocated. */
void store_close(struct store *store);

/* The path of the profile in use (the symlink), whether or not it exists. */
char *store_profile_path(const struct store *store);

/* True when the configuration has a complete profile. */
bool store_has_profile(const struct store *store);

/* Creates a fresh empty folder for a profile being made; a new string. */
char *store_new_profile(const struct store *store, char **why);

/* Creates a fresh empty scratch folder (raw.XXXXXX) for a cycle's training
   runs; a new string. */
char *store_new_scratch(const struct store *store, char **why);

/* Removes what a run that ended before it could clean up (SIGKILL) left in
   the configuration's folder: scratch folders, profile folders but the one
   in use, a half-made profile symlink.  Call only with the configuration's
   lock held: then no run is using them.  *removed gets their names (new
   strings; NULL and *count 0 when none); on a failure -1, what was removed
   listed all the same. */
int store_remove_leftovers(const struct store *store, char ***removed, size_t *count, char **why);

/* Makes the folder from store_new_profile the profile in use in one rename;
   *replaced gets the folder of the profile it replaced, for the caller to
   remove (a new string), or NULL when there was none. */
int store_commit_profile(const struct store *store, const char *folder, char **replaced, char **why);

/* Writes meta to folder/meta (through a temporary and rename). */
int store_meta_write(const char *folder, const struct store_meta *meta, char **why);

/* Reads folder/meta into meta (zeroed first, so store_meta_free is safe
   after a failure); fails when it is missing or unreadable. */
int store_meta_read(const char *folder, struct store_meta *meta, char **why);

/* Frees every string and array of meta and zeroes it. */
void store_meta_free(struct store_meta *meta);

#endif
