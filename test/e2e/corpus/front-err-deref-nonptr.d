/* flags: -xerrtags */
BEGIN { trace(*pid); }