/* html: the report as one self-contained HTML file: inline CSS and SVG,
   no script, nothing fetched.  Every string from outside (paths, commands,
   symbols, section names, the title) is escaped; a byte that is not part
   of valid UTF-8, or a control character, is shown as \xHH. */
#ifndef LINKOPT_REPORT_HTML_H
#define LINKOPT_REPORT_HTML_H

#include "model.h"
#include "relation.h"

#include <stdbool.h>
#include <stdio.h>

/* A figure of a run given to the report, or not. */
struct html_figure {
	bool known;
	double value;
};

struct html_report {
	const char *title;                 /* NULL: from the program's name */
	const struct trace *traces[2];     /* before, after (NULL with one trace) */
	size_t trace_count;
	enum relation relation;            /* with two traces: how after's main program stands to before's */
	char *relation_text;               /* that in words */
	struct model_object (*objects)[2]; /* per object shown: its model in each trace */
	size_t object_count;
	uint64_t read_ahead;               /* bytes, of the cold-start model */
	bool by_order;                     /* colour by first-touch order, not time */
	struct html_figure faults[2], seconds[2];
	struct html_figure match_rate;     /* percent */
	const char *match_from;            /* where it was read, or NULL: given */
	struct html_figure bound;          /* pages */
	const char *bound_from;
};

/* Writes the report to f. */
void html_write(FILE *f, const struct html_report *r);

/* Writes s to f as HTML text (also fit for an attribute in double quotes). */
void html_text(FILE *f, const char *s);

#endif
