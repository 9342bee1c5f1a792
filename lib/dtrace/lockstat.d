/* lockstat's rw-spin and rw-block args[2]: which side of the lock the thread waited for. */
inline int RW_WRITER = 0x00;
inline int RW_READER = 0x01;
