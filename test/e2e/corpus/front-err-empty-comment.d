/* flags: -xerrtags -x noempty */
/* Agrees with the reference DTrace (output and exit status). */
/* nothing */
