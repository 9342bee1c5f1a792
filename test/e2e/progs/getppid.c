/* Makes N getppid(2) system calls (argv[1], default 1000), optionally after a delay in ms. */
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

int main(int argc, char **argv) {
	int n = argc > 1 ? atoi(argv[1]) : 1000;
	int delay = argc > 2 ? atoi(argv[2]) : 0;
	if (delay > 0)
		usleep(delay * 1000);
	for (int i = 0; i < n; i++)
		syscall(SYS_getppid);
	return 0;
}
