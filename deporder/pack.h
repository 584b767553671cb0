/* pack: page packing of the traced code, so that the start-up touches as
   few code pages as the functions it runs allow. */
#ifndef DEPORDER_PACK_H
#define DEPORDER_PACK_H

#include "hot.h"

/* Reports the whole-function bound of the hot code on stderr; then, with a
   page_size (0: no packing), walks the hot sections bound for .text in
   order from where .text began in the traced link: a section smaller than
   a page that would cross a page boundary waits while later hot sections
   that fit in what is left of the page go first. */
void pack_hot(struct hot_order *hot, uint64_t page_size);

/* Packs the code sections among sections[0, count) as pack_hot does, as
   if the first began at start_address (page_size 0: leaves them); the
   others keep their places among them. */
void pack_range(struct unit_section *sections, size_t count, uint64_t start_address, uint64_t page_size);

#endif
