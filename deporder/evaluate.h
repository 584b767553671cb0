/* evaluate: --evaluate: what an order would do to the code pages each
   trace touches, without relinking. */
#ifndef DEPORDER_EVALUATE_H
#define DEPORDER_EVALUATE_H

#include "hot.h"

/* Prints, for each trace that records pages, the code pages it touched in
   the traced link and those it would touch with hot's sections laid out in
   order from where .text began, and the 64 KiB fault-around windows of
   each.  The traces and the map are those hot_from_traces used. */
void evaluate_traces(const struct hot_order *hot, const struct hot_inputs *in, uint64_t page_size);

#endif
