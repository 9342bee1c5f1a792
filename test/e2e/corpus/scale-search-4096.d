/* flags: -q -x strsize=4096 */
/* rindex(), index() and strstr() over a 2318-character string at strsize=4096 (DTrace for Linux
   rejects this program: BPF program too large). */
dtrace:::BEGIN {
  a = "abcdefghijklmnopqrstuvwxyz0123456789abcdefghijklmnopqrstuvwxyz0123456789";
  b = strjoin(a, a);
  b = strjoin(b, b);
  b = strjoin(b, b);
  b = strjoin(b, b);
  b = strjoin(b, b);
  b = strjoin(b, "xyz/needle/end");
  printf("%d %d %d %d\n", strlen(b), rindex(b, "a"), index(b, "needle"), rindex(b, "nope"));
  printf("%s\n", strstr(b, "needle"));
  printf("%d\n", strlen(strstr(b, "xyz")));
  exit(0);
}
