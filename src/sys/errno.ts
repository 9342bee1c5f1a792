// A failed system call's error as strerror(3) words it, which is how dtrace(1) reports a file it
// cannot open or write, rather than Node's "EISDIR: illegal operation on a directory, open '...'".

const STRERROR: Record<string, string> = {
  EPERM: 'Operation not permitted',
  ENOENT: 'No such file or directory',
  EIO: 'Input/output error',
  ENXIO: 'No such device or address',
  EBADF: 'Bad file descriptor',
  EAGAIN: 'Resource temporarily unavailable',
  ENOMEM: 'Cannot allocate memory',
  EACCES: 'Permission denied',
  EBUSY: 'Device or resource busy',
  EEXIST: 'File exists',
  ENODEV: 'No such device',
  ENOTDIR: 'Not a directory',
  EISDIR: 'Is a directory',
  EINVAL: 'Invalid argument',
  ENFILE: 'Too many open files in system',
  EMFILE: 'Too many open files',
  ETXTBSY: 'Text file busy',
  EFBIG: 'File too large',
  ENOSPC: 'No space left on device',
  EROFS: 'Read-only file system',
  EPIPE: 'Broken pipe',
  ENAMETOOLONG: 'File name too long',
  ELOOP: 'Too many levels of symbolic links',
  EDQUOT: 'Disk quota exceeded',
};

export function errnoText(e: unknown): string {
  const code = (e as NodeJS.ErrnoException).code;
  return (code !== undefined && STRERROR[code]) || (e as Error).message;
}
