/*
 * The io provider's arguments: bufinfo_t, devinfo_t and fileinfo_t with DTrace's layouts,
 * translated from the block layer's struct request (io:::start and io:::done).
 *
 * A request is not a buffer: b_flags says only B_READ or B_WRITE (the direction of the
 * request's operation), and members with no counterpart in a request (b_addr, b_resid,
 * b_bufsize, b_iodone, b_error, dev_name, dev_instance, the file the I/O is for) have no
 * translation, or read "<none>" for fileinfo_t's names (and -1 for fi_offset), as DTrace's do
 * when there is no file.
 * Using a member without a translation is D_XLATE_NOCONV.
 */

typedef char *caddr_t;

typedef struct bufinfo {
	int b_flags;
	size_t b_bcount;
	caddr_t b_addr;
	uint64_t b_lblkno;
	uint64_t b_blkno;
	size_t b_resid;
	size_t b_bufsize;
	caddr_t b_iodone;
	int b_error;
	dev_t b_edev;
} bufinfo_t;

typedef struct devinfo {
	int dev_major;
	int dev_minor;
	int dev_instance;
	string dev_name;
	string dev_statname;
	string dev_pathname;
} devinfo_t;

typedef struct fileinfo {
	string fi_name;
	string fi_dirname;
	string fi_pathname;
	long long fi_offset;
	string fi_fs;
	string fi_mount;
	int fi_oflags;
} fileinfo_t;

inline int B_BUSY = 0x0001;
inline int B_DONE = 0x0002;
inline int B_ERROR = 0x0004;
inline int B_PAGEIO = 0x0010;
inline int B_PHYS = 0x0020;
inline int B_READ = 0x0040;
inline int B_WRITE = 0x0100;
inline int B_ASYNC = 0x0400;

/* Linux request operations are odd for writes (op_is_write), in cmd_flags' low bits. */
translator bufinfo_t < struct request *R > {
	b_flags = (R->cmd_flags & 1) ? B_WRITE : B_READ;
	b_bcount = R->__data_len;
	b_lblkno = R->__sector;
	b_blkno = R->__sector;
	b_edev = R->q->disk->part0->bd_dev;
};

translator devinfo_t < struct request *R > {
	dev_major = R->q->disk->major;
	dev_minor = R->q->disk->first_minor;
	dev_statname = stringof(R->q->disk->disk_name);
	dev_pathname = strjoin("/dev/", stringof(R->q->disk->disk_name));
};

translator fileinfo_t < struct request *R > {
	fi_name = "<none>";
	fi_dirname = "<none>";
	fi_pathname = "<none>";
	fi_offset = -1;		/* no file: the DTrace guide's io/applicat.d tests for -1 */
	fi_fs = "<none>";
	fi_mount = "<none>";
};

/*
 * fds[]: the current process's open files as fileinfo_t, by descriptor, from its file table
 * (task->files->fdt->fd[]). A descriptor that is not open reads "<none>" and 0. Linux has no
 * path for a file short of d_path(), which the kernel lends only to programs this one cannot
 * load, so fi_dirname, fi_pathname and fi_mount have no translation (D_XLATE_NOCONV).
 */
translator fileinfo_t < struct file *F > {
	fi_name = F == NULL ? "<none>" : stringof(F->f_path.dentry->d_name.name);
	fi_fs = F == NULL ? "<none>" : stringof(F->f_path.mnt->mnt_sb->s_type->name);
	fi_offset = F == NULL ? 0 : F->f_pos;
	fi_oflags = F == NULL ? 0 : F->f_flags;
};

inline fileinfo_t fds[int fd] = xlate <fileinfo_t> (
    fd >= 0 && fd < curthread->files->fdt->max_fds ?
    curthread->files->fdt->fd[fd] : NULL);

/* Block request flags DTrace for Linux's io.d names (values as the reference prints them). */
inline int BIO_USER_MAPPED = 6;
inline int REQ_SYNC = 2048;
inline int REQ_WRITE = 1;
