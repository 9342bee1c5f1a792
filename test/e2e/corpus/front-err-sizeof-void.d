/* flags: -xerrtags */
BEGIN { trace(sizeof(void)); }