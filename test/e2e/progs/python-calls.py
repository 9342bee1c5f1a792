# Workload for test/e2e/python.test.ts. Run with no argument: calls a recursive fibonacci(10)
# (177 calls) from compute() once, and leaf() 4 times. With "wait": on each line from stdin, calls
# leaf() 3 times and prints "done".
import sys


def fibonacci(n):
    return n if n < 2 else fibonacci(n - 1) + fibonacci(n - 2)


def leaf():
    return 1


def compute():
    for _ in range(4):
        leaf()
    return fibonacci(10)


if sys.argv[1:] == ["wait"]:
    print("ready", flush=True)
    for line in sys.stdin:
        for _ in range(3):
            leaf()
        print("done", flush=True)
else:
    print(compute())
