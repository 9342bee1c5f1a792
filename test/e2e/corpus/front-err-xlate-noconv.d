/* flags: -xerrtags */
BEGIN { trace(curpsinfo->pr_size); }
