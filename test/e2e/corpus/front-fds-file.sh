#!/bin/sh
# Workload of front-fds-file.d: two writes to a regular file.
exec 3>/tmp/dtrace-front-fds.txt
echo abc >&3
echo defg >&3
rm -f /tmp/dtrace-front-fds.txt
