/* flags: -q */
typedef struct point { int x; int y; } point_t;
typedef point_t *point_p;
typedef char name_t[12];
BEGIN
{
	printf("%d %d %d %d\n", sizeof(point_t), sizeof(point_p), sizeof(name_t), offsetof(point_t, y));
	exit(0);
}
