/* Workload for the pid provider's arguments: go() takes ten, four of them on the stack. */
__attribute__((noinline)) long go(long a0, long a1, long a2, long a3, long a4, long a5, long a6, long a7, long a8, long a9) {
  return a0 + a1 + a2 + a3 + a4 + a5 + a6 + a7 + a8 + a9;
}

int main(void) {
  return go(10, 11, 12, 13, 14, 15, 16, 17, 18, 19) == 145 ? 0 : 1;
}
