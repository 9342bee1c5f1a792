/* tracemem() needs a constant size. */
BEGIN { n = 4; tracemem(curthread, n); exit(0); }
