#!/usr/bin/python3
# Writes IPv6 addresses, 16 bytes each, to /dev/null in one write(2) for dtrace to copyin():
# the corpus programs subr-inet6-*.d run this with -c and read the buffer at syscall::write:entry.
import os

ADDRS = [
    '00000000000000000000000000000000',  # ::
    '00000000000000000000000000000001',  # ::1
    '20010db8123456789abcdef012345678',  # no zero group
    '20010db8000000000000000000000001',  # one run in the middle
    '20010db8000000010000000000000001',  # the longer of two runs
    '20010db8000000001111000000002222',  # two runs of two: the first
    '20010db8000000000001000000000002',  # a run before a group 00xx counts a byte more
    '00010000000200030004000500060007',  # one zero group
    '000000000000000000000000c0a80001',  # v4-compatible
    '00000000000000000000ffff01020304',  # v4-mapped
    'fe800000000000000214' + '4ffffe0b76c8',  # link-local
    '20010db8000000000000000000000000',  # a run at the end
    '20010db8000100000000000000000000',  # the last group alone is zero, after a run
]

fd = os.open('/dev/null', os.O_WRONLY)
os.write(fd, bytes.fromhex(''.join(ADDRS)))
