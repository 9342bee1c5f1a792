/* flags: -q */
/* llquantize() of negative values: DTrace for Linux keeps mirrored buckets below zero, labels
   the middle one "0", "< N" or "abs() < N", and the outer ones "<= -top" and ">= top"; several
   steps per magnitude below the factor (ghost buckets), keys sorted by the signed sum
   (expected output taken from the reference DTrace for Linux) */
BEGIN { @f = llquantize(-5000, 10, 1, 2, 10); @f = llquantize(-15, 10, 1, 2, 10); @f = llquantize(5000, 10, 1, 2, 10);
@g = llquantize(-9223372036854775807-1, 10, 0, 1, 10); @h = llquantize(3, 10, 0, 1, 10, -1);
@i[1] = llquantize(3, 10, 0, 1, 10); @i[2] = llquantize(-3, 10, 0, 1, 10); @i[3] = llquantize(0, 10, 0, 1, 10); 
@j = llquantize(7, 2, 0, 4, 4); @j = llquantize(-1, 2, 0, 4, 4); @j = llquantize(40, 2, 0, 4, 4);
@k = llquantize(3, 10, 0, 1, 100); @k = llquantize(-3, 10, 0, 1, 100); @k = llquantize(55, 10, 0, 1, 100);
exit(0); }
