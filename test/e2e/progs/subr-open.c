#include <fcntl.h>
#include <unistd.h>
int main(void) {
  static const char buf[] = "ABCDEFGH";
  usleep(1500000);
  for (int i = 0; i < 3; i++) {
    int fd = open("/tmp/dtrace-subr-known-path", O_RDONLY);
    if (fd >= 0) close(fd);
    (void)write(-1, buf, 8);
    usleep(100000);
  }
  return 0;
}
