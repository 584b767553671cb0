/* maps-at-exit.so, preloaded (LD_PRELOAD) by tests: at the program's
   exit, its /proc/self/maps copied to the file $MAPS_OUT names (nothing
   without it), to count the mappings a constructor made; with MAPS_SMAPS
   set, /proc/self/smaps (each mapping's VmFlags: "rr", advised
   MADV_RANDOM). */
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

__attribute__((destructor)) static void maps_at_exit(void)
{
	const char *out = getenv("MAPS_OUT");
	const char *from = getenv("MAPS_SMAPS") ? "/proc/self/smaps" : "/proc/self/maps";
	char buf[65536];
	ssize_t n;
	int in, fd;

	if (!out || (in = open(from, O_RDONLY)) < 0)
		return;
	fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	while (fd >= 0 && (n = read(in, buf, sizeof(buf))) > 0)
		if (write(fd, buf, (size_t)n) != n)
			break;
	close(in);
	if (fd >= 0)
		close(fd);
}
