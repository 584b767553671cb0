/* binding: the proof that deporder's ordering inputs belong together: the
   link map describes the binary (every symbol the map lists sits in the
   binary where the map put it), and each trace is of that binary (the
   traced object's build-id is the binary's).  Luck (a trace of another
   program that happens to fall into the map's sections) proves nothing. */
#ifndef DEPORDER_BINDING_H
#define DEPORDER_BINDING_H

#include "hot.h"

/* Checks in's map against the binary it describes (binary_path, or the
   map's OUTPUT name, taken from here or from the map's folder) and sets
   each run's object to the traced object that is that binary (it must also
   match object_glob when given); the binary must be of the link's kind
   (program or -shared library).  Returns 0 with in->binary_path set (newly
   allocated), or EXIT_INPUT after saying what does not belong and the
   likely cause. */
int binding_check(struct hot_inputs *in, const struct link *link, const char *map_path, const char *binary_path,
		  const char *object_glob);

#endif
