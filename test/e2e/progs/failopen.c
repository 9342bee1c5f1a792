/* Opens a file that does not exist (ENOENT), then one it may not create (a directory, EISDIR). */
#include <fcntl.h>
#include <stdio.h>

int main(void) {
	int a = open("/nonexistent/dtrace-test", O_RDONLY);
	int b = open("/", O_WRONLY);
	printf("%d %d\n", a, b);
	return 0;
}
