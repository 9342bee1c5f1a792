/* flags: -xerrtags */
/* Only a D library may depend on another library (reference DTrace for Linux 2.0.1 agrees). */
#pragma D depends_on library procfs.d
BEGIN { exit(0); }
