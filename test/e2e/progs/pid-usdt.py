# Workload for the USDT tests: on each line from stdin, call bar() twice (bar calls foo() three
# times each) and print "done"; a line "gc" runs three generation-1 collections instead.
import gc
import sys


def foo():
    return 1


def bar():
    for _ in range(3):
        foo()


for line in sys.stdin:
    if line.strip() == "gc":
        for _ in range(3):
            gc.collect(1)
    else:
        for _ in range(2):
            bar()
    print("done", flush=True)
