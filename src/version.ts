export const VERSION = "0.1.0";

/** The D language version this compiler implements, as dtrace -V prints it. */
export const API_VERSION = 'Sun D 1.13';
