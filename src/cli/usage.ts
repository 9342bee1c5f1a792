// dtrace(1)'s usage text (printed on usage errors and by --help) and -V's D API version.

export const USAGE = `Usage: dtrace [-32|-64] [-aABCeFGhHlOqSvVwZ] [-b bufsz] [-c cmd] [-D name[=def]]
	[-I path] [-L path] [-o output] [-p pid] [-s script] [-U name]
	[-x opt[=val]] [-X a|c|s|t]

	[-P provider [[ predicate ] action ]]
	[-m [ provider: ] module [[ predicate ] action ]]
	[-f [[ provider: ] module: ] func [[ predicate ] action ]]
	[-n [[[ provider: ] module: ] func: ] name [[ predicate ] action ]]
	[-i probe-id [[ predicate ] action ]]
	[-M instance [[ predicate ] action ]] [ args ... ]

	predicate -> '/' D-expression '/'
	   action -> '{' D-statements '}'

	-32 generate 32-bit D programs (not supported)
	-64 generate 64-bit D programs (the default)

	-a  take over the anonymous tracing state (not on Linux)
	-A  emit configuration for anonymous tracing (not on Linux)
	-b  trace buffer size per CPU
	-B  show output as DTrace's buffered output handler receives it
	-c  start a command, trace it, and stop when it exits
	-C  pass script files through the C preprocessor
	-D  define a preprocessor macro
	-e  compile the program, then exit without enabling it
	-f  enable or list probes by function name
	-F  indent output by function entry and return
	-G  generate an ELF file containing embedded dtrace program
	-h  generate a header file with definitions for static probes
	-H  show files the preprocessor includes
	-i  enable or list probes by probe id
	-I  add a preprocessor include directory
	-l  list matching probes instead of enabling them
	-L  add a D library directory
	-m  enable or list probes by module name
	-M  enable or list every probe of an instance (RFD 2)
	-n  enable or list probes by probe name
	-o  append trace output to a file
	-O  with -x oformat, also write the aggregations left at exit
	-p  trace a running process by id
	-P  enable or list probes by provider name
	-q  quiet: print only what the program traces
	-s  compile and enable a D script file
	-S  show the DIF the compiler generates
	-U  undefine a preprocessor macro
	-v  verbose: stability attributes and argument types
	-V  print the D API version
	-w  allow destructive actions
	-x  set a compiler or tracing option
	-X  preprocessor ISO C mode (a, c, s or t)
	-Z  allow descriptions that match no probes

	--help  print this text
`;

/** The D API version line (-V). */
export { API_VERSION } from '../version.js';
