#include "arcs.h"
#include "gcda.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define NOTES_MAGIC 0x67636e6fu /* "gcno" */
#define DATA_MAGIC 0x67636461u  /* "gcda" */
#define TAG_FUNCTION 0x01000000u
#define TAG_BLOCKS 0x01410000u
#define TAG_ARCS 0x01430000u
#define TAG_ARC_COUNTERS 0x01a10000u
/* the exit block; arcs to it from calls that may not return are fake */
/* what a file written for other code asks of the user */
#define OTHER_CODE " (were the coverage build and likely-check given the same source, " \
	"compiler and flags, from the same folder: --cc, --cflags?)"
#define ENTRY_BLOCK 0u
#define EXIT_BLOCK 1u

/* A walk of one mapped file. */
struct reader {
	const unsigned char *data;
	size_t size, at;
	bool swapped;
};

static bool read_word(struct reader *r, uint32_t *word)
{
	if (r->size - r->at < 4)
		return false;
	memcpy(word, r->data + r->at, 4);
	if (r->swapped)
		*word = __builtin_bswap32(*word);
	r->at += 4;
	return true;
}

/* gcc 12's string: its length in bytes (the NUL counted), then the bytes. */
static bool read_string(struct reader *r, char **s)
{
	uint32_t length;

	if (!read_word(r, &length) || length > r->size - r->at)
		return false;
	*s = xstrndup((const char *)r->data + r->at, length);
	r->at += length;
	return true;
}

/* Checks the magic and version of the file r reads and steps over its
   header (magic, version, stamp, checksum); false with *why set. */
static bool read_header(struct reader *r, uint32_t magic, const char *kind, char **why)
{
	uint32_t word, version;

	if (r->size < 16) {
		*why = xasprintf("truncated: %zu bytes, shorter than a header", r->size);
		return false;
	}
	memcpy(&word, r->data, 4);
	if (word != magic && __builtin_bswap32(word) != magic) {
		*why = xasprintf("not a gcov %s file (no '%s' magic)", kind,
				 magic == NOTES_MAGIC ? "gcno" : "gcda");
		return false;
	}
	r->swapped = word != magic;
	r->at = 4;
	read_word(r, &version);
	if (!gcda_version_12_or_later(version)) {
		*why = xasprintf("written by a gcc before 12 (version word %08x): only gcc 12's "
				 "format is read", version);
		return false;
	}
	r->at = 16;
	return true;
}

struct arcs_function *arcs_function(struct arcs_object *object, const char *name)
{
	size_t i;

	for (i = 0; i < object->count; i++)
		if (strcmp(object->functions[i].name, name) == 0)
			return &object->functions[i];
	return NULL;
}

const struct arcs_arc *arcs_find(const struct arcs_function *f, unsigned int source,
				 unsigned int destination)
{
	size_t i;

	for (i = 0; i < f->arc_count; i++)
		if (f->arcs[i].source == source && f->arcs[i].destination == destination)
			return &f->arcs[i];
	return NULL;
}

/* Reads the records of a notes file after its header. */
static int read_note_records(struct arcs_object *object, struct reader *r, char **why)
{
	struct arcs_function *f = NULL;
	uint32_t tag, length, word = 0;

	while (read_word(r, &tag)) {
		size_t end;

		if (!read_word(r, &length) || length > r->size - r->at) {
			*why = xasprintf("truncated: the record at byte %zu (tag %08x) does not fit",
					 r->at, tag);
			return -1;
		}
		end = r->at + length;
		if (tag == TAG_FUNCTION) {
			f = ARRAY_PUSH(object->functions, object->count, object->capacity);
			memset(f, 0, sizeof(*f));
			if (!read_word(r, &f->ident) || !read_word(r, &f->lineno_checksum) ||
			    !read_word(r, &f->cfg_checksum) || !read_string(r, &f->name) ||
			    r->at > end) {
				*why = xasprintf("corrupt: a function record at byte %zu", end - length);
				return -1;
			}
		} else if (tag == TAG_BLOCKS && f) {
			if (length != 4 || !read_word(r, &f->block_count)) {
				*why = xasprintf("corrupt: the block record of %s", f->name);
				return -1;
			}
		} else if (tag == TAG_ARCS && f) {
			uint32_t source;

			if (!read_word(r, &source) || source >= f->block_count) {
				*why = xasprintf("corrupt: an arc record of %s", f->name);
				return -1;
			}
			while (r->at + 8 <= end) {
				struct arcs_arc *a = ARRAY_PUSH(f->arcs, f->arc_count, f->arc_capacity);

				memset(a, 0, sizeof(*a));
				a->source = source;
				read_word(r, &word);
				a->destination = word;
				read_word(r, &a->flags);
				if (a->destination >= f->block_count) {
					*why = xasprintf("corrupt: an arc of %s leads to block %u of %u",
							 f->name, a->destination, f->block_count);
					return -1;
				}
			}
		}
		r->at = end;
	}
	return 0;
}

int arcs_read_notes(struct arcs_object *object, const char *path, char **why)
{
	struct reader r = { 0 };
	char *directory;
	uint32_t unexecuted;
	void *map;
	int status;

	if (map_file(path, &map, &r.size, why) < 0)
		return -1;
	r.data = map;
	status = read_header(&r, NOTES_MAGIC, "notes", why) &&
			 read_string(&r, &directory) ? 0 : -1;
	if (status == 0) {
		free(directory);
		if (!read_word(&r, &unexecuted)) {
			*why = xstrdup("truncated: the header does not fit");
			status = -1;
		}
	} else if (!*why) {
		*why = xstrdup("truncated: the header does not fit");
	}
	if (status == 0)
		status = read_note_records(object, &r, why);
	munmap(map, r.size);
	return status;
}

/* The arcs in and out of each block, as indexes into f->arcs; the arc from
   the exit block to the entry block that closes the flow (it has no
   counter) is index f->arc_count. */
struct adjacency {
	size_t *first_in, *first_out; /* per block, into ins and outs; one past */
	size_t *ins, *outs;
};

static void build_adjacency(const struct arcs_function *f, struct adjacency *a)
{
	size_t n = f->block_count, arcs = f->arc_count + 1, i, *fill_in, *fill_out;

	a->first_in = xcalloc(n + 1, sizeof(size_t));
	a->first_out = xcalloc(n + 1, sizeof(size_t));
	a->ins = xcalloc(arcs, sizeof(size_t));
	a->outs = xcalloc(arcs, sizeof(size_t));
	for (i = 0; i < f->arc_count; i++) {
		a->first_in[f->arcs[i].destination + 1]++;
		a->first_out[f->arcs[i].source + 1]++;
	}
	a->first_in[ENTRY_BLOCK + 1]++;
	a->first_out[EXIT_BLOCK + 1]++;
	for (i = 0; i < n; i++) {
		a->first_in[i + 1] += a->first_in[i];
		a->first_out[i + 1] += a->first_out[i];
	}
	fill_in = xcalloc(n, sizeof(size_t));
	fill_out = xcalloc(n, sizeof(size_t));
	for (i = 0; i <= f->arc_count; i++) {
		unsigned int source = i < f->arc_count ? f->arcs[i].source : EXIT_BLOCK;
		unsigned int destination = i < f->arc_count ? f->arcs[i].destination : ENTRY_BLOCK;

		a->ins[a->first_in[destination] + fill_in[destination]++] = i;
		a->outs[a->first_out[source] + fill_out[source]++] = i;
	}
	free(fill_in);
	free(fill_out);
}

static void free_adjacency(struct adjacency *a)
{
	free(a->first_in);
	free(a->first_out);
	free(a->ins);
	free(a->outs);
}

/* Sums the known counts of arcs list[0..n); sets *unknown to how many are
   not known and *last to the last of them.  No overflow: each count is
   below 2^64 in size and a function has far fewer than 2^60 arcs. */
static __int128 sum_arcs(const __int128 *counts, const bool *known, const size_t *list, size_t n,
			 size_t *unknown, size_t *last)
{
	__int128 sum = 0;
	size_t i;

	*unknown = 0;
	for (i = 0; i < n; i++) {
		if (!known[list[i]]) {
			(*unknown)++;
			*last = list[i];
		} else {
			sum += counts[list[i]];
		}
	}
	return sum;
}

/* Whether arc i of f (f->arc_count: the exit-to-entry arc) is fake: a
   call that may not return, or return twice (fork: the child's counts
   start at the call, so that its arc to the exit takes a negative count). */
static bool fake_arc(const struct arcs_function *f, size_t i)
{
	return i == f->arc_count || (f->arcs[i].flags & ARCS_FAKE);
}

/* Gives each arc of f without a counter its count: a block takes in what
   it gives out, the exit block gives its count back to the entry.  -1 with
   *why set when the counts do not add up: a real arc below 0 or past
   2^64 - 1, a block that takes in more than it gives out. */
static int solve(struct arcs_function *f, char **why)
{
	size_t n = f->block_count, arcs = f->arc_count + 1, i, *work, work_count = 0;
	__int128 *counts = xcalloc(arcs, sizeof(*counts));
	bool *known = xcalloc(arcs, sizeof(*known)), *queued = xcalloc(n, sizeof(*queued));
	struct adjacency a;
	int status = 0;

	build_adjacency(f, &a);
	work = xcalloc(n + 2 * arcs, sizeof(*work));
	for (i = 0; i < f->arc_count; i++) {
		counts[i] = f->arcs[i].count;
		known[i] = f->arcs[i].known;
	}
	for (i = 0; i < n; i++) {
		work[work_count++] = i;
		queued[i] = true;
	}
	while (work_count > 0) {
		size_t block = work[--work_count], in_unknown, out_unknown, in_last = 0, out_last = 0,
		       solved = arcs, ends[2], k;
		__int128 in_sum = sum_arcs(counts, known, a.ins + a.first_in[block],
					   a.first_in[block + 1] - a.first_in[block], &in_unknown,
					   &in_last);
		__int128 out_sum = sum_arcs(counts, known, a.outs + a.first_out[block],
					    a.first_out[block + 1] - a.first_out[block], &out_unknown,
					    &out_last);

		queued[block] = false;
		if (in_unknown == 0 && out_unknown == 1) {
			solved = out_last;
			counts[solved] = in_sum - out_sum;
		} else if (out_unknown == 0 && in_unknown == 1) {
			solved = in_last;
			counts[solved] = out_sum - in_sum;
		} else {
			continue;
		}
		known[solved] = true;
		ends[0] = solved < f->arc_count ? f->arcs[solved].source : EXIT_BLOCK;
		ends[1] = solved < f->arc_count ? f->arcs[solved].destination : ENTRY_BLOCK;
		for (k = 0; k < 2; k++)
			if (!queued[ends[k]]) {
				queued[ends[k]] = true;
				work[work_count++] = ends[k];
			}
	}
	for (i = 0; i < arcs && status == 0; i++) {
		if (!known[i]) {
			*why = xasprintf("%s: the counts of its arcs cannot be solved", f->name);
			status = -1;
		} else if (!fake_arc(f, i) &&
			   (counts[i] < 0 || counts[i] > (__int128)0xffffffffffffffffULL)) {
			*why = xasprintf("%s: its counts do not add up (the arc from block %u to %u "
					 "comes out %s)", f->name, f->arcs[i].source,
					 f->arcs[i].destination, counts[i] < 0 ? "negative" : "past 2^64");
			status = -1;
		}
	}
	for (i = 0; i < n && status == 0; i++) {
		size_t unknown, last;
		__int128 in_sum = sum_arcs(counts, known, a.ins + a.first_in[i],
					   a.first_in[i + 1] - a.first_in[i], &unknown, &last);
		__int128 out_sum = sum_arcs(counts, known, a.outs + a.first_out[i],
					    a.first_out[i + 1] - a.first_out[i], &unknown, &last);

		if (in_sum != out_sum) {
			*why = xasprintf("%s: its counts do not add up (block %zu takes in and gives out "
					 "different counts)", f->name, i);
			status = -1;
		}
	}
	for (i = 0; i < f->arc_count && status == 0; i++) {
		f->arcs[i].count = counts[i] < 0 ? 0 : (unsigned long long)counts[i];
		f->arcs[i].known = true;
	}
	free_adjacency(&a);
	free(work);
	free(counts);
	free(known);
	free(queued);
	return status;
}

/* Gives the arcs of f that have a counter the n counters at r (none read:
   all zero). */
static int take_counters(struct arcs_function *f, struct reader *r, size_t n, bool zero, char **why)
{
	size_t i, used = 0;

	for (i = 0; i < f->arc_count; i++) {
		uint32_t low = 0, high = 0;

		if (f->arcs[i].flags & ARCS_ON_TREE)
			continue;
		if (used++ >= n)
			break;
		if (!zero && (!read_word(r, &low) || !read_word(r, &high))) {
			*why = xasprintf("truncated: the counters of %s", f->name);
			return -1;
		}
		if (high & 0x80000000u) {
			*why = xasprintf("%s: a negative count (no run gives one: the data is corrupt)",
					 f->name);
			return -1;
		}
		f->arcs[i].count = (unsigned long long)high << 32 | low;
		f->arcs[i].known = true;
	}
	if (used != n) {
		*why = xasprintf("%s: %zu counters in the data, the code has %zu", f->name, n, used);
		return -1;
	}
	return 0;
}

/* Reads the records of a data file after its header into object. */
static int read_data_records(struct arcs_object *object, struct reader *r, bool *counted,
			     size_t *next, char **why)
{
	struct arcs_function *f = NULL;
	uint32_t tag, length, ident = 0, lineno = 0, cfg = 0;

	(void)ident;

	while (read_word(r, &tag) && tag != 0) {
		size_t start;

		if (!read_word(r, &length)) {
			*why = xasprintf("truncated: the record at byte %zu has no length", r->at - 4);
			return -1;
		}
		start = r->at;
		if (tag == TAG_ARC_COUNTERS && (int32_t)length < 0) {
			/* gcc 12 writes all-zero counters as the negated length alone */
			size_t n = (size_t)(-(int64_t)(int32_t)length) / 8;

			if (f && take_counters(f, r, n, true, why) < 0)
				return -1;
			if (f)
				counted[f - object->functions] = true;
			continue;
		}
		if ((int32_t)length < 0 || length > r->size - r->at) {
			*why = xasprintf("truncated: the record at byte %zu (tag %08x) does not fit",
					 start - 8, tag);
			return -1;
		}
		if (tag == TAG_FUNCTION) {
			/* the functions come in the order of the notes (the ident
			   hashes the object file's name, which ours does not share) */
			f = NULL;
			if (length >= 12) {
				read_word(r, &ident);
				read_word(r, &lineno);
				read_word(r, &cfg);
				if (*next >= object->count) {
					*why = xasprintf("has more functions than the code (%zu): "
							 "written for other code" OTHER_CODE, object->count);
					return -1;
				}
				f = &object->functions[(*next)++];
				if (f->lineno_checksum != lineno || f->cfg_checksum != cfg) {
					*why = xasprintf("%s: written for other code (the %s checksum "
							 "differs)" OTHER_CODE, f->name,
							 f->cfg_checksum != cfg ? "graph" : "line");
					return -1;
				}
			}
		} else if (tag == TAG_ARC_COUNTERS && f) {
			if (length % 8 || take_counters(f, r, length / 8, false, why) < 0) {
				if (!*why)
					*why = xasprintf("corrupt: the counters of %s", f->name);
				return -1;
			}
			counted[f - object->functions] = true;
		}
		r->at = start + length;
	}
	return 0;
}

int arcs_read_counts(struct arcs_object *object, const char *path, char **why)
{
	struct reader r = { 0 };
	bool *counted = xcalloc(object->count + 1, sizeof(*counted));
	void *map;
	size_t i, next = 0;
	int status = -1;

	*why = NULL;
	if (map_file(path, &map, &r.size, why) < 0) {
		free(counted);
		return -1;
	}
	r.data = map;
	if (read_header(&r, DATA_MAGIC, "data", why) && read_data_records(object, &r, counted, &next, why) == 0)
		status = 0;
	for (i = 0; i < object->count && status == 0; i++) {
		if (!counted[i]) {
			*why = xasprintf("has no counts for %s: written for other code" OTHER_CODE,
					 object->functions[i].name);
			status = -1;
		} else {
			status = solve(&object->functions[i], why);
		}
	}
	munmap(map, r.size);
	free(counted);
	return status;
}

void arcs_free(struct arcs_object *object)
{
	size_t i;

	for (i = 0; i < object->count; i++) {
		free(object->functions[i].name);
		free(object->functions[i].arcs);
	}
	free(object->functions);
	memset(object, 0, sizeof(*object));
}
