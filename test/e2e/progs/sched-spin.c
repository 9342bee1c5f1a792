// A workload for the sched provider tests: ROUNDS (argv[1], default 10) times, spin for 20 ms of
// its own CPU time, then sleep 30 ms. Prints its pid first and its CPU time in ns last.
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static long long cpu_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

int main(int argc, char **argv) {
  int rounds = argc > 1 ? atoi(argv[1]) : 10;
  printf("pid %d\n", (int)getpid());
  fflush(stdout);
  for (int i = 0; i < rounds; i++) {
    long long until = cpu_ns() + 20000000LL;
    while (cpu_ns() < until) {
    }
    usleep(30000);
  }
  printf("cpu %lld\n", cpu_ns());
  return 0;
}
