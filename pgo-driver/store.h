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
struct profile_meta {
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

/* Opens the store at path for the configuration described; creates the
   folders when create is set.  False (with a message) when it cannot. */
bool store_open(struct store *store, const char *path, const char *description, bool create);

/* Frees what store_open allocated. */
void store_close(struct store *store);

/* Frees every string and array of meta and zeroes it. */
void meta_free(struct profile_meta *meta);

/* The path of the profile in use (the symlink), whether or not it exists. */
char *store_profile_path(const struct store *store);

/* True when the configuration has a complete profile. */
bool store_has_profile(const struct store *store);

/* Creates a fresh empty folder for a profile being made; a new string. */
char *store_new_profile(const struct store *store);

/* Makes the folder from store_new_profile the profile in use in one rename
   and removes the one it replaces; false (with a message) on failure. */
bool store_commit_profile(const struct store *store, const char *folder);

/* Writes meta to folder/meta (through a temporary and rename). */
bool meta_write(const char *folder, const struct profile_meta *meta);

/* Reads folder/meta; false when missing or unreadable. */
bool meta_read(const char *folder, struct profile_meta *meta);

/* Relative paths of the regular files under dir whose names end in suffix,
   sorted; files older than since (seconds since the epoch) are skipped. */
char **files_list(const char *dir, const char *suffix, long since, size_t *count);

/* Copies a file; false with errno set on failure. */
bool file_copy(const char *from, const char *to);

/* Removes a file or a folder tree; false with errno set on failure. */
bool tree_remove(const char *path);

/* Creates dir and its parents; false with errno set on failure. */
bool dir_create(const char *path);

/* FNV-1a hash of a file's content; false when it cannot be read. */
bool file_hash(const char *path, uint64_t *hash);

/* The name gcc gives a profile file for a notes file at relative path rel
   under the -fprofile-prefix-path folder: '/' becomes '#', the suffix goes;
   a new string. */
char *profile_name(const char *rel);

#endif
