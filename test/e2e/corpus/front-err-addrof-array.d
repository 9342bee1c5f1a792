/* flags: -xerrtags */
BEGIN { trace(&curthread->comm); }