/* The plug-in that tests/hostile-host.c loads and unloads (its "dlopen"
   scenario), built as the host is: plain, instrumented for cygtrace, or
   with likely-check's cflags. */
#define unlikely(x) __builtin_expect(!!(x), 0)

__attribute__((noinline)) static int plug_helper(int x)
{
	return unlikely(x < 0) ? 0 : x % 7;
}

int plug(int x)
{
	return plug_helper(x) + 1;
}
