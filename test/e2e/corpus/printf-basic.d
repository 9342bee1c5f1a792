/* flags: -q */
BEGIN { printf("%d %s %x|%5d|%-3s|\n", 42, "ok", 255, 7, "a"); exit(0); }
