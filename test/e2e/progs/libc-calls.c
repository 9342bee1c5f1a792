/* Workload for whole-library pid probes: N rounds of malloc, free and usleep (argv[1]). */
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 1;
  for (int i = 0; i < n; i++) {
    volatile char *p = malloc(64);
    p[0] = 1;
    free((void *)p);
    usleep(1000);
  }
  return 0;
}
