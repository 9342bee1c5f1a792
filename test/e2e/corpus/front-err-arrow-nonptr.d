/* flags: -xerrtags */
BEGIN { trace(pid->x); }