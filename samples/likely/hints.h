/* The sample's own hint macros, as a project spells them. */
#define likely(x) __builtin_expect(!!(x), 1)
#define unlikely(x) __builtin_expect(!!(x), 0)
/* A hint hidden in a project macro used in several places. */
#define CHECK_RANGE(v, max, over) do { if (unlikely((v) >= (max))) (over)++; } while (0)

/* In libhints.so: a loop whose hint is right 999 times in 1000. */
int dso_work(int n);
