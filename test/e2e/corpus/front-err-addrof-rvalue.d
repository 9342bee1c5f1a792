/* flags: -xerrtags */
BEGIN { trace(&(pid + 1)); }