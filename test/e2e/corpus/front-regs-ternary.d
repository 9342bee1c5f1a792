/* flags: -q */
/* A translator member made of an 11-deep ?: chain (rwbytype.d's) and nested ?: in both arms. */
typedef struct vtype2str { string code; };

translator struct vtype2str < int T > {
	code =
	    T == 1 ? "reg" : T == 9 ? "sock" : T == 4 ? "chr" : T == 6 ? "fifo" :
	    T == 8 ? "proc" : T == 2 ? "dir" : T == 3 ? "blk" : T == 5 ? "lnk" :
	    T == 7 ? "door" : T == 10 ? "port" : T == 11 ? "bad" : "non";
};

BEGIN
{
	printf("%s %s %s %s %s\n", xlate <struct vtype2str *>(1)->code,
	    xlate <struct vtype2str *>(5)->code, xlate <struct vtype2str *>(10)->code,
	    xlate <struct vtype2str *>(11)->code, xlate <struct vtype2str *>(12)->code);
	x = 3;
	self->y = 7;
	printf("%d\n", x == 1 ? 10 : x == 2 ? 20 : x == 3 ?
	    (self->y > 2 ? (self->y < 9 ? 37 : 39) : 35) : x == 4 ? 40 : x == 5 ? 50 :
	    x == 6 ? 60 : x == 7 ? 70 : x == 8 ? 80 : x == 9 ? 90 : x == 10 ? 100 : 0);
	printf("%d %d\n",
	    x == 3 && (x > 1 && (x < 5 && (x != 4 && (x >= 3 && (x <= 3 && self->y))))),
	    x == 2 || (x == 1 || (x == 0 || (x == 7 || (x == 9 || x == 3)))));
}

BEGIN
/x == 1 ? 0 : x == 2 ? 0 : x == 3 ? (self->y == 7 ? 1 : 0) : x == 4 ? 0 : x == 5 ? 0 : 0/
{
	printf("predicate %s\n", x == 3 ? "taken" : "not taken");
}

BEGIN
{
	exit(0);
}
