#define _GNU_SOURCE /* vasprintf */
#include "html.h"
#include "util.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#define COLUMNS 32      /* pages in a row: 128 KiB of 4 KiB pages, the default read-ahead */
#define WINDOW 16       /* a guide every 16 pages: the kernel's 64 KiB fault-around */
#define PITCH 18
#define CELL 15
#define ROW 20          /* a cell, the hot range's bar under it, a gap */
#define LABEL_WIDTH 64

static const char *const side_names[2] = { "before", "after" };
static const char *const relation_keys[] = {
	[RELATION_SAME_BUILD] = "same-build", [RELATION_SAME_PROGRAM] = "same-program",
	[RELATION_RELINKED_IN_PLACE] = "relinked-in-place", [RELATION_RELINKED_ELSEWHERE] = "relinked-elsewhere",
	[RELATION_RELINKED_RENAMED] = "relinked-renamed", [RELATION_UNRELATED] = "unrelated",
};

/* The length of the valid UTF-8 sequence at s (of n bytes), or 0. */
static size_t utf8_length(const unsigned char *s, size_t n)
{
	size_t need, i;

	if (s[0] >= 0xC2 && s[0] <= 0xDF)
		need = 2;
	else if (s[0] >= 0xE0 && s[0] <= 0xEF)
		need = 3;
	else if (s[0] >= 0xF0 && s[0] <= 0xF4)
		need = 4;
	else
		return 0;
	if (n < need)
		return 0;
	for (i = 1; i < need; i++)
		if ((s[i] & 0xC0) != 0x80)
			return 0;
	/* overlong forms, surrogates, beyond U+10FFFF */
	if ((s[0] == 0xE0 && s[1] < 0xA0) || (s[0] == 0xED && s[1] > 0x9F) || (s[0] == 0xF0 && s[1] < 0x90) ||
	    (s[0] == 0xF4 && s[1] > 0x8F))
		return 0;
	return need;
}

void html_text(FILE *f, const char *text)
{
	const unsigned char *s = (const unsigned char *)(text ? text : "");
	size_t n = strlen((const char *)s), i = 0, k;

	while (i < n) {
		unsigned char c = s[i];

		switch (c) {
		case '&': fputs("&amp;", f); break;
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '"': fputs("&quot;", f); break;
		case '\'': fputs("&#39;", f); break;
		default:
			if (c < 0x20 || c == 0x7f) {
				fprintf(f, "\\x%02x", c);
			} else if (c < 0x80) {
				fputc(c, f);
			} else if ((k = utf8_length(s + i, n - i)) > 0) {
				fwrite(s + i, 1, k, f);
				i += k;
				continue;
			} else {
				fprintf(f, "\\x%02x", c);
			}
		}
		i++;
	}
}

/* html_text of a formatted string. */
static void html_textf(FILE *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void html_textf(FILE *f, const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		fatal("cannot format text: out of memory");
	va_end(ap);
	html_text(f, s);
	free(s);
}

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash && slash[1] ? slash + 1 : path;
}

/* viridis, from the first touch (0) to the last (1): dark to light, and
   still ordered when printed in grey */
static const unsigned char scale[9][3] = {
	{ 0x44, 0x01, 0x54 }, { 0x47, 0x2d, 0x7b }, { 0x3b, 0x52, 0x8b }, { 0x2c, 0x72, 0x8e }, { 0x21, 0x91, 0x8c },
	{ 0x28, 0xae, 0x80 }, { 0x5e, 0xc9, 0x62 }, { 0xad, 0xdc, 0x30 }, { 0xfd, 0xe7, 0x25 },
};

static void colour(double x, char out[8])
{
	double at;
	int i, k, c[3];

	if (!(x >= 0))
		x = 0;
	if (x > 1)
		x = 1;
	at = x * 8;
	i = (int)at;
	if (i >= 8)
		i = 7;
	for (k = 0; k < 3; k++)
		c[k] = (int)(scale[i][k] + (scale[i + 1][k] - scale[i][k]) * (at - i) + 0.5);
	snprintf(out, 8, "#%02x%02x%02x", c[0], c[1], c[2]);
}

#define UNTOUCHED "#e3e3e3"
#define UNTOUCHED_READ "#a9a9a9"
#define NOT_IN_FILE "#ffffff"
#define HOT_MARK "#d62728"

static const char *plural(uint64_t n)
{
	return n == 1 ? "" : "s";
}

static void ratio(FILE *f, double after, double before)
{
	if (before > 0)
		fprintf(f, " <span class=\"ratio\">(%.2fx)</span>", after / before);
}

static void print_seconds(FILE *f, double s)
{
	if (s < 1e-3)
		fprintf(f, "%.0f us", s * 1e6);
	else if (s < 1)
		fprintf(f, "%.1f ms", s * 1e3);
	else
		fprintf(f, "%.2f s", s);
}

static const char *style =
	"body{font:14px/1.4 system-ui,sans-serif;margin:16px 24px;color:#222;background:#fff}\n"
	"h1{font-size:22px;margin:0 0 6px}h2{font-size:18px;margin:22px 0 4px;border-bottom:1px solid #ccc}\n"
	"h3{font-size:15px;margin:6px 0}h4{font-size:13px;margin:10px 0 2px;font-weight:600}\n"
	"code,.mono{font-family:ui-monospace,monospace;font-size:12px}\n"
	".sides{display:flex;flex-wrap:wrap;gap:28px;align-items:flex-start}\n"
	".side{flex:0 0 auto;width:660px}\n"
	"table{border-collapse:collapse;margin:4px 0}th,td{padding:1px 10px 1px 0;text-align:left;vertical-align:top}\n"
	"td.n{text-align:right;font-variant-numeric:tabular-nums}th{font-weight:500;color:#444}\n"
	".ratio{color:#555}.sections{color:#555;font-size:12px;margin:0 0 4px}\n"
	".warning{color:#a00000;font-weight:600}.note{color:#444;max-width:1100px}\n"
	".legend{display:flex;flex-wrap:wrap;gap:18px;align-items:center;margin:8px 0}\n"
	"ul.order{margin:4px 0;padding-left:20px}\n"
	"svg text{font:9px ui-monospace,monospace;fill:#555}\n";

/* The time (or order) scale of an object's grids: both sides share it. */
struct time_scale {
	uint64_t first, last;   /* the first and the last first touch of the object's pages, both sides */
};

static void scale_bar(FILE *f, const struct html_report *r, const struct time_scale *t, size_t object)
{
	char c[8];
	int i;

	fprintf(f, "<div class=\"legend\"><svg class=\"scale\" width=\"330\" height=\"30\" role=\"img\" "
		   "aria-label=\"colour scale\"><defs><linearGradient id=\"scale%zu\">", object);
	for (i = 0; i <= 8; i++) {
		colour(i / 8.0, c);
		fprintf(f, "<stop offset=\"%d%%\" stop-color=\"%s\"/>", i * 100 / 8, c);
	}
	fprintf(f, "</linearGradient></defs><rect x=\"0\" y=\"2\" width=\"320\" height=\"12\" fill=\"url(#scale%zu)\"/>",
		object);
	if (r->by_order)
		fprintf(f, "<text x=\"0\" y=\"26\">first page touched</text>"
			   "<text x=\"320\" y=\"26\" text-anchor=\"end\">last</text></svg>");
	else
		fprintf(f, "<text x=\"0\" y=\"26\">instruction %llu</text><text x=\"320\" y=\"26\" "
			   "text-anchor=\"end\">instruction %llu</text></svg>", (unsigned long long)t->first,
			(unsigned long long)t->last);
	fprintf(f, "<span>%s</span></div>\n", r->by_order ? "colour: the order in which start-up first touched the "
		   "pages" : "colour: when start-up first touched the page (guest instructions since the trace began)");
}

static void legend(FILE *f)
{
	fprintf(f, "<div class=\"legend\">");
	fprintf(f, "<span><svg width=\"10\" height=\"10\"><rect width=\"10\" height=\"10\" fill=\"%s\"/></svg> "
		   "touched: coloured by when</span>\n", "#21918c");
	fprintf(f, "<span><svg width=\"10\" height=\"10\"><rect width=\"10\" height=\"10\" fill=\"%s\"/></svg> "
		   "untouched</span>\n", UNTOUCHED);
	fprintf(f, "<span><svg width=\"10\" height=\"10\"><rect width=\"10\" height=\"10\" fill=\"%s\"/></svg> "
		   "untouched, read at a cold start (model)</span>\n", UNTOUCHED_READ);
	fprintf(f, "<span><svg width=\"10\" height=\"10\"><rect x=\"0.5\" y=\"0.5\" width=\"9\" height=\"9\" fill=\"%s\" "
		   "stroke=\"#bbb\"/></svg> not in the file (.bss)</span>\n", NOT_IN_FILE);
	fprintf(f, "<span><svg width=\"10\" height=\"10\"><rect y=\"7\" width=\"10\" height=\"3\" fill=\"%s\"/></svg> "
		   "hot range</span></div>\n", HOT_MARK);
}

/* The tooltip of a page. */
static void page_title(FILE *f, const struct model_object *m, const struct model_page *p)
{
	fprintf(f, "<title>");
	html_textf(f, "0x%llx", (unsigned long long)p->address);
	if (p->sections)
		html_textf(f, " (%s)", p->sections);
	fprintf(f, ": ");
	if (p->code)
		html_textf(f, "code first run at instruction %llu", (unsigned long long)p->code_time);
	if (p->code && p->data)
		fprintf(f, "; ");
	if (p->data)
		html_textf(f, "data first used at instruction %llu", (unsigned long long)p->data_time);
	if (p->rank) {
		html_textf(f, "; page %zu of the %zu start-up touched", p->rank, m->touched);
		if (p->symbol)
			html_textf(f, ", first by %s", p->symbol);
	} else {
		fprintf(f, "not touched");
	}
	if (p->in_file)
		html_textf(f, "; file page %llu%s", (unsigned long long)p->file_page,
			   p->read ? ", read at a cold start" : "");
	else
		fprintf(f, "; not in the file");
	if (p->hot)
		fprintf(f, "; in the hot range");
	fprintf(f, "</title>");
}

static void grid(FILE *f, const struct html_report *r, const struct model_object *m, const struct model_segment *seg,
		 const struct time_scale *t)
{
	size_t rows = (seg->page_count + COLUMNS - 1) / COLUMNS, k;
	int width = LABEL_WIDTH + COLUMNS * PITCH, height = (int)rows * ROW + 2, column;

	fprintf(f, "<svg class=\"grid\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" role=\"img\">\n", width, height,
		width, height);
	for (column = WINDOW; column < COLUMNS; column += WINDOW)
		fprintf(f, "<line x1=\"%d\" y1=\"0\" x2=\"%d\" y2=\"%d\" stroke=\"#ddd\"/>\n",
			LABEL_WIDTH + column * PITCH - 2, LABEL_WIDTH + column * PITCH - 2, height);
	for (k = 0; k < seg->page_count; k++) {
		const struct model_page *p = &seg->pages[k];
		int x = LABEL_WIDTH + (int)(k % COLUMNS) * PITCH, y = (int)(k / COLUMNS) * ROW + 1;
		char fill[8];
		const char *stroke = "";

		if (k % COLUMNS == 0)
			fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">0x%llx</text>\n", LABEL_WIDTH - 6, y + CELL,
				(unsigned long long)p->address);
		if (p->rank)
			colour(r->by_order ? (m->touched > 1 ? (double)(p->rank - 1) / (m->touched - 1) : 0)
					   : (t->last > t->first ? (double)(p->time - t->first) / (t->last - t->first) : 0),
			       fill);
		else
			snprintf(fill, sizeof(fill), "%s", !p->in_file ? NOT_IN_FILE : p->read ? UNTOUCHED_READ : UNTOUCHED);
		if (!p->in_file)
			stroke = " stroke=\"#bbb\" stroke-width=\"0.8\"";
		fprintf(f, "<rect class=\"page %s%s%s%s%s\" x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"%s\"%s "
			   "data-address=\"0x%llx\"", p->rank ? "touched" : "untouched", p->code ? " code" : "",
			p->data ? " data" : "", p->read ? " read" : "", p->in_file ? "" : " bss", x, y, CELL, CELL, fill,
			stroke, (unsigned long long)p->address);
		if (p->rank)
			fprintf(f, " data-rank=\"%zu\" data-time=\"%llu\"", p->rank, (unsigned long long)p->time);
		fprintf(f, ">");
		page_title(f, m, p);
		fprintf(f, "</rect>\n");
		if (p->hot)
			fprintf(f, "<rect class=\"hot\" x=\"%d\" y=\"%d\" width=\"%d\" height=\"2\" fill=\"%s\"/>\n", x - 1,
				y + CELL + 1, PITCH, HOT_MARK);
	}
	fprintf(f, "</svg>\n");
}

static const char *flags_text(uint32_t flags, char out[4])
{
	out[0] = flags & 4 ? 'r' : '-';
	out[1] = flags & 2 ? 'w' : '-';
	out[2] = flags & 1 ? 'x' : '-';
	out[3] = '\0';
	return out;
}

/* A row of the figures of a side: name, value, and for the after side its
   ratio to before. */
static void figure_row(FILE *f, const char *key, const char *name, size_t value, const char *of, const size_t *before)
{
	fprintf(f, "<tr data-figure=\"%s\" data-value=\"%zu\"><th>%s</th><td class=\"n\">%zu</td><td>%s", key, value, name,
		value, of ? of : "");
	if (before)
		ratio(f, (double)value, (double)*before);
	fprintf(f, "</td></tr>\n");
}

static void side(FILE *f, const struct html_report *r, const struct model_object *m, const struct model_object *was,
		 int which, const struct time_scale *t)
{
	size_t code_total = 0, data_total = 0, i;
	char text[160], flags[4];

	fprintf(f, "<div class=\"side\" data-side=\"%s\">\n<h3>%s: <code>", side_names[which], side_names[which]);
	html_text(f, m->path);
	fprintf(f, "</code></h3>\n");
	if (strcmp(m->file, m->path)) {
		fprintf(f, "<p class=\"note\" data-read-from=\"\">The traced build, read from <code>");
		html_text(f, m->file);
		fprintf(f, "</code>, which has its build-id: the file at its path was relinked since.</p>\n");
	}
	if (!m->trace->complete)
		fprintf(f, "<p class=\"warning\">The trace is incomplete: these pages are only part of the run.</p>\n");
	for (i = 0; i < m->segment_count; i++)
		*(m->segments[i].code ? &code_total : &data_total) += m->segments[i].page_count;
	fprintf(f, "<table class=\"figures\">\n");
	snprintf(text, sizeof(text), "of %zu pages in code segments", code_total);
	figure_row(f, "code-pages", "code pages run", m->code_pages, text, was ? &was->code_pages : NULL);
	snprintf(text, sizeof(text), "of %zu pages in data segments", data_total);
	figure_row(f, "data-pages", "data pages used", m->data_pages, text, was ? &was->data_pages : NULL);
	snprintf(text, sizeof(text), "%llu KiB, of %zu pages in the segments",
		 (unsigned long long)(m->touched * m->page_size / 1024), code_total + data_total);
	figure_row(f, "pages-touched", "pages touched", m->touched, text, was ? &was->touched : NULL);
	snprintf(text, sizeof(text), "%llu KiB, of the file's %zu pages; %zu of them in no segment",
		 (unsigned long long)(m->read * m->page_size / 1024), m->file_pages, m->read_unmapped);
	figure_row(f, "cold-reads", "file pages read at a cold start", m->read, text, was ? &was->read : NULL);
	figure_row(f, "functions", "functions run", m->functions_run,
		   m->functions_run ? NULL : "(a trace without --granularity=function)", NULL);
	fprintf(f, "<tr data-figure=\"hot-range\"><th>hot range</th><td colspan=\"2\">");
	if (m->hot_how == MODEL_HOT_NONE) {
		fprintf(f, "none found");
	} else {
		uint64_t pages = (m->hot_end + m->page_size - 1) / m->page_size - m->hot_start / m->page_size;

		fprintf(f, "<span class=\"mono\">0x%llx-0x%llx</span>, %llu KiB on %llu page%s: ",
			(unsigned long long)m->hot_start, (unsigned long long)m->hot_end,
			(unsigned long long)((m->hot_end - m->hot_start + 1023) / 1024), (unsigned long long)pages,
			plural(pages));
		if (m->hot_how == MODEL_HOT_SYMBOLS)
			fprintf(f, "__linkopt_hot_start to __linkopt_hot_end (deporder's script)");
		else
			fprintf(f, "%zu functions start-up ran, one after another", m->hot_functions);
	}
	fprintf(f, "</td></tr>\n</table>\n");
	for (i = 0; i < m->segment_count; i++) {
		const struct model_segment *seg = &m->segments[i];

		fprintf(f, "<div class=\"segment\" data-kind=\"%s\" data-pages=\"%zu\" data-touched=\"%zu\">\n",
			seg->code ? "code" : "data", seg->page_count, seg->touched);
		fprintf(f, "<h4>%s segment %s <span class=\"mono\">0x%llx-0x%llx</span>: %zu page%s, %zu touched, %zu "
			   "read at a cold start</h4>\n", seg->code ? "code" : "data", flags_text(seg->elf.flags, flags),
			(unsigned long long)seg->elf.address, (unsigned long long)(seg->elf.address + seg->elf.memory_size),
			seg->page_count, plural(seg->page_count), seg->touched, seg->read);
		if (seg->sections) {
			fprintf(f, "<p class=\"sections\">");
			html_text(f, seg->sections);
			fprintf(f, "</p>\n");
		}
		grid(f, r, m, seg, t);
		fprintf(f, "</div>\n");
	}
	fprintf(f, "</div>\n");
}

/* The run's figures given on the command line, and the order's. */
static void run_figures(FILE *f, const struct html_report *r)
{
	const struct html_figure *pairs[2] = { r->faults, r->seconds };
	static const char *const names[2] = { "faults", "wall time" }, *const keys[2] = { "faults", "wall-time" };
	int k, s;
	bool any = false;

	for (k = 0; k < 2; k++) {
		if (!pairs[k][0].known && !pairs[k][1].known)
			continue;
		if (!any) {
			fprintf(f, "<table class=\"run\">\n<tr><th>the run</th>");
			for (s = 0; s < (int)r->trace_count; s++)
				fprintf(f, "<th>%s</th>", side_names[s]);
			fprintf(f, "</tr>\n");
			any = true;
		}
		fprintf(f, "<tr data-figure=\"%s\"><th>%s</th>", keys[k], names[k]);
		for (s = 0; s < (int)r->trace_count; s++) {
			fprintf(f, "<td class=\"n\">");
			if (!pairs[k][s].known)
				fprintf(f, "-");
			else if (k == 0)
				fprintf(f, "%.0f", pairs[k][s].value);
			else
				print_seconds(f, pairs[k][s].value);
			if (s == 1 && pairs[k][0].known && pairs[k][1].known)
				ratio(f, pairs[k][1].value, pairs[k][0].value);
			fprintf(f, "</td>");
		}
		fprintf(f, "</tr>\n");
	}
	if (any)
		fprintf(f, "</table>\n");
	if (!r->match_rate.known && !r->bound.known)
		return;
	fprintf(f, "<ul class=\"order\">\n");
	if (r->match_rate.known) {
		fprintf(f, "<li data-figure=\"match-rate\" data-value=\"%.1f\">The traces matched the link: %.1f%%",
			r->match_rate.value, r->match_rate.value);
		if (r->match_from) {
			fprintf(f, " (<code>");
			html_text(f, r->match_from);
			fprintf(f, "</code>)");
		}
		fprintf(f, "</li>\n");
	}
	if (r->bound.known) {
		fprintf(f, "<li data-figure=\"bound\" data-value=\"%.0f\">Whole-function bound: at least %.0f code pages "
			   "(the functions start-up runs, packed)", r->bound.value, r->bound.value);
		if (r->trace_count == 2 && r->object_count && r->bound.value > 0)
			fprintf(f, "; after: %zu, %.2fx the bound", r->objects[0][1].code_pages,
				r->objects[0][1].code_pages / r->bound.value);
		if (r->bound_from) {
			fprintf(f, " (<code>");
			html_text(f, r->bound_from);
			fprintf(f, "</code>)");
		}
		fprintf(f, "</li>\n");
	}
	fprintf(f, "</ul>\n");
}

static struct time_scale object_scale(const struct model_object *sides, size_t count)
{
	struct time_scale t = { UINT64_MAX, 0 };
	size_t s, i, k;

	for (s = 0; s < count; s++)
		for (i = 0; i < sides[s].segment_count; i++)
			for (k = 0; k < sides[s].segments[i].page_count; k++) {
				const struct model_page *p = &sides[s].segments[i].pages[k];

				if (!p->rank)
					continue;
				if (p->time < t.first)
					t.first = p->time;
				if (p->time > t.last)
					t.last = p->time;
			}
	if (t.first > t.last)
		t.first = t.last = 0;
	return t;
}

void html_write(FILE *f, const struct html_report *r)
{
	size_t i, s;

	fprintf(f, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>");
	if (r->title)
		html_text(f, r->title);
	else
		html_textf(f, "Start-up pages of %s", base_name(r->objects[0][0].path));
	fprintf(f, "</title>\n<style>\n%s</style>\n</head>\n<body>\n<h1>", style);
	if (r->title)
		html_text(f, r->title);
	else
		html_textf(f, "Start-up pages of %s", base_name(r->objects[0][0].path));
	fprintf(f, "</h1>\n<table class=\"traces\">\n");
	for (s = 0; s < r->trace_count; s++) {
		fprintf(f, "<tr data-trace=\"%s\"><th>%s</th><td><code>", side_names[s], side_names[s]);
		html_text(f, r->traces[s]->path);
		fprintf(f, "</code>: <code>");
		html_text(f, r->traces[s]->command ? r->traces[s]->command : "?");
		fprintf(f, "</code></td></tr>\n");
	}
	if (r->trace_count == 2) {
		fprintf(f, "<tr data-relation=\"%s\"><th>main program</th><td>", relation_keys[r->relation]);
		html_text(f, r->relation_text);
		fprintf(f, "</td></tr>\n");
	}
	fprintf(f, "</table>\n");
	run_figures(f, r);
	legend(f);
	for (i = 0; i < r->object_count; i++) {
		struct time_scale t = object_scale(r->objects[i], r->trace_count);

		fprintf(f, "<section class=\"object\">\n<h2>");
		html_text(f, base_name(r->objects[i][0].path));
		fprintf(f, "</h2>\n");
		scale_bar(f, r, &t, i);
		fprintf(f, "<div class=\"sides\">\n");
		for (s = 0; s < r->trace_count; s++)
			side(f, r, &r->objects[i][s], s ? &r->objects[i][0] : NULL, (int)s, &t);
		fprintf(f, "</div>\n</section>\n");
	}
	fprintf(f, "<h2>How to read this</h2>\n<p class=\"note\">Each square is a page (%llu bytes) of the object's "
		   "load segments, from its ELF program headers, in address order, %d to a row; a faint line every %d "
		   "pages (64 KiB, the kernel's fault-around). Colour: when start-up first touched the page (ran code "
		   "in it, or read or wrote data in it), %s. Hover over a square for its address, sections, the "
		   "function that touched it first and its file page. A red bar under squares: the hot range.</p>\n",
		(unsigned long long)(r->object_count ? r->objects[0][0].page_size : 4096), COLUMNS, WINDOW,
		r->by_order ? "by order of first touch, from the first page to the last"
			    : "from the start of the trace to its last record, counted in guest instructions under "
			      "valgrind (pagein)");
	fprintf(f, "<p class=\"note\" id=\"model\">Cold-start reads are a simple model, not a measurement: a "
		   "first touch of a page of the file that was not read yet reads %llu KiB of the file with that "
		   "page in the middle (the kernel's read-around on a fault in a file mapping, read_ahead_kb %llu), "
		   "and a page read once stays read. It leaves out the device's own read-ahead, asynchronous "
		   "read-ahead, the dynamic loader's read() of the headers, pages already cached and other "
		   "processes. deporder --evaluate models a cold start more closely; pfstat and bench/startup "
		   "measure one.</p>\n",
		(unsigned long long)(r->read_ahead / 1024), (unsigned long long)(r->read_ahead / 1024));
	fprintf(f, "<p class=\"note\">Made by linkopt report (linkopt %s).</p>\n</body>\n</html>\n", LINKOPT_VERSION);
}
