/* A D library for front-libdir.d, loaded with -L. */
inline int answer = 42;

typedef struct half { long h; } half_t;

translator half_t < int x > {
	h = x / 2;
};
