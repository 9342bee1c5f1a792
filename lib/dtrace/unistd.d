/*
 * Constants DTrace's own library puts in every program's scope: the fault codes the ERROR
 * probe reports in arg4 (the numbers of dif/constants.ts), how a child ended (CLD_*, as
 * waitid(2) and SIGCHLD report it) and open(2)'s flags, with the values Linux gives them on
 * x86_64.
 */

inline int DTRACEFLT_UNKNOWN = 0;
inline int DTRACEFLT_BADADDR = 1;
inline int DTRACEFLT_BADALIGN = 2;
inline int DTRACEFLT_ILLOP = 3;
inline int DTRACEFLT_DIVZERO = 4;
inline int DTRACEFLT_NOSCRATCH = 5;
inline int DTRACEFLT_KPRIV = 6;
inline int DTRACEFLT_UPRIV = 7;
inline int DTRACEFLT_TUPOFLOW = 8;
inline int DTRACEFLT_BADSTACK = 9;

inline int CLD_EXITED = 1;
inline int CLD_KILLED = 2;
inline int CLD_DUMPED = 3;
inline int CLD_TRAPPED = 4;
inline int CLD_STOPPED = 5;
inline int CLD_CONTINUED = 6;

inline int O_RDONLY = 0;
inline int O_WRONLY = 1;
inline int O_RDWR = 2;
inline int O_ACCMODE = 3;
inline int O_CREAT = 0100;
inline int O_EXCL = 0200;
inline int O_NOCTTY = 0400;
inline int O_TRUNC = 01000;
inline int O_APPEND = 02000;
inline int O_NONBLOCK = 04000;
inline int O_NDELAY = 04000;
inline int O_DSYNC = 010000;
inline int O_ASYNC = 020000;
inline int O_DIRECTORY = 0200000;
inline int O_NOFOLLOW = 0400000;
inline int O_CLOEXEC = 02000000;
inline int O_SYNC = 04010000;
inline int O_RSYNC = 04010000;
inline int O_FSYNC = 04010000;
