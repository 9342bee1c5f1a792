/* flags: -xerrtags */
BEGIN { trace(xlate <psinfo_t> (curthread)->pr_pid); }
