/* pagein: a valgrind tool that records, in order, the first touch of every
   code and data page (and, with --granularity=function, the first execution
   of every function) of a program, after the tool Ulrich Drepper describes
   in "What every programmer should know about memory", section 7.5.

   Output: one file per process, pagein.<pid> by default (--out-file, %p is
   the pid), written as FILE.tmp and renamed to FILE when the process ends;
   when a write fails (a full disk) FILE.tmp is removed and FILE, if there
   was one, stays as it was (the launcher, seeing no new FILE, exits
   non-zero).  Lines starting with '#' are the header and the object table:

     # pagein 2 (linkopt VERSION)
     # command: PROGRAM ARGS...
     # pid: PID
     # page-size: N
     # granularity: page|function   (page: no F or O records, whatever ran)
     # time: guest instructions executed since the first record (valgrind
     #   has no cycle counter)
     # columns: SEQ ADDRESS KIND TIME IP: SYMBOL (in OBJECT)
     # object PATH build-id HEX|none base 0xBASE
     # segment PATH 0xSTART-0xEND

   PATH, OBJECT, SYMBOL and each word of the command are written as they
   are when they hold no blank, no control character (bytes 0 to 31, 127),
   no '"' and no '\' and are not empty; otherwise in double quotes, with
   \\, \", \n, \t, \r and \xHH for those bytes (lib/trace.c,
   trace_quote, reads it).  Every other byte stands for itself.  Version 1
   wrote them bare, so a path with a blank did not read back.

   An object line and its segment lines (from the file's PT_LOAD program
   headers, so .bss is included) appear when the object is first mapped,
   before any record that falls into it.  Each record is

      SEQ 0xPAGE KIND TIME 0xIP: FUNCTION (in OBJECT)

   KIND is C (code page first executed), D (data page of a mapped object
   first read or written), H (heap: the brk area), S (a thread's stack),
   A (other anonymous memory), F (function first executed; ADDRESS is the
   function's entry, not a page), or O (data object of a mapped object
   first read or written, with --granularity=function; ADDRESS is the
   object's start and SYMBOL its name).  IP is the instruction that touched it.
   Code and data pages are tracked apart: a page may be reported as C and
   as D.  Pages of valgrind's own preload objects are not reported; the
   stack under valgrind is not where it is natively, so S pages say nothing
   about a native run's stack addresses.  The last line is "# end": a trace
   without it is incomplete.  A symbol longer than 16384 bytes of output is
   cut.

   With --branches=yes, written when the process ends, before "# end":

      B 0xFROM 0xTO COUNT     a branch taken COUNT times: FROM is the branch
                              (jump, call, return) instruction, TO where it went
      R 0xSTART 0xEND COUNT   a run of code executed COUNT times without a
                              branch taken: from START (where a branch went)
                              to the instruction at END (the next branch taken)

   Addresses are the process's; FROM and END lie in a recorded object (one
   --objects selects, every object without it).  A run that entered a
   recorded object from another (a return from libc) starts where it
   entered; a run after a return starts at the call it returns from (a
   call does not end a block for BOLT: the call's block flows on to the
   return point, as BOLT reads a trace that follows a return).  This is
   exactly what a branch-recording profiler (Intel's LBR)
   samples, counted instead of sampled: the pre-aggregated profile BOLT
   reads (see linkopt-bolt/). */

#include "pub_tool_basics.h"
#include "pub_tool_aspacemgr.h"
#include "pub_tool_clientstate.h"
#include "pub_tool_debuginfo.h"
#include "pub_tool_hashtable.h"
#include "pub_tool_libcassert.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_libcfile.h"
#include "pub_tool_libcprint.h"
#include "pub_tool_libcproc.h"
#include "pub_tool_machine.h"
#include "pub_tool_mallocfree.h"
#include "pub_tool_options.h"
#include "pub_tool_seqmatch.h"
#include "pub_tool_threadstate.h"
#include "pub_tool_tooliface.h"
#include "pub_tool_vkiscnums.h"
#include "pub_tool_xarray.h"

#include <elf.h>


/*------------------------------------------------------------*/
/*--- Options                                              ---*/
/*------------------------------------------------------------*/

static const HChar *clo_out_file = "pagein.%p";
static Bool clo_code = True;
static Bool clo_data = True;
static Long clo_page_size = 4096;
static const HChar *clo_objects = NULL;
static Bool clo_functions = False;
static Bool clo_branches = False;

static UInt page_shift = 12;
/* Data accesses call the helper when their site moves to another page, or
   with --granularity=function another 64-byte line (for data objects). */
static UInt data_shift = 12;

static Bool pg_process_cmd_line_option(const HChar *arg)
{
	const HChar *granularity = NULL;

	if VG_STR_CLO(arg, "--out-file", clo_out_file) {}
	else if VG_BOOL_CLO(arg, "--code", clo_code) {}
	else if VG_BOOL_CLO(arg, "--data", clo_data) {}
	else if VG_INT_CLO(arg, "--page-size", clo_page_size) {}
	else if VG_STR_CLO(arg, "--objects", clo_objects) {}
	else if VG_BOOL_CLO(arg, "--branches", clo_branches) {}
	else if VG_STR_CLO(arg, "--granularity", granularity) {
		if (VG_(strcmp)(granularity, "page") == 0)
			clo_functions = False;
		else if (VG_(strcmp)(granularity, "function") == 0)
			clo_functions = True;
		else
			VG_(fmsg_bad_option)(arg, "expected page or function\n");
	}
	else
		return False;
	return True;
}

static void pg_print_usage(void)
{
	VG_(printf)(
"    --out-file=FILE           write the trace to FILE; %%p is the pid [pagein.%%p]\n"
"    --code=yes|no             record code pages [yes]\n"
"    --data=yes|no             record data pages [yes]\n"
"    --page-size=N             page size, a power of two [4096]\n"
"    --objects=GLOB            record only pages of objects whose path matches\n"
"    --granularity=page|function  function: also record the first execution\n"
"                              of every function [page]\n"
"    --branches=yes|no         also count every taken branch and every run of\n"
"                              code between two, in the objects recorded, for\n"
"                              a block-level profile (BOLT's) [no]\n");
}

static void pg_print_debug_usage(void)
{
	VG_(printf)("    (none)\n");
}

/*------------------------------------------------------------*/
/*--- Output                                               ---*/
/*------------------------------------------------------------*/

/* valgrind's core (pub_core_libcfile.h), not in the tool headers: moves
   fd above the client's descriptors, close-on-exec; the client's close,
   dup2 and fcntl cannot reach it there. */
extern Int VG_(safe_fd)(Int fd);

static HChar *out_path;         /* final name */
static HChar *out_temporary;    /* written here, renamed at the end */
static Int out_fd = -1;
static HChar out_buffer[65536];
static Int out_used;
static Int out_error;           /* the errno of the first write that failed, or 0 */

/* The line being built (line_add, line_field), written whole by line_end:
   a field is at most 4 * 4096 bytes (a path) or SYMBOL_ROOM, so a line
   always fits. */
#define LINE_ROOM 40960
#define SYMBOL_ROOM 16384
static HChar line_text[LINE_ROOM];
static Int line_length;

/* After one write failed nothing more is written: the trace is lost, and
   a later write that succeeds (space freed meanwhile) would only hide a
   hole in it. */
static void out_flush(void)
{
	Int done = 0;

	while (out_fd >= 0 && !out_error && done < out_used) {
		Int n = VG_(write)(out_fd, out_buffer + done, out_used - done);

		if (n <= 0) {
			out_error = n < 0 ? -n : VKI_ENOSPC;
			break;
		}
		done += n;
	}
	out_used = 0;
}

static const HChar *error_text(Int error)
{
	static HChar text[32];

	switch (error) {
	case VKI_ENOSPC: return "No space left on device";
	case VKI_EFBIG: return "File too large";
	case VKI_EIO: return "Input/output error";
	case 122: return "Disk quota exceeded"; /* EDQUOT, which vki-linux.h lacks */
	}
	VG_(snprintf)(text, sizeof(text), "error %d", error);
	return text;
}

/* Appends one whole line; flushes only at line boundaries, so a process
   killed outright leaves complete lines only. */
static void out_line(const HChar *line, Int len)
{
	if (out_used + len + 1 > (Int)sizeof(out_buffer))
		out_flush();
	tl_assert(len + 1 <= (Int)sizeof(out_buffer));
	VG_(memcpy)(out_buffer + out_used, line, len);
	out_used += len;
	out_buffer[out_used++] = '\n';
}

static void line_add(const HChar *format, ...) PRINTF_CHECK(1, 2);
static void line_add(const HChar *format, ...)
{
	va_list ap;
	UInt n;

	va_start(ap, format);
	n = VG_(vsnprintf)(line_text + line_length, LINE_ROOM - line_length, format, ap);
	va_end(ap);
	line_length += n < (UInt)(LINE_ROOM - line_length) ? (Int)n : LINE_ROOM - 1 - line_length;
}

static Bool needs_quoting(UChar c)
{
	return c <= ' ' || c == 0x7f || c == '"' || c == '\\';
}

/* Appends text as a field: bare when it can be, else in double quotes with
   C escapes (the form lib/trace.c's trace_quote writes), in at most room
   bytes; a field cut to fit stays well formed. */
static void line_field(const HChar *text, Int room)
{
	const UChar *p;
	Bool bare = *text != '\0';
	Int end = line_length + room - 5 < LINE_ROOM - 5 ? line_length + room - 5 : LINE_ROOM - 5;

	for (p = (const UChar *)text; *p && bare; p++)
		bare = !needs_quoting(*p);
	if (!bare)
		line_text[line_length++] = '"';
	for (p = (const UChar *)text; *p && line_length < end; p++) {
		if (bare || !needs_quoting(*p) || *p == ' ')
			line_text[line_length++] = *p;
		else if (*p == '"' || *p == '\\')
			line_length += VG_(sprintf)(line_text + line_length, "\\%c", *p);
		else if (*p == '\n')
			line_length += VG_(sprintf)(line_text + line_length, "\\n");
		else if (*p == '\t')
			line_length += VG_(sprintf)(line_text + line_length, "\\t");
		else if (*p == '\r')
			line_length += VG_(sprintf)(line_text + line_length, "\\r");
		else
			line_length += VG_(sprintf)(line_text + line_length, "\\x%02x", *p);
	}
	if (!bare)
		line_text[line_length++] = '"';
	line_text[line_length] = '\0';
}

static void line_end(void)
{
	out_line(line_text, line_length);
	line_length = 0;
}

static void out_text(const HChar *text)
{
	line_add("%s", text);
	line_end();
}

/* Set in a fork child: its trace goes beside the parent's. */
static Bool in_fork_child = False;

/* The core's system call, which the tool headers do not declare (fchmod
   has no VG_ wrapper). */
extern SysRes VG_(do_syscall)(UWord sysno, RegWord a1, RegWord a2, RegWord a3, RegWord a4, RegWord a5,
			      RegWord a6, RegWord a7, RegWord a8);

/* Whether path is a symbolic link (readlink succeeds). */
static Bool out_path_is_link(const HChar *path)
{
	HChar target[8];

	return VG_(readlink)(path, target, sizeof(target)) >= 0;
}

/* Whether path is this process's own unfinished trace from before an exec
   (exec keeps the pid, and the image that exec'd never renamed it): a
   regular file of ours, not a link, that begins as a trace of this pid. */
static Bool own_abandoned_trace(const HChar *path)
{
	static HChar head[LINE_ROOM + 4096];
	HChar want[48];
	struct vg_stat st;
	Int fd, n;

	if (out_path_is_link(path) || sr_isError(VG_(stat)(path, &st)) || !VKI_S_ISREG(st.mode) ||
	    st.uid != (UInt)VG_(geteuid)())
		return False;
	fd = VG_(fd_open)(path, VKI_O_RDONLY, 0);
	if (fd < 0)
		return False;
	n = VG_(read)(fd, head, sizeof(head) - 1);
	VG_(close)(fd);
	if (n <= 0)
		return False;
	head[n] = '\0';
	VG_(sprintf)(want, "\n# pid: %d\n", VG_(getpid)());
	return VG_(strncmp)(head, "# pagein ", 9) == 0 && VG_(strstr)(head, want) != NULL;
}

static void out_open(void)
{
	Int i;
	XArray *args = VG_(args_for_client);
	struct vg_stat old;
	Bool replaced;

	out_path = VG_(expand_file_name)("--out-file", clo_out_file);
	if (in_fork_child && !VG_(strstr)(clo_out_file, "%p")) {
		/* The named file is the parent's: a fork child writes beside it. */
		HChar *child = VG_(malloc)("pg.out", VG_(strlen)(out_path) + 32);

		VG_(sprintf)(child, "%s.%d", out_path, VG_(getpid)());
		out_path = child;
	}
	/* linkopt's output rule (lib/output.h): a device or FIFO is written in
	   place; anything else is replaced by a rename (a symbolic link too:
	   what it led to is left as it was) of a temporary file created
	   exclusively, never through a name somebody planted: FILE.tmp.PID,
	   the next free FILE.tmp.PID-N when that name is taken (a file of
	   that name is nobody's to remove).  A new trace gets the mode the
	   umask gives, a replaced regular file keeps its own. */
	out_fd = -1;
	if (!sr_isError(VG_(stat)(out_path, &old)) && (VKI_S_ISCHR(old.mode) || VKI_S_ISFIFO(old.mode))) {
		out_temporary = NULL;
		out_fd = VG_(fd_open)(out_path, VKI_O_WRONLY | VKI_O_TRUNC, 0);
	} else {
		Int n;

		replaced = !sr_isError(VG_(stat)(out_path, &old)) && VKI_S_ISREG(old.mode) && !out_path_is_link(out_path);
		out_temporary = VG_(malloc)("pg.out", VG_(strlen)(out_path) + 48);
		for (n = 0; n < 100 && out_fd < 0; n++) {
			if (n == 0) {
				VG_(sprintf)(out_temporary, "%s.tmp.%d", out_path, VG_(getpid)());
				/* --trace-children=yes across an exec: one trace */
				if (own_abandoned_trace(out_temporary))
					VG_(unlink)(out_temporary);
			} else
				VG_(sprintf)(out_temporary, "%s.tmp.%d-%d", out_path, VG_(getpid)(), n);
			out_fd = VG_(fd_open)(out_temporary, VKI_O_CREAT | VKI_O_EXCL | VKI_O_WRONLY, 0666);
		}
		if (out_fd >= 0 && replaced)
			VG_(do_syscall)(__NR_fchmod, out_fd, old.mode & 07777, 0, 0, 0, 0, 0, 0);
		/* the message names the first name tried, not the hundredth */
		if (out_fd < 0)
			VG_(sprintf)(out_temporary, "%s.tmp.%d", out_path, VG_(getpid)());
	}
	if (out_fd < 0 && in_fork_child) {
		/* the child runs on as it would without the tool */
		VG_(umsg)("pagein: %s: cannot create the trace file; this process goes on untraced\n",
			  out_temporary ? out_temporary : out_path);
		return;
	}
	if (out_fd < 0) {
		VG_(fmsg)("pagein: %s: cannot create the trace file: check that its folder exists "
			  "and is writable\n", out_temporary ? out_temporary : out_path);
		VG_(exit)(1);
	}
	/* Out of the program's own descriptors: it may close every one above
	   2 and open its own files there, and a program it execs inherits
	   nothing. */
	out_fd = VG_(safe_fd)(out_fd);
	out_text("# pagein 2 (linkopt " LINKOPT_VERSION ")");
	line_add("# command: ");
	line_field(VG_(args_the_exename), LINE_ROOM);
	for (i = 0; args && i < VG_(sizeXA)(args) && line_length < LINE_ROOM / 2; i++) {
		line_add(" ");
		line_field(*(HChar **)VG_(indexXA)(args, i), LINE_ROOM / 2 - line_length);
	}
	line_end();
	line_add("# pid: %d", VG_(getpid)());
	line_end();
	line_add("# page-size: %lld", clo_page_size);
	line_end();
	out_text(clo_functions ? "# granularity: function" : "# granularity: page");
	out_text("# time: guest instructions executed since the first record "
		 "(valgrind has no cycle counter)");
	out_text("# columns: SEQ ADDRESS KIND TIME IP: SYMBOL (in OBJECT)");
	out_text("# kinds: C code page, D data page of an object, H heap, S stack, "
		 "A other anonymous memory, F function first executed (ADDRESS is its entry), "
		 "O data object first used (ADDRESS is its start, SYMBOL its name)");
	/* the header at once: the launcher removes a FILE.tmp.PID left by a
	   process that exec'd away only when it begins as a trace does */
	out_flush();
}

/* The trace replaces out_path only when all of it was written: an
   incomplete one is removed and an earlier file of that name is kept. */
static void branches_write(void);

static void out_close(void)
{
	if (out_fd < 0)
		return;
	branches_write();
	out_text("# end");
	out_flush();
	VG_(close)(out_fd);
	out_fd = -1;
	if (!out_temporary) {
		if (out_error)
			VG_(umsg)("pagein: %s: write failed: %s\n", out_path, error_text(out_error));
	} else if (out_error) {
		VG_(unlink)(out_temporary);
		VG_(umsg)("pagein: %s: write failed: %s; the incomplete trace is removed and %s is not replaced\n",
			  out_temporary, error_text(out_error), out_path);
	} else if (VG_(rename)(out_temporary, out_path) != 0) {
		VG_(unlink)(out_temporary);
		VG_(umsg)("pagein: %s: cannot rename to %s; no trace written\n", out_temporary, out_path);
	}
}

/*------------------------------------------------------------*/
/*--- Objects                                              ---*/
/*------------------------------------------------------------*/

typedef struct {
	Addr start, end;   /* [start, end) */
} Range;

typedef struct {
	HChar *path;
	Addr base;
	Range *ranges;     /* one per PT_LOAD, however many the file has */
	Int range_count;
	HChar build_id[80];  /* hex, or "none" */
	Bool selected;     /* matches --objects (or no --objects) */
	Bool valgrind;     /* valgrind's own preload object */
} Object;

static XArray *objects;  /* of Object */
/* The recorded objects lie in [selected_low, selected_high) (--branches:
   a block elsewhere that goes there starts a run). */
static Addr selected_low = ~(Addr)0, selected_high;
static HChar tool_path[4096]; /* this tool's own executable, never the client's */

static Bool read_exact(Int fd, Off64T offset, void *buf, Int len)
{
	if (VG_(lseek)(fd, offset, VKI_SEEK_SET) != offset)
		return False;
	return VG_(read)(fd, buf, len) == len;
}

/* Reads the ELF program headers of path; fills the object's ranges (one
   per PT_LOAD: a linker script may make dozens, each a mapping of its own
   that must be found as this object's) and its base, and the build-id as
   hex.  Returns False if not 64-bit ELF. */
static Bool read_object(Object *o, Addr mapped_at, ULong mapped_offset, HChar *build_id, Int build_id_size)
{
	SysRes sr = VG_(open)(o->path, VKI_O_RDONLY, 0);
	Elf64_Ehdr eh;
	Elf64_Phdr *ph = NULL;
	Int fd, i, n;
	Addr first_vaddr = 0;
	Bool have_first = False;

	VG_(strcpy)(build_id, "none");
	if (sr_isError(sr))
		return False;
	fd = sr_Res(sr);
	if (!read_exact(fd, 0, &eh, sizeof(eh)) || VG_(memcmp)(eh.e_ident, ELFMAG, SELFMAG) != 0 ||
	    eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_phentsize != sizeof(Elf64_Phdr)) {
		VG_(close)(fd);
		return False;
	}
	n = eh.e_phnum;
	if (n == PN_XNUM) {
		/* more than 65534: the count is section 0's sh_info */
		Elf64_Shdr sh0;

		if (!eh.e_shoff || !read_exact(fd, eh.e_shoff, &sh0, sizeof(sh0))) {
			VG_(close)(fd);
			return False;
		}
		n = sh0.sh_info <= (1u << 20) ? (Int)sh0.sh_info : -1;
	}
	if (n < 0) {
		VG_(close)(fd);
		return False;
	}
	ph = VG_(malloc)("pg.phdrs", (n ? n : 1) * sizeof(Elf64_Phdr));
	if (!read_exact(fd, eh.e_phoff, ph, n * sizeof(Elf64_Phdr))) {
		VG_(free)(ph);
		VG_(close)(fd);
		return False;
	}
	for (i = 0; i < n; i++) {
		if (ph[i].p_type == PT_LOAD && ph[i].p_offset <= mapped_offset &&
		    mapped_offset < ph[i].p_offset + (ph[i].p_filesz ? ph[i].p_filesz : 1) && !have_first) {
			/* The mapping at mapped_offset holds this segment's page. */
			first_vaddr = (ph[i].p_vaddr - (ph[i].p_offset - (mapped_offset & ~(ULong)0xfff)));
			have_first = True;
		}
	}
	o->base = have_first ? mapped_at - (first_vaddr & ~(Addr)0xfff) : mapped_at;
	if (eh.e_type == ET_EXEC)
		o->base = 0;
	o->range_count = 0;
	o->ranges = VG_(malloc)("pg.ranges", (n ? n : 1) * sizeof(Range));
	for (i = 0; i < n; i++) {
		if (ph[i].p_type != PT_LOAD)
			continue;
		o->ranges[o->range_count].start = o->base + ph[i].p_vaddr;
		o->ranges[o->range_count].end = o->base + ph[i].p_vaddr + ph[i].p_memsz;
		o->range_count++;
	}
	for (i = 0; i < n; i++) {
		UChar note[1024];
		ULong off = 0, size = ph[i].p_filesz;

		if (ph[i].p_type != PT_NOTE || size > sizeof(note) || !read_exact(fd, ph[i].p_offset, note, size))
			continue;
		while (off + 12 <= size) {
			UInt namesz, descsz, type, k;

			VG_(memcpy)(&namesz, note + off, 4);
			VG_(memcpy)(&descsz, note + off + 4, 4);
			VG_(memcpy)(&type, note + off + 8, 4);
			off += 12;
			if (off + ((namesz + 3) & ~3U) + descsz > size)
				break;
			if (type == NT_GNU_BUILD_ID && namesz == 4 && VG_(memcmp)(note + off, "GNU", 4) == 0 &&
			    descsz * 2 + 1 <= (UInt)build_id_size) {
				const UChar *d = note + off + ((namesz + 3) & ~3U);

				for (k = 0; k < descsz; k++)
					VG_(sprintf)(build_id + 2 * k, "%02x", d[k]);
			}
			off += ((namesz + 3) & ~3U) + ((descsz + 3) & ~3U);
		}
	}
	VG_(free)(ph);
	VG_(close)(fd);
	return True;
}

static Object *object_at(Addr a)
{
	Word i, k;

	if (!objects)
		return NULL;
	for (i = 0; i < VG_(sizeXA)(objects); i++) {
		Object *o = VG_(indexXA)(objects, i);

		for (k = 0; k < o->range_count; k++)
			if (a >= o->ranges[k].start && a < o->ranges[k].end)
				return o;
	}
	return NULL;
}

static void emit_object(const Object *o)
{
	Int k;

	if (o->valgrind)
		return;
	line_add("# object ");
	line_field(o->path, LINE_ROOM);
	line_add(" build-id %s base 0x%lx", o->build_id, o->base);
	line_end();
	for (k = 0; k < o->range_count; k++) {
		line_add("# segment ");
		line_field(o->path, LINE_ROOM);
		line_add(" 0x%lx-0x%lx", o->ranges[k].start, o->ranges[k].end);
		line_end();
	}
}

/* True if a lies on a page that one of the object's segments covers. */
static Bool within_pages_of(const Object *o, Addr a)
{
	Int k;

	for (k = 0; k < o->range_count; k++)
		if (a >= (o->ranges[k].start & ~(Addr)0xfff) && a < ((o->ranges[k].end + 0xfff) & ~(Addr)0xfff))
			return True;
	return False;
}

static void note_mapping(Addr a, SizeT len, Bool rr, Bool ww, Bool xx, ULong di_handle)
{
	NSegment const *seg = VG_(am_find_nsegment)(a);
	const HChar *path;
	Object o, *known;
	HChar build_id[128];
	Word i;

	(void)len; (void)rr; (void)ww; (void)xx; (void)di_handle;
	if (!seg || seg->kind != SkFileC)
		return;
	path = VG_(am_get_filename)(seg);
	if (!path || (tool_path[0] && VG_(strcmp)(path, tool_path) == 0))
		return;
	if (!objects)
		objects = VG_(newXA)(VG_(malloc), "pg.objects", VG_(free), sizeof(Object));
	/* ld.so maps an object at its base first, then its segments over it:
	   a mapping inside a known object's ranges is that object again. */
	for (i = 0; i < VG_(sizeXA)(objects); i++) {
		known = VG_(indexXA)(objects, i);
		if (VG_(strcmp)(known->path, path) == 0 && within_pages_of(known, seg->start))
			return;
	}
	VG_(memset)(&o, 0, sizeof(o));
	o.path = VG_(strdup)("pg.object", path);
	if (!read_object(&o, seg->start, seg->offset, build_id, sizeof(build_id))) {
		VG_(free)(o.path);
		return;
	}
	o.valgrind = VG_(strstr)(path, "/vgpreload_") != NULL;
	o.selected = !o.valgrind && (!clo_objects || VG_(string_match)(clo_objects, path));
	VG_(strncpy)(o.build_id, build_id, sizeof(o.build_id) - 1);
	for (i = 0; o.selected && i < o.range_count; i++) {
		if (o.ranges[i].start < selected_low)
			selected_low = o.ranges[i].start;
		if (o.ranges[i].end > selected_high)
			selected_high = o.ranges[i].end;
	}
	VG_(addToXA)(objects, &o);
	emit_object(&o);
}

/*------------------------------------------------------------*/
/*--- Seen sets                                            ---*/
/*------------------------------------------------------------*/

/* A byte per page, in 2^20-page blocks found through a table indexed by the
   high bits: the byte's address is fixed, so generated code can test it. */
#define BLOCK_BITS 20
#define TOP_ENTRIES (1 << 20)

typedef struct {
	UChar **blocks;
} PageSet;

static PageSet code_pages, data_pages;

static UChar *page_flag(PageSet *set, Addr page)
{
	UWord top = page >> BLOCK_BITS;

	if (top >= TOP_ENTRIES)
		top = TOP_ENTRIES - 1; /* out of any user address range */
	if (!set->blocks)
		set->blocks = VG_(calloc)("pg.pages", TOP_ENTRIES, sizeof(UChar *));
	if (!set->blocks[top])
		set->blocks[top] = VG_(calloc)("pg.pages", 1 << BLOCK_BITS, 1);
	return &set->blocks[top][page & ((1 << BLOCK_BITS) - 1)];
}

typedef struct {
	VgHashNode node;   /* key: function entry address */
	UChar seen;
} FunctionFlag;

static VgHashTable *functions;

/*------------------------------------------------------------*/
/*--- Records                                              ---*/
/*------------------------------------------------------------*/

static ULong instructions;      /* guest instructions executed, updated per block */
static ULong time_origin;
static ULong sequence;
static ULong counts[7];         /* by kind: C D H S A F O */

static const HChar *kind_names = "CDHSAFO";

/* SEQ 0xADDRESS KIND TIME 0xIP: SYMBOL (in OBJECT) */
static void record_line(HChar kind, Addr address, Addr ip, ULong time, const HChar *symbol, const HChar *object)
{
	if (sequence == 0)
		time_origin = time;
	line_add("%4llu 0x%lx %c %12llu 0x%lx: ", ++sequence, address, kind, time - time_origin, ip);
	line_field(symbol, SYMBOL_ROOM);
	line_add(" (in ");
	line_field(object, LINE_ROOM);
	line_add(")");
	line_end();
	counts[VG_(strchr)(kind_names, kind) - kind_names]++;
}

static void record(HChar kind, Addr address, Addr ip, ULong time)
{
	const HChar *fn = "???", *obj = NULL;
	DiEpoch ep = VG_(current_DiEpoch)();
	Object *o;

	if (!VG_(get_fnname)(ep, ip, &fn))
		fn = "???";
	if (!VG_(get_objname)(ep, ip, &obj)) {
		o = object_at(ip);
		obj = o ? o->path : "???";
	}
	record_line(kind, address, ip, time, fn, obj);
}

static void record_object(Addr start, Addr ip, ULong time, const HChar *name, const Object *o)
{
	record_line('O', start, ip, time, name, o->path);
}

/* Data objects seen (--granularity=function): their start addresses. */
static VgHashTable *data_objects;
static PageSet data_lines;

static Bool stack_of_some_thread(Addr a)
{
	ThreadId tid;
	Addr lo, hi;

	VG_(thread_stack_reset_iter)(&tid);
	while (VG_(thread_stack_next)(&tid, &lo, &hi))
		if (a >= lo && a <= hi)
			return True;
	return False;
}

/* The brk area as the client grew it (valgrind places it elsewhere than a
   native run would). */
static Addr heap_low = ~(Addr)0, heap_high;

static void note_brk(Addr a, SizeT len, ThreadId tid)
{
	(void)tid;
	if (a < heap_low)
		heap_low = a;
	if (a + len > heap_high)
		heap_high = a + len;
}

static HChar classify(Addr a, Object **object)
{
	NSegment const *seg;

	*object = object_at(a);
	if (*object)
		return 'D';
	seg = VG_(am_find_nsegment)(a);
	if (seg && (seg->kind == SkFileC || seg->kind == SkShmC))
		return 'D'; /* a mapped file that is no object, as ld.so.cache */
	if ((seg && seg->kind == SkAnonC && seg->isCH) || (a >= heap_low && a < heap_high))
		return 'H';
	if (stack_of_some_thread(a))
		return 'S';
	return 'A';
}

static VG_REGPARM(3) void pg_code(Addr page_address, Addr ip, ULong pending)
{
	UChar *flag = page_flag(&code_pages, page_address >> page_shift);
	Object *o;

	if (*flag)
		return;
	*flag = 1;
	o = object_at(ip);
	if (o && !o->selected)
		return;
	if (!o && clo_objects)
		return;
	record('C', page_address, ip, instructions + pending);
}

static VG_REGPARM(3) void pg_function(Addr entry, FunctionFlag *f, ULong pending)
{
	Object *o;

	if (f->seen)
		return;
	f->seen = 1;
	o = object_at(entry);
	if ((o && !o->selected) || (!o && clo_objects))
		return;
	record('F', entry, entry, instructions + pending);
}

/* The first touch of each data object of a mapped object: checked once
   per 64-byte line, the symbol found through valgrind's debug info. */
static void object_touch(Addr a, Addr ip, ULong pending)
{
	UChar *line = page_flag(&data_lines, a >> 6);
	const HChar *name;
	PtrdiffT offset;
	Object *o;
	VgHashNode *n;

	if (*line)
		return;
	*line = 1;
	o = object_at(a);
	if (!o || o->valgrind || !o->selected)
		return;
	if (!VG_(get_datasym_and_offset)(VG_(current_DiEpoch)(), a, &name, &offset))
		return;
	if (VG_(HT_lookup)(data_objects, a - offset))
		return;
	n = VG_(malloc)("pg.object", sizeof(*n));
	n->key = a - offset;
	VG_(HT_add_node)(data_objects, n);
	record_object(a - offset, ip, instructions + pending, name, o);
}

static void data_touch(Addr a, Addr ip, ULong pending)
{
	Addr page = a >> page_shift;
	UChar *flag = page_flag(&data_pages, page);
	Object *o;
	HChar kind;

	if (clo_functions)
		object_touch(a, ip, pending);
	if (*flag)
		return;
	*flag = 1;
	kind = classify(a, &o);
	if (o && (o->valgrind || !o->selected))
		return;
	if (!o && clo_objects)
		return;
	record(kind, page << page_shift, ip, instructions + pending);
}

/* The generated code calls this only when the access's page differs from
   the last page this access site touched (*site_cache). */
static VG_REGPARM(3) void pg_data(Addr a, Addr ip, ULong *site_cache_and_size)
{
	ULong size = site_cache_and_size[1];
	ULong pending = site_cache_and_size[2];

	site_cache_and_size[0] = a >> data_shift;
	data_touch(a, ip, pending);
	if (size > 1 && ((a + size - 1) >> data_shift) != (a >> data_shift))
		data_touch(a + size - 1, ip, pending);
}

/*------------------------------------------------------------*/
/*--- Branches (--branches=yes)                            ---*/
/*------------------------------------------------------------*/

/* Counted pairs of addresses, in an open-addressed table; a count of 0
   marks a free slot. */
typedef struct {
	Addr a, b;
	ULong count;
} Pair;

typedef struct {
	Pair *slots;
	SizeT size, used; /* size a power of two */
} PairTable;

static PairTable branch_table, run_table;

/* The return points of the recorded objects' calls (a: the return point,
   b: the call), from the code as it is translated. */
static PairTable return_points;

/* Where the run of the thread's code since its last taken branch began
   (0: unknown, after a transfer not seen). */
static Addr *run_start; /* VG_N_THREADS of them */

/* A run longer than this is two runs joined by a transfer not seen (a
   signal, a longjmp): left out. */
#define RUN_LIMIT (1UL << 20)

static SizeT pair_slot(const PairTable *t, Addr a, Addr b)
{
	ULong h = (a * 0x9E3779B97F4A7C15ULL) ^ (b * 0xC2B2AE3D27D4EB4FULL);

	return (SizeT)(h ^ (h >> 29)) & (t->size - 1);
}

static Bool keyed_by_first(const PairTable *t);

static void pair_grow(PairTable *t)
{
	Pair *old = t->slots;
	SizeT old_size = t->size, i, k;

	t->size = old_size ? 2 * old_size : 4096;
	t->slots = VG_(calloc)("pg.pairs", t->size, sizeof(Pair));
	for (i = 0; i < old_size; i++) {
		if (!old[i].count)
			continue;
		for (k = pair_slot(t, old[i].a, keyed_by_first(t) ? 0 : old[i].b); t->slots[k].count;
		     k = (k + 1) & (t->size - 1))
			;
		t->slots[k] = old[i];
	}
	if (old)
		VG_(free)(old);
}

static void pair_count(PairTable *t, Addr a, Addr b)
{
	SizeT k;

	if (2 * (t->used + 1) > t->size)
		pair_grow(t);
	for (k = pair_slot(t, a, b); t->slots[k].count; k = (k + 1) & (t->size - 1))
		if (t->slots[k].a == a && t->slots[k].b == b) {
			t->slots[k].count++;
			return;
		}
	t->slots[k].a = a;
	t->slots[k].b = b;
	t->slots[k].count = 1;
	t->used++;
}

static Bool keyed_by_first(const PairTable *t)
{
	return t == &return_points;
}

/* The b of the pair whose a is a (count 1 marks it), or 0. */
static Addr pair_find(const PairTable *t, Addr a)
{
	SizeT k;

	if (!t->size)
		return 0;
	for (k = pair_slot(t, a, 0); t->slots[k].count; k = (k + 1) & (t->size - 1))
		if (t->slots[k].a == a)
			return t->slots[k].b;
	return 0;
}

static void pair_set(PairTable *t, Addr a, Addr b)
{
	SizeT k;

	if (pair_find(t, a))
		return;
	if (2 * (t->used + 1) > t->size)
		pair_grow(t);
	for (k = pair_slot(t, a, 0); t->slots[k].count; k = (k + 1) & (t->size - 1))
		;
	t->slots[k].a = a;
	t->slots[k].b = b;
	t->slots[k].count = 1;
	t->used++;
}

static void pair_clear(PairTable *t)
{
	if (t->slots)
		VG_(free)(t->slots);
	t->slots = NULL;
	t->size = t->used = 0;
}

static void pair_write(const PairTable *t, HChar kind)
{
	SizeT i;

	for (i = 0; i < t->size; i++)
		if (t->slots[i].count) {
			line_add("%c 0x%lx 0x%lx %llu", kind, t->slots[i].a, t->slots[i].b, t->slots[i].count);
			line_end();
		}
}

/* A branch of a recorded object from the instruction at from to to. */
static VG_REGPARM(2) void pg_taken(Addr from, Addr to)
{
	ThreadId tid = VG_(get_running_tid)();
	Addr start = tid < VG_N_THREADS ? run_start[tid] : 0;

	if (start && start <= from && from - start < RUN_LIMIT)
		pair_count(&run_table, start, from);
	pair_count(&branch_table, from, to);
	if (tid < VG_N_THREADS)
		run_start[tid] = to;
}

/* The end of a block of a recorded object, going to to (known only when
   it runs): a branch unless to is the next instruction. */
static VG_REGPARM(3) void pg_leave(Addr from, Addr to, Addr next)
{
	if (to != next && to != from)
		pg_taken(from, to);
}

/* Code outside the recorded objects goes to to, inside them. */
static VG_REGPARM(1) void pg_enter(Addr to)
{
	ThreadId tid = VG_(get_running_tid)();

	if (tid < VG_N_THREADS)
		run_start[tid] = to;
}

/* A return to to: the run goes on from the call before to, when a
   recorded call returns there.  BOLT's blocks do not end at calls, so the
   call's block flows on to the return point, as a branch-recording
   profiler's trace from the return shows BOLT; started at to, the run
   would leave a block that starts at a return point without a count. */
static void run_from_call(Addr to)
{
	ThreadId tid = VG_(get_running_tid)();
	Addr call = pair_find(&return_points, to);

	if (tid < VG_N_THREADS)
		run_start[tid] = call ? call : to;
}

static VG_REGPARM(2) void pg_return(Addr from, Addr to)
{
	if (to == from)
		return;
	pg_taken(from, to);
	run_from_call(to);
}

static VG_REGPARM(1) void pg_enter_return(Addr to)
{
	run_from_call(to);
}

static void branches_write(void)
{
	if (!clo_branches)
		return;
	pair_write(&branch_table, 'B');
	pair_write(&run_table, 'R');
}

static void branches_clear(void)
{
	pair_clear(&branch_table);
	pair_clear(&run_table);
	if (run_start)
		VG_(memset)(run_start, 0, VG_N_THREADS * sizeof(*run_start));
}

/*------------------------------------------------------------*/
/*--- Instrumentation                                      ---*/
/*------------------------------------------------------------*/

static IRTemp add_tmp(IRSB *sb, IRType ty, IRExpr *e)
{
	IRTemp t = newIRTemp(sb->tyenv, ty);

	addStmtToIRSB(sb, IRStmt_WrTmp(t, e));
	return t;
}

static void flush_count(IRSB *sb, ULong *pending)
{
	IRTemp old, sum;

	if (*pending == 0)
		return;
	old = add_tmp(sb, Ity_I64, IRExpr_Load(Iend_LE, Ity_I64, mkIRExpr_HWord((HWord)&instructions)));
	sum = add_tmp(sb, Ity_I64, IRExpr_Binop(Iop_Add64, IRExpr_RdTmp(old), IRExpr_Const(IRConst_U64(*pending))));
	addStmtToIRSB(sb, IRStmt_Store(Iend_LE, mkIRExpr_HWord((HWord)&instructions), IRExpr_RdTmp(sum)));
	*pending = 0;
}

/* Calls fn(args) when the byte at flag is still zero. */
static void call_if_unseen(IRSB *sb, UChar *flag, const HChar *name, void *fn, IRExpr **args)
{
	IRTemp v = add_tmp(sb, Ity_I8, IRExpr_Load(Iend_LE, Ity_I8, mkIRExpr_HWord((HWord)flag)));
	IRTemp unseen = add_tmp(sb, Ity_I1, IRExpr_Binop(Iop_CmpEQ8, IRExpr_RdTmp(v), IRExpr_Const(IRConst_U8(0))));
	IRDirty *d = unsafeIRDirty_0_N(3, name, VG_(fnptr_to_fnentry)(fn), args);

	d->guard = IRExpr_RdTmp(unseen);
	addStmtToIRSB(sb, IRStmt_Dirty(d));
}

static void instrument_code(IRSB *sb, Addr ip, UInt len, ULong pending)
{
	Addr first = ip >> page_shift, last = (ip + (len ? len : 1) - 1) >> page_shift, p;

	for (p = first; p <= last; p++) {
		UChar *flag = page_flag(&code_pages, p);

		if (*flag)
			continue;
		call_if_unseen(sb, flag, "pg_code", pg_code,
			       mkIRExprVec_3(mkIRExpr_HWord(p << page_shift), mkIRExpr_HWord(ip),
					     mkIRExpr_HWord(pending)));
	}
}

static void instrument_function(IRSB *sb, Addr ip, ULong pending)
{
	const HChar *name;
	FunctionFlag *f;

	if (!VG_(get_fnname_if_entry)(VG_(current_DiEpoch)(), ip, &name))
		return;
	f = VG_(HT_lookup)(functions, ip);
	if (!f) {
		f = VG_(calloc)("pg.function", 1, sizeof(*f));
		f->node.key = ip;
		VG_(HT_add_node)(functions, f);
	}
	if (f->seen)
		return;
	call_if_unseen(sb, &f->seen, "pg_function", pg_function,
		       mkIRExprVec_3(mkIRExpr_HWord(ip), mkIRExpr_HWord((HWord)f), mkIRExpr_HWord(pending)));
}

/* A data access at addr (an atom) of size bytes, under guard (or NULL). */
static void instrument_data(IRSB *sb, IRExpr *addr, Int size, IRExpr *guard, Addr ip, ULong pending)
{
	ULong *site = VG_(malloc)("pg.site", 3 * sizeof(ULong));
	IRTemp page, cached, differ;
	IRDirty *d;

	site[0] = ~0ULL;
	site[1] = size;
	site[2] = pending;
	page = add_tmp(sb, Ity_I64, IRExpr_Binop(Iop_Shr64, addr, IRExpr_Const(IRConst_U8(data_shift))));
	cached = add_tmp(sb, Ity_I64, IRExpr_Load(Iend_LE, Ity_I64, mkIRExpr_HWord((HWord)site)));
	differ = add_tmp(sb, Ity_I1, IRExpr_Binop(Iop_CmpNE64, IRExpr_RdTmp(page), IRExpr_RdTmp(cached)));
	if (guard)
		differ = add_tmp(sb, Ity_I1, IRExpr_Binop(Iop_And1, IRExpr_RdTmp(differ), guard));
	d = unsafeIRDirty_0_N(3, "pg_data", VG_(fnptr_to_fnentry)(pg_data),
			      mkIRExprVec_3(addr, mkIRExpr_HWord(ip), mkIRExpr_HWord((HWord)site)));
	d->guard = IRExpr_RdTmp(differ);
	addStmtToIRSB(sb, IRStmt_Dirty(d));
}

/* True if the code at a belongs to a recorded object. */
static Bool recorded_code(Addr a)
{
	const Object *o = object_at(a);

	return o && o->selected && !o->valgrind;
}

static Bool is_transfer(IRJumpKind jk)
{
	return jk == Ijk_Boring || jk == Ijk_Call || jk == Ijk_Ret;
}

static void call_branch_helper(IRSB *sb, IRExpr *guard, Int n, const HChar *name, void *fn, IRExpr **args)
{
	IRDirty *d = unsafeIRDirty_0_N(n, name, VG_(fnptr_to_fnentry)(fn), args);

	if (guard)
		d->guard = guard;
	addStmtToIRSB(sb, IRStmt_Dirty(d));
}

/* A transfer from the instruction at from (of len bytes) to the constant
   to, taken under guard (NULL: always). */
static void instrument_transfer(IRSB *sb, IRExpr *guard, Addr from, UInt len, Addr to)
{
	if (recorded_code(from)) {
		if (to != from + len && to != from)
			call_branch_helper(sb, guard, 2, "pg_taken", pg_taken,
					   mkIRExprVec_2(mkIRExpr_HWord(from), mkIRExpr_HWord(to)));
	} else if (recorded_code(to)) {
		call_branch_helper(sb, guard, 1, "pg_enter", pg_enter, mkIRExprVec_1(mkIRExpr_HWord(to)));
	}
}

/* An inline test that the address next lies among the recorded objects. */
static IRExpr *inside_recorded(IRSB *sb, IRExpr *next)
{
	IRTemp low = add_tmp(sb, Ity_I64, IRExpr_Load(Iend_LE, Ity_I64, mkIRExpr_HWord((HWord)&selected_low)));
	IRTemp high = add_tmp(sb, Ity_I64, IRExpr_Load(Iend_LE, Ity_I64, mkIRExpr_HWord((HWord)&selected_high)));
	IRTemp above = add_tmp(sb, Ity_I1, IRExpr_Binop(Iop_CmpLE64U, IRExpr_RdTmp(low), next));
	IRTemp below = add_tmp(sb, Ity_I1, IRExpr_Binop(Iop_CmpLT64U, next, IRExpr_RdTmp(high)));

	return IRExpr_RdTmp(add_tmp(sb, Ity_I1, IRExpr_Binop(Iop_And1, IRExpr_RdTmp(above), IRExpr_RdTmp(below))));
}

/* The end of a block: the instruction at last (len bytes) goes to next. */
static void instrument_block_end(IRSB *sb, IRExpr *next, IRJumpKind jk, Addr last, UInt len)
{
	if (!is_transfer(jk) || !last)
		return;
	if (jk == Ijk_Call && recorded_code(last))
		pair_set(&return_points, last + len, last);
	if (jk == Ijk_Ret) {
		if (recorded_code(last)) {
			call_branch_helper(sb, NULL, 2, "pg_return", pg_return,
					   mkIRExprVec_2(mkIRExpr_HWord(last), next));
			return;
		}
		call_branch_helper(sb, inside_recorded(sb, next), 1, "pg_enter_return", pg_enter_return,
				   mkIRExprVec_1(next));
		return;
	}
	if (next->tag == Iex_Const) {
		instrument_transfer(sb, NULL, last, len, (Addr)next->Iex.Const.con->Ico.U64);
		return;
	}
	if (recorded_code(last)) {
		call_branch_helper(sb, NULL, 3, "pg_leave", pg_leave,
				   mkIRExprVec_3(mkIRExpr_HWord(last), next, mkIRExpr_HWord(last + len)));
		return;
	}
	/* another object's code: a run starts when it goes into a recorded
	   object, tested inline */
	call_branch_helper(sb, inside_recorded(sb, next), 1, "pg_enter", pg_enter, mkIRExprVec_1(next));
}

static IRSB *pg_instrument(VgCallbackClosure *closure, IRSB *in, const VexGuestLayout *layout,
			   const VexGuestExtents *vge, const VexArchInfo *archinfo_host,
			   IRType gWordTy, IRType hWordTy)
{
	IRSB *out;
	Int i;
	ULong pending = 0;
	Addr ip = 0;
	UInt len = 0;

	(void)closure; (void)layout; (void)vge; (void)archinfo_host; (void)hWordTy;
	if (gWordTy != Ity_I64)
		VG_(tool_panic)("pagein: only 64-bit guests are supported");
	out = deepCopyIRSBExceptStmts(in);
	for (i = 0; i < in->stmts_used && in->stmts[i]->tag != Ist_IMark; i++)
		addStmtToIRSB(out, in->stmts[i]);
	for (; i < in->stmts_used; i++) {
		IRStmt *st = in->stmts[i];

		if (!st || st->tag == Ist_NoOp)
			continue;
		switch (st->tag) {
		case Ist_IMark: {
			Addr next_ip = st->Ist.IMark.addr + st->Ist.IMark.delta;

			/* VEX follows direct jumps into one block: a jump taken
			   whenever the code gets here */
			if (clo_branches && ip && next_ip != ip + len)
				instrument_transfer(out, NULL, ip, len, next_ip);
			ip = next_ip;
			len = st->Ist.IMark.len;
			pending++;
			if (clo_code)
				instrument_code(out, ip, st->Ist.IMark.len, pending);
			if (clo_functions)
				instrument_function(out, ip, pending);
			break;
		}
		case Ist_WrTmp:
			if (clo_data && st->Ist.WrTmp.data->tag == Iex_Load) {
				IRExpr *e = st->Ist.WrTmp.data;

				instrument_data(out, e->Iex.Load.addr, sizeofIRType(e->Iex.Load.ty), NULL, ip, pending);
			}
			break;
		case Ist_Store:
			if (clo_data)
				instrument_data(out, st->Ist.Store.addr,
						sizeofIRType(typeOfIRExpr(in->tyenv, st->Ist.Store.data)), NULL, ip, pending);
			break;
		case Ist_StoreG:
			if (clo_data) {
				IRStoreG *sg = st->Ist.StoreG.details;

				instrument_data(out, sg->addr, sizeofIRType(typeOfIRExpr(in->tyenv, sg->data)),
						sg->guard, ip, pending);
			}
			break;
		case Ist_LoadG:
			if (clo_data) {
				IRLoadG *lg = st->Ist.LoadG.details;
				IRType wide = Ity_INVALID, narrow = Ity_INVALID;

				typeOfIRLoadGOp(lg->cvt, &wide, &narrow);
				instrument_data(out, lg->addr, sizeofIRType(narrow), lg->guard, ip, pending);
			}
			break;
		case Ist_Dirty:
			if (clo_data) {
				IRDirty *d = st->Ist.Dirty.details;

				if (d->mFx != Ifx_None && d->mAddr && d->mSize > 0 &&
				    (d->mAddr->tag == Iex_RdTmp || d->mAddr->tag == Iex_Const))
					instrument_data(out, d->mAddr, d->mSize, NULL, ip, pending);
			}
			break;
		case Ist_CAS:
			if (clo_data) {
				IRCAS *cas = st->Ist.CAS.details;
				Int size = sizeofIRType(typeOfIRExpr(in->tyenv, cas->dataLo));

				instrument_data(out, cas->addr, cas->dataHi ? 2 * size : size, NULL, ip, pending);
			}
			break;
		case Ist_LLSC:
			if (clo_data) {
				IRType t = st->Ist.LLSC.storedata ? typeOfIRExpr(in->tyenv, st->Ist.LLSC.storedata)
								  : typeOfIRTemp(in->tyenv, st->Ist.LLSC.result);

				instrument_data(out, st->Ist.LLSC.addr, sizeofIRType(t), NULL, ip, pending);
			}
			break;
		case Ist_Exit:
			flush_count(out, &pending);
			if (clo_branches && is_transfer(st->Ist.Exit.jk))
				instrument_transfer(out, st->Ist.Exit.guard, ip, len,
						    (Addr)st->Ist.Exit.dst->Ico.U64);
			break;
		default:
			break;
		}
		addStmtToIRSB(out, st);
	}
	flush_count(out, &pending);
	if (clo_branches)
		instrument_block_end(out, out->next, out->jumpkind, ip, len);
	return out;
}

/*------------------------------------------------------------*/
/*--- Start, fork, end                                     ---*/
/*------------------------------------------------------------*/

static void pg_atfork_pre(ThreadId tid)
{
	(void)tid;
	out_flush();
}

/* The child writes a file of its own from here on; the pages its parent
   touched before the fork are not reported again. */
static void pg_atfork_child(ThreadId tid)
{
	Word i;

	(void)tid;
	out_used = 0;
	out_error = 0;
	in_fork_child = True;
	if (out_fd >= 0)
		VG_(close)(out_fd);
	out_fd = -1;
	sequence = 0;
	VG_(memset)(counts, 0, sizeof(counts));
	branches_clear();
	out_open();
	for (i = 0; objects && i < VG_(sizeXA)(objects); i++)
		emit_object(VG_(indexXA)(objects, i));
}

/* A fork child that execs keeps no trace: what it touched before the exec
   is not kept (pagein(1)), and without --trace-children=yes nothing would
   ever complete its file.  The parent's own exec is the launcher's to
   report. */
static void pg_pre_syscall(ThreadId tid, UInt syscall_number, UWord *args, UInt arg_count)
{
	(void)tid;
	(void)args;
	(void)arg_count;
	if ((syscall_number != __NR_execve && syscall_number != __NR_execveat) || !in_fork_child || out_fd < 0)
		return;
	VG_(close)(out_fd);
	out_fd = -1;
	out_used = 0;
	if (out_temporary)
		VG_(unlink)(out_temporary);
}

static void pg_post_syscall(ThreadId tid, UInt syscall_number, UWord *args, UInt arg_count, SysRes result)
{
	(void)tid;
	(void)syscall_number;
	(void)args;
	(void)arg_count;
	(void)result;
}

static void pg_post_clo_init(void)
{
	if (clo_page_size < 512 || clo_page_size > (1 << 24) || (clo_page_size & (clo_page_size - 1)))
		VG_(fmsg_bad_option)("--page-size", "must be a power of two from 512 to 16777216\n");
	for (page_shift = 0; (1LL << page_shift) < clo_page_size; page_shift++)
		;
	data_shift = clo_functions ? 6 : page_shift;
	data_objects = VG_(HT_construct)("pg.data_objects");
	if (!objects)
		objects = VG_(newXA)(VG_(malloc), "pg.objects", VG_(free), sizeof(Object));
	functions = VG_(HT_construct)("pg.functions");
	if (clo_branches)
		run_start = VG_(calloc)("pg.runs", VG_N_THREADS, sizeof(*run_start));
	/* Real symbol names: _start and __libc_start_main, not "(below main)". */
	VG_(clo_show_below_main) = True;
	/* VEX's chasing puts code that may not run into a block (the second
	   test of an "a && b" merged with the first, a call's callee), and a
	   record at each instruction would then count pages and functions
	   that never ran (18 of 68 code pages of a BOLTed SQLite shell).
	   Exact first touches need blocks that hold only code that runs. */
	VG_(clo_vex_control).guest_chase = False;
	out_open();
}

/* valgrind 3.19 reads the line tables and the compile units of a file's
   DWARF as it maps the file, and its reader misreads the DWARF 5 that
   clang 14 and later write by default (DW_FORM_strx1, addrx, rnglistx in
   the compile unit's first entry): it reads past the file and then ends
   the whole run ("Possibly corrupted debuginfo file ... Giving up").
   pagein needs the symbol table (.symtab, .dynsym: names and function
   entries) and the call frames (.eh_frame: unwinding), which it reads
   apart, and no line numbers, variables nor inlined frames: the link
   (pagein/build.mk, --wrap) routes the core's calls of these two readers
   here, where they read nothing.  The program traced is the real one, at
   its own path, with its own addresses. */
void __wrap_vgModuleLocal_read_debuginfo_dwarf3(void);
void __wrap_vgModuleLocal_read_debuginfo_dwarf3(void)
{
}

void __wrap_vgModuleLocal_new_dwarf3_reader(void);
void __wrap_vgModuleLocal_new_dwarf3_reader(void)
{
}

/* The file whose debug information valgrind is reading, or NULL: if it
   gives up on it (it ends the run with VG_(exit)), the trace says so in a
   last line, "# unreadable-debuginfo PATH", which the launcher reports
   instead of guessing why no trace came. */
static const DebugInfo *reading_debuginfo;

Bool __real_vgModuleLocal_read_elf_debug_info(DebugInfo *di);
Bool __wrap_vgModuleLocal_read_elf_debug_info(DebugInfo *di);
Bool __wrap_vgModuleLocal_read_elf_debug_info(DebugInfo *di)
{
	Bool read;

	reading_debuginfo = di;
	read = __real_vgModuleLocal_read_elf_debug_info(di);
	reading_debuginfo = NULL;
	return read;
}

void __real_vgPlain_exit(Int status) __attribute__((noreturn));
void __wrap_vgPlain_exit(Int status) __attribute__((noreturn));
void __wrap_vgPlain_exit(Int status)
{
	if (reading_debuginfo && out_fd >= 0) {
		const HChar *path = VG_(DebugInfo_get_filename)(reading_debuginfo);

		line_add("# unreadable-debuginfo ");
		line_field(path ? path : "?", 4 * 4096);
		line_end();
		out_flush();
	}
	__real_vgPlain_exit(status);
}

static void pg_fini(Int exitcode)
{
	(void)exitcode;
	out_close();
	if (VG_(clo_verbosity) > 0)
		VG_(umsg)("pagein: %s: %llu code pages, %llu object data pages, %llu heap, %llu stack, "
			  "%llu other anonymous; %llu functions, %llu data objects\n", out_path, counts[0], counts[1],
			  counts[2], counts[3], counts[4], counts[5], counts[6]);
}

static void pg_pre_clo_init(void)
{
	SSizeT n = VG_(readlink)("/proc/self/exe", tool_path, sizeof(tool_path) - 1);

	tool_path[n > 0 ? n : 0] = '\0';
	VG_(details_name)("pagein");
	VG_(details_version)(LINKOPT_VERSION);
	VG_(details_description)("records the first touch of every page and function");
	VG_(details_copyright_author)("linkopt, after Ulrich Drepper's pagein");
	VG_(details_bug_reports_to)("the linkopt issue tracker");
	VG_(details_avg_translation_sizeB)(400);
	VG_(basic_tool_funcs)(pg_post_clo_init, pg_instrument, pg_fini);
	VG_(needs_command_line_options)(pg_process_cmd_line_option, pg_print_usage, pg_print_debug_usage);
	VG_(track_new_mem_startup)(note_mapping);
	VG_(track_new_mem_mmap)(note_mapping);
	VG_(track_new_mem_brk)(note_brk);
	VG_(atfork)(pg_atfork_pre, NULL, pg_atfork_child);
	VG_(needs_syscall_wrapper)(pg_pre_syscall, pg_post_syscall);
}

VG_DETERMINE_INTERFACE_VERSION(pg_pre_clo_init)
