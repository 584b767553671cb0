/* words: a command given as one line (--compare) split into its words the
   way sh would quote them, so that it runs directly as the first command
   does, never through a shell; and an argument vector quoted back into a
   line that sh reads as the same words, for labels. */
#ifndef PFSTAT_WORDS_H
#define PFSTAT_WORDS_H

/* Splits line into words: blanks separate them, '...', "..." and a
   backslash quote as in sh.  NULL-terminated vector of new strings, or
   NULL with *why (a new string) when line is empty, has an unterminated
   quote, or holds what only a shell does (an unquoted | & ; < > ( ) $ `
   * ? [, a ~ or # starting a word, a NAME=VALUE first word, $ or ` inside
   double quotes). */
char **words_split(const char *line, char **why);

/* argv as one line, each word quoted for sh when it needs it; a new string. */
char *words_quote(char *const argv[]);

/* Frees what words_split returned. */
void words_free(char **words);

#endif
