/* flags: -xerrtags */
/*
 * Only comments, pragmas and declarations: an empty translation unit, which DTrace refuses
 * unless -x empty (expected output from Oracle DTrace 2.0.1).
 */
#pragma D option quiet
int x;
