/* lockstat's rw-spin and rw-block args[2]: which side of the lock the thread waited for. */
inline int RW_WRITER = 0x00;
inline int RW_READER = 0x01;

/*
 * rw-spin's args[0], named as DTrace for Linux names it: the kernel's rwlock_t is an unnamed
 * struct whose first member is always the architecture's lock word.
 */
struct rwlock {
	arch_rwlock_t raw_lock;
};
