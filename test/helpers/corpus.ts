// The end-to-end corpus compiled in-process, as dtrace(1) would compile each case, for the unit
// tests that check every corpus program (DOF round trip, DIF load-time checks). The programs that
// must not compile are named (NOT_COMPILING): any other failure fails those tests.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { compile, SourceError, type Source } from '../../src/compiler/compile.js';
import { parseArgs } from '../../src/cli/args.js';
import { parseOptionValue, isSet } from '../../src/options.js';
import { preprocess } from '../../src/cli/cpp.js';
import { probeRegistry } from '../../src/providers/registry.js';
import type { Program } from '../../src/dof/program.js';

export const CORPUS = path.join(import.meta.dirname, '../e2e/corpus');
const registry = probeRegistry();

export type Compiled = { program: Program } | { error: string };

/** Compile a corpus script with its flags line as dtrace would: its program, or why not. */
export function compileCase(file: string): Compiled {
  const text = readFileSync(path.join(CORPUS, file), 'utf8');
  const m = /^\/\*\s*flags:(.*?)\*\//.exec(text);
  const args = parseArgs(m ? m[1]!.trim().split(/\s+/).filter(Boolean) : []);
  const options = new Map<string, string>();
  const cppArgs: string[] = [];
  for (const { letter, value } of args.options) {
    try {
      if (letter === 'q') options.set(...parseOptionValue('quiet', null));
      else if (letter === 'w') options.set(...parseOptionValue('destructive', null));
      else if (letter === 'C') options.set('cpp', 'set');
      else if (letter === 'D' || letter === 'U' || letter === 'I') cppArgs.push(`-${letter}${value}`);
      else if (letter === 'x') {
        const eq = value!.indexOf('=');
        options.set(...parseOptionValue(eq < 0 ? value! : value!.slice(0, eq), eq < 0 ? null : value!.slice(eq + 1)));
      }
    } catch (e) {
      return { error: `option: ${(e as Error).message}` }; // the case tests a bad option
    }
  }
  let src = text;
  if (isSet(options, 'cpp')) {
    try {
      src = preprocess(text, { args: cppArgs, headers: false });
    } catch (e) {
      return { error: `cpp: ${(e as Error).message}` };
    }
  }
  const source: Source = { kind: 's', text: src, name: file };
  try {
    return {
      program: compile([source], {
        registry, options, macroArgs: args.operands, zdefs: isSet(options, 'zdefs'),
      }).program,
    };
  } catch (e) {
    if (e instanceof SourceError) return { error: `${e.error.tag}: ${e.error.message}` };
    throw e;
  }
}

/** Every corpus case, compiled once per test file. */
export function compileCorpus(): Map<string, Compiled> {
  const out = new Map<string, Compiled>();
  for (const f of readdirSync(CORPUS).filter((n) => n.endsWith('.d')).sort()) out.set(f, compileCase(f));
  return out;
}

/**
 * The corpus cases that must not compile in-process (negative cases: D errors, bad options, cpp
 * errors, ...). A case that fails and is not here, or is here and compiles, fails the tests.
 */
export const NOT_COMPILING: readonly string[] = [
  'front-err-action-arith.d', // D_OP_INCOMPAT
  'front-err-action-assign-typed.d', // D_OP_INCOMPAT
  'front-err-action-assign.d', // D_OP_INCOMPAT
  'front-err-action-cast.d', // D_CAST_INVAL
  'front-err-action-comma.d', // D_OP_ACT
  'front-err-action-conditional-one.d', // D_OP_INCOMPAT
  'front-err-action-conditional-proto.d', // D_PROTO_LEN
  'front-err-action-conditional.d', // D_OP_ACT
  'front-err-action-logical.d', // D_OP_SCALAR
  'front-err-action-not.d', // D_OP_SCALAR
  'front-err-action-ternary-test.d', // D_OP_SCALAR
  'front-err-action-trace-void.d', // D_TRACE_VOID
  'front-err-string-logical.d', // D_OP_SCALAR
  'front-err-string-not.d', // D_OP_SCALAR
  'front-err-string-ternary-test.d', // D_OP_SCALAR
  'front-err-struct-xor.d', // D_OP_SCALAR
  'front-err-xlate-addr.d', // D_ADDROF_VAR
  'front-err-xlate-assign.d', // D_OP_INCOMPAT
  'front-err-xlate-compare.d', // D_OP_INCOMPAT
  'front-err-xlate-deref-trace.d', // D_TRACE_DYN
  'front-err-xlate-incompat-line.d', // D_XLATE_INCOMPAT
  'front-err-xlate-key.d', // D_KEY_TYPE
  'front-err-xlate-memb-line.d', // D_XLATE_MEMB
  'front-err-xlate-redecl-line.d', // D_XLATE_REDECL
  'front-err-xlate-sou-line.d', // D_XLATE_SOU
  'front-err-xlate-trace.d', // D_TRACE_DYN
  'front-err-decl-scope.d', // D_DECL_SCOPE
  'front-err-decl-scope-self.d', // D_DECL_SCOPE
  'front-err-typedef-scope.d', // D_DECL_SCOPE
  'front-err-xlate-cast-uintptr.d', // D_CAST_INVAL: pointer to translated data
  'front-err-xlate-redecl-library.d', // D_XLATE_REDECL: the D library's translator counts
  'agg-err-clear-arg.d', // D_CLEAR_AGGARG: clear( ) argument #1 is incompatible with prototype:
  'agg-err-llquant-even.d', // D_LLQUANT_STEPVAL: llquantize() argument #4 (steps) must be a multiple of argument #1
  'agg-err-llquant-factor.d', // D_LLQUANT_FACTORVAL: llquantize( ) argument #1 must be an unsigned 16-bit quantity >= 2
  'agg-err-llquant-magrange.d', // D_LLQUANT_HMAGVAL: llquantize( ) argument #3 (high magnitude) must be at least argument #2
  'agg-err-lquant-baseval.d', // D_LQUANT_BASEVAL: lquantize( ) argument #1 must be a 32-bit quantity
  'agg-err-lquant-matchbase.d', // D_LQUANT_MATCHBASE: lquantize( ) base (argument #1) doesn't match previous decla
  'agg-err-lquant-steplarge.d', // D_LQUANT_STEPLARGE: lquantize( ) step (argument #3) too large: must have at leas
  'agg-err-printa-undef.d', // D_IDENT_UNDEF: failed to resolve @nosuch
  'agg-err-quantize-args.d', // D_PROTO_LEN: quantize( ) prototype mismatch: 3 args passed, at most 2 expected
  'cli-extraneous-arg.d', // D_MACRO_UNUSED: extraneous argument 'extra' ($1 is not referenced)
  'cons-print-agg.d', // D_PROTO_ARG: print( ) argument #1 is incompatible with prototype: aggregation
  'cons-print-void.d', // D_PROTO_ARG: print( ) argument #1 is incompatible with prototype: void
  'cons-printf-f-int.d', // D_PRINTF_ARG_TYPE: printf( ) argument #2 is incompatible with conversion #1 prot
  'cons-printf-hd-int.d', // D_PRINTF_ARG_TYPE: printf( ) argument #2 is incompatible with conversion #1 prot
  'cons-printf-hh-undefined.d', // D_SYNTAX: format conversion #1 is undefined: %hhd
  'cons-printf-k-int.d', // D_PRINTF_ARG_TYPE: printf( ) argument #2 is incompatible with conversion #1 prot
  'cons-setopt-err-noargs.d', // D_PROTO_LEN: setopt( ) prototype mismatch: 0 args passed, at least 1 expected
  'cons-setopt-err-proto.d', // D_PROTO_ARG: setopt( ) argument #2 is incompatible with prototype:
  'cons-tracemem-one-arg.d', // D_PROTO_LEN: tracemem( ) prototype mismatch: 1 arg passed, 2 expected
  'cons-tracemem-size-var.d', // D_TRACEMEM_SIZE: tracemem( ) argument #2 must be a non-zero positive integral co
  'cons-tracemem-string.d', // D_TRACEMEM_ADDR: tracemem( ) argument #1 is incompatible with prototype:
  'destr-breakpoint.d', // D_ACT_UNSUPP: breakpoint( ) is not available on Linux: eBPF programs cannot ente
  'destr-freopen-dot.d', // D_FREOPEN_INVALID: freopen( ) argument #1 cannot be "."
  'destr-panic.d', // D_ACT_UNSUPP: panic( ) is not available on Linux: eBPF programs cannot panic the
  'front-err-addrof-array.d', // D_ADDROF_LVAL: unacceptable operand for unary & operator
  'front-err-addrof-bitfield.d', // D_ADDROF_BITFIELD: cannot take address of bit-field
  'front-err-addrof-rvalue.d', // D_ADDROF_LVAL: unacceptable operand for unary & operator
  'front-err-addrof-var.d', // D_ADDROF_VAR: cannot take address of dynamic variable
  'front-err-agg-arith.d', // D_OP_INCOMPAT: operands have incompatible types: "aggregation" + "int"
  'front-err-agg-assign.d', // D_OP_INCOMPAT: operands have incompatible types: "scalar" = "aggregation"
  'front-err-agg-cast.d', // D_CAST_INVAL: invalid cast expression: "aggregation" to "int"
  'front-err-agg-compare.d', // D_OP_INCOMPAT: operands have incompatible types: "aggregation" == "int"
  'front-err-agg-exit.d', // D_PROTO_ARG: exit( ) argument #1 is incompatible with prototype:
  'front-err-agg-key.d', // D_KEY_TYPE: aggregation expression may not be used as aggregation index: key #1
  'front-err-agg-keyed-trace.d', // D_TRACE_DYN: trace( ) may not be applied to a dynamic expression
  'front-err-agg-mul.d', // D_OP_ARITH: operator * requires operands of arithmetic type
  'front-err-agg-noassign.d', // D_IDENT_UNDEF: failed to resolve @a: Unknown variable name
  'front-err-agg-pred.d', // D_IDENT_UNDEF: failed to resolve @a: Unknown variable name
  'front-err-agg-printf-s.d', // D_PRINTF_ARG_TYPE: printf( ) argument #2 is incompatible with conversion #1 prototype:
  'front-err-agg-printf.d', // D_PRINTF_ARG_TYPE: printf( ) argument #2 is incompatible with conversion #1 prototype:
  'front-err-agg-second-key.d', // D_KEY_TYPE: aggregation expression may not be used as aggregation index: key #2
  'front-err-agg-subr-key.d', // D_PROTO_ARG: strlen( ) argument #1 is incompatible with prototype:
  'front-err-agg-subr.d', // D_PROTO_ARG: strlen( ) argument #1 is incompatible with prototype:
  'front-err-agg-trace.d', // D_TRACE_DYN: trace( ) may not be applied to a dynamic expression
  'front-err-agg-undef-trace.d', // D_IDENT_UNDEF: failed to resolve @nope: Unknown variable name
  'front-err-agg-value.d', // D_AGG_SCALAR: sum( ) argument #1 must be of scalar type
  'front-err-alloca-size-big.d', // D_ALLOCA_SIZE: alloca(100000) size larger than scratchsize 256
  'front-err-alloca-size.d', // D_ALLOCA_SIZE: alloca(4294967296) size larger than scratchsize 256
  'front-err-amin-curthread.d', // D_ATTR_MIN: attributes for scalar curthread (Stable/Private/Common) are less tha
  'front-err-amin-evolving.d', // D_ATTR_MIN: attributes for function htonl( ) (Evolving/Evolving/Common) are less
  'front-err-amin-pragma.d', // D_ATTR_MIN: attributes for type struct file (Private/Private/Unknown) are less t
  'front-err-amin-value.d', // option: failed to set -x amin: Invalid value for specified option
  'front-err-args-const.d', // D_PROTO_ARG: args[ ] argument #1 is incompatible with prototype:
  'front-err-args-idx-begin.d', // D_ARGS_IDX: index 0 is out of range for :::BEGIN args[ ]
  'front-err-args-idx.d', // D_ARGS_IDX: index 7 is out of range for syscall::write:entry args[ ]
  'front-err-args-multi.d', // D_ARGS_MULTI: args[ ] may not be referenced because probe description syscall:::
  'front-err-args-none.d', // D_ARGS_NONE: args[ ] may not be referenced outside of a probe clause
  'front-err-args-zdefs.d', // D_PDESC_ZERO: probe description nosuchprovider:::nosuchprobe does not match any
  'front-err-arr-bounds-member.d', // D_ARR_BOUNDS: index outside array bounds: 3, max is 3
  'front-err-arr-bounds-neg.d', // D_ARR_BOUNDS: index outside array bounds: 18446744073709551615, max is 5
  'front-err-arr-bounds-str.d', // D_OP_INCOMPAT: operands have incompatible types: "int [5]" + "string"
  'front-err-arr-bounds-struct.d', // D_ARR_BOUNDS: index outside array bounds: 16, max is 16
  'front-err-arr-bounds.d', // D_ARR_BOUNDS: index outside array bounds: 5, max is 5
  'front-err-array-big.d', // D_DECL_ARRBIG: array dimension too big
  'front-err-array-dim.d', // D_DECL_ARRSUB: positive integral constant expression or tuple signature expected
  'front-err-array-void.d', // D_DECL_VOIDOBJ: cannot declare array of void
  'front-err-arrow-nonptr.d', // D_OP_PTR: operator -> must be applied to a pointer
  'front-err-arrow-nonstruct.d', // D_OP_SOU: operator -> cannot be applied to pointer to type "int"; must be applie
  'front-err-asrelo.d', // D_IDENT_UNDEF: failed to resolve `max_pfn: Unknown symbol name
  'front-err-assoc-key-unknown-type.d', // D_SYNTAX: syntax error near "]"
  'front-err-bitfield-size.d', // D_DECL_BFSIZE: bit-field too big for type: a
  'front-err-bitfield-type.d', // D_DECL_BFTYPE: invalid type for bit-field: p
  'front-err-bitfield-width.d', // D_DECL_BFSIZE: bit-field too big for type: a
  'front-err-bitfield-zero.d', // D_DECL_BFCONST: positive integral constant expression expected as bit-field size
  'front-err-builtin-unsupported.d', // D_IDENT_UNDEF: failed to resolve ipl: built-in variable not supported on this sy
  'front-err-cast-struct.d', // D_CAST_INVAL: invalid cast expression: "int" to "struct task_struct"
  'front-err-cast-unknown-type.d', // D_SYNTAX: syntax error near ")"
  'front-err-cast-unknown-type2.d', // D_SYNTAX: syntax error near "arg0"
  'front-err-decl-badclass.d', // D_DECL_BADCLASS: specified storage class not appropriate in D
  'front-err-decl-combo.d', // D_DECL_COMBO: invalid type combination
  'front-err-decl-useless.d', // D_DECL_USELESS: useless declaration
  'front-err-deep-nesting.d', // D_SYNTAX: program is nested too deeply to compile
  'front-err-deref-nonptr.d', // D_DEREF_NONPTR: cannot dereference non-pointer type
  'front-err-deref-void.d', // D_DEREF_VOID: cannot dereference pointer to void
  'front-err-dot-pointer.d', // D_OP_SOU: operator . cannot be applied to type "struct task_struct *"; must be a
  'front-err-dynvar-struct-one.d', // D_OP_INCOMPAT: operands have incompatible types: "struct s" = "int"
  'front-err-empty-comment.d', // option: failed to set -x noempty: Invalid option name
  'front-err-empty.d', // option: failed to set -x noempty: Invalid option name
  'front-err-enum-nonconst.d', // D_DECL_ENCONST: enumerator 'A' must be assigned to an integral constant expressi
  'front-err-enum-overflow.d', // D_DECL_ENOFLOW: enumerator 'BIG' value overflows INT_MAX (2147483647)
  'front-err-enum-redecl.d', // D_DECL_TYPERED: type redeclared: enum e
  'front-err-enumerator-builtin.d', // D_DECL_IDRED: identifier redeclared: pid
  'front-err-enumerator-redecl.d', // D_DECL_IDRED: identifier redeclared: A
  'front-err-fds-pathname.d', // D_XLATE_NOCONV: translator does not define conversion for member: fi_pathname
  'front-err-float-const.d', // D_SYNTAX: floating-point constants are not permitted
  'front-err-float-exp.d', // D_SYNTAX: floating-point constants are not permitted
  'front-err-forward-arrow.d', // D_OP_INCOMPLETE: operator -> cannot be applied to a forward declaration: no stru
  'front-err-func-ident-const.d', // D_FUNC_IDENT: function designator is not of function type
  'front-err-func-ident-inline.d', // D_FUNC_IDENT: function designator is not of function type
  'front-err-func-ident-member.d', // D_FUNC_IDENT: function designator is not of function type
  'front-err-func-ident-paren.d', // D_FUNC_IDENT: function designator is not of function type
  'front-err-func-ident-probe.d', // D_FUNC_IDKIND: scalar 'timestamp' may not be referenced as a function
  'front-err-func-ident-self.d', // D_FUNC_IDENT: function designator is not of function type
  'front-err-func-ident-var.d', // D_FUNC_UNDEF: undefined function name: x
  'front-err-func-ident.d', // D_FUNC_UNDEF: undefined function name: BEGIN
  'front-err-func-idkind-args.d', // D_FUNC_IDKIND: associative array 'args' may not be referenced as a function
  'front-err-func-idkind-curthread.d', // D_FUNC_IDKIND: scalar 'curthread' may not be referenced as a function
  'front-err-func-idkind-execname.d', // D_FUNC_IDKIND: scalar 'execname' may not be referenced as a function
  'front-err-func-undef-agg.d', // D_FUNC_UNDEF: undefined function name: @a
  'front-err-func-undef-module.d', // D_FUNC_UNDEF: undefined function name: `max_pfn
  'front-err-inline-incompat.d', // D_OP_INCOMPAT: inline s definition uses incompatible types: "string" = "int"
  'front-err-inline-redef.d', // D_DECL_IDRED: identifier redefined: x
  'front-err-inline-void.d', // D_DECL_VOIDOBJ: cannot declare void inline: v
  'front-err-instance-other.d', // D_PDESC_ZERO: probe description other:dtrace:::BEGIN does not match any probes
  'front-err-ksym-notypes.d', // D_SYM_NOTYPES: no symbolic type information is available for vmlinux`_stext: No
  'front-err-ksym-undef.d', // D_IDENT_UNDEF: failed to resolve `no_such_kernel_symbol: Unknown symbol name
  'front-err-lquant-base-var.d', // D_LQUANT_BASETYPE: lquantize( ) argument #1 must be an integer constant
  'front-err-lquant-basebig.d', // D_LQUANT_BASEVAL: lquantize( ) argument #1 must be a 32-bit quantity
  'front-err-lquant-equal-neg.d', // D_LQUANT_MISMATCH: lquantize( ) base (argument #1) must be less than limit (argument #2)
  'front-err-lquant-equal.d', // D_LQUANT_MISMATCH: lquantize( ) base (argument #1) must be less than limit (argument #2)
  'front-err-lquant-incr-str.d', // D_PROTO_ARG: lquantize( ) increment value (argument #5) must be of scalar type
  'front-err-lquant-limit-var.d', // D_LQUANT_LIMTYPE: lquantize( ) argument #2 must be an integer constant
  'front-err-lquant-limitbig.d', // D_LQUANT_LIMVAL: lquantize( ) argument #2 must be a 32-bit quantity
  'front-err-lquant-many.d', // D_PROTO_LEN: lquantize( ) prototype mismatch: 6 args passed, at most 5 expected
  'front-err-lquant-mismatch.d', // D_LQUANT_MISMATCH: lquantize( ) base (argument #1) must be less than limit (argument #2)
  'front-err-lquant-mixed.d', // D_LQUANT_MATCHLIM: lquantize( ) limit (argument #2) doesn't match previous declaration: ex
  'front-err-lquant-nsteps.d', // D_LQUANT_STEPSMALL: lquantize( ) step (argument #3) too small: number of quantization leve
  'front-err-lquant-step-var.d', // D_LQUANT_STEPTYPE: lquantize( ) argument #3 must be a non-zero positive integer constant
  'front-err-lquant-step-zero.d', // D_LQUANT_STEPTYPE: lquantize( ) argument #3 must be a non-zero positive integer constant
  'front-err-lquant-stepbig.d', // D_LQUANT_STEPVAL: lquantize( ) argument #3 must be a 16-bit quantity
  'front-err-lquant-steplarge.d', // D_LQUANT_STEPLARGE: lquantize( ) step (argument #3) too large: must have at least one quan
  'front-err-member-dup.d', // D_UNKNOWN: failed to define member 'a': Duplicate member or variable name.
  'front-err-member-incomplete.d', // D_DECL_INCOMPLETE: incomplete struct/union/enum struct dtrace_undefined_tag: x
  'front-err-member-unknown.d', // D_TYPE_MEMBER: no_such_member is not a member of struct task_struct
  'front-err-member-void.d', // D_DECL_VOIDOBJ: cannot have void member: v
  'front-err-null-assign.d', // D_OP_LVAL: operator = requires modifiable lvalue as an operand
  'front-err-offsetof-bitfield.d', // D_OFFSETOF_BITFIELD: cannot take offset of a bit-field: a
  'front-err-offsetof-member.d', // D_UNKNOWN: failed to determine offset of no_such_member: Member name not found
  'front-err-offsetof-type.d', // D_OFFSETOF_TYPE: offsetof operand must be a struct or union type
  'front-err-pragma-attributes.d', // D_PRAGMA_INVAL: invalid attributes specified by #pragma attributes
  'front-err-pragma-before-syntax.d', // D_PRAGMA_INVAL: a bad pragma before a syntax error is reported
  'front-err-pragma-binding.d', // D_PRAGMA_INVAL: invalid version string specified by #pragma binding
  'front-err-pragma-depends-class.d', // D_PRAGMA_INVAL: invalid class kernel specified by #pragma depends_on
  'front-err-pragma-depends-library.d', // D_PRAGMA_DEPEND: main program may not explicitly depend on a library
  'front-err-pragma-depends-module.d', // D_PRAGMA_DEPEND: program requires module no_such_module
  'front-err-pragma-depends-provider.d', // D_PRAGMA_DEPEND: program requires provider fbt_on_solaris
  'front-err-pragma-error.d', // D_PRAGERR: #error: this script needs a newer kernel
  'front-err-pragma-option-superfluous.d', // D_PRAGMA_MALFORM: superfluous arguments specified for #pragma option
  'front-err-pragma-unknown.d', // D_PRAGMA_INVAL: invalid D pragma: frobnicate
  'front-err-pspec-bare.d', // D_SYNTAX: expected predicate and/or actions following probe description
  'front-err-pspec-pragma.d', // D_SYNTAX: the same under #pragma D option pspec
  'front-err-predicate-undef-both.d', // D_IDENT_UNDEF: failed to resolve not_defined_anywhere: Unknown variable name
  'front-err-printf-argtype-ptr.d', // D_PRINTF_ARG_TYPE: printf( ) argument #2 is incompatible with conversion #1 prototype:
  'front-err-printf-argtype-str.d', // D_PRINTF_ARG_TYPE: printf( ) argument #2 is incompatible with conversion #1 prototype:
  'front-err-printf-argtype-struct.d', // D_PRINTF_ARG_TYPE: printf( ) argument #2 is incompatible with conversion #1 prototype:
  'front-err-printf-void.d', // D_PRINTF_ARG_TYPE: printf( ) argument #2 is incompatible with conversion #1 prototype:
  'front-err-proto-alloca-str.d', // D_PROTO_ARG: alloca( ) argument #1 is incompatible with prototype:
  'front-err-proto-avg-many.d', // D_PROTO_LEN: avg( ) prototype mismatch: 2 args passed, 1 expected
  'front-err-proto-basename-int.d', // D_PROTO_ARG: basename( ) argument #1 is incompatible with prototype:
  'front-err-proto-clear-int.d', // D_CLEAR_AGGARG: clear( ) argument #1 is incompatible with prototype:
  'front-err-proto-clear-many.d', // D_PROTO_LEN: clear( ) prototype mismatch: 2 args passed, 1 expected
  'front-err-proto-clear-none.d', // D_PROTO_LEN: clear( ) prototype mismatch: 0 args passed, 1 expected
  'front-err-proto-commit-none.d', // D_PROTO_LEN: commit( ) prototype mismatch: 0 args passed, 1 expected
  'front-err-proto-copyin-str.d', // D_PROTO_ARG: copyin( ) argument #1 is incompatible with prototype:
  'front-err-proto-count-arg.d', // D_PROTO_LEN: count( ) prototype mismatch: 1 arg passed, 0 expected
  'front-err-proto-denormalize-none.d', // D_PROTO_LEN: denormalize( ) prototype mismatch: 0 args passed, 1 expected
  'front-err-proto-discard-str.d', // D_PROTO_ARG: discard( ) argument #1 is incompatible with prototype:
  'front-err-proto-exit-many.d', // D_PROTO_LEN: exit( ) prototype mismatch: 2 args passed, 1 expected
  'front-err-proto-exit-none.d', // D_PROTO_LEN: exit( ) prototype mismatch: 0 args passed, 1 expected
  'front-err-proto-exit-str.d', // D_PROTO_ARG: exit( ) argument #1 is incompatible with prototype:
  'front-err-proto-getmajor-str.d', // D_PROTO_ARG: getmajor( ) argument #1 is incompatible with prototype:
  'front-err-proto-htons-str.d', // D_PROTO_ARG: htons( ) argument #1 is incompatible with prototype:
  'front-err-proto-index-int.d', // D_PROTO_ARG: index( ) argument #1 is incompatible with prototype:
  'front-err-proto-inet-ntoa-int.d', // D_PROTO_ARG: inet_ntoa( ) argument #1 is incompatible with prototype:
  'front-err-proto-llquantize-two.d', // D_PROTO_LEN: llquantize( ) prototype mismatch: 2 args passed, at least 5 expected
  'front-err-proto-lltostr-str.d', // D_PROTO_ARG: lltostr( ) argument #1 is incompatible with prototype:
  'front-err-proto-lquantize-one.d', // D_PROTO_LEN: lquantize( ) prototype mismatch: 1 arg passed, at least 3 expected
  'front-err-proto-min-str.d', // D_AGG_SCALAR: min( ) argument #1 must be of scalar type
  'front-err-proto-normalize-int.d', // D_NORMALIZE_AGGARG: normalize( ) argument #1 is incompatible with prototype:
  'front-err-proto-normalize-none.d', // D_PROTO_LEN: normalize( ) prototype mismatch: 1 arg passed, 2 expected
  'front-err-proto-normalize-str.d', // D_PROTO_ARG: normalize( ) argument #2 is incompatible with prototype:
  'front-err-proto-print-none.d', // D_PROTO_LEN: print( ) prototype mismatch: 0 args passed, 1 expected
  'front-err-proto-printa-int.d', // D_PRINTA_AGGARG: printa( ) argument #1 is incompatible with prototype:
  'front-err-proto-printa-none.d', // D_PROTO_LEN: printa( ) prototype mismatch: 0 args passed, at least 1 expected
  'front-err-proto-printf-fmt-int.d', // D_PRINTF_ARG_TYPE: printf( ) argument #2 is incompatible with conversion #1 prototype:
  'front-err-proto-printf-int.d', // D_PROTO_ARG: printf( ) argument #1 is incompatible with prototype:
  'front-err-proto-printf-none.d', // D_PROTO_LEN: printf( ) prototype mismatch: 0 args passed, at least 1 expected
  'front-err-proto-progenyof-many.d', // D_PROTO_LEN: progenyof( ) prototype mismatch: 2 args passed, 1 expected
  'front-err-proto-progenyof-none.d', // D_PROTO_LEN: progenyof( ) prototype mismatch: 0 args passed, 1 expected
  'front-err-proto-progenyof-str.d', // D_PROTO_ARG: progenyof( ) argument #1 is incompatible with prototype:
  'front-err-proto-quantize-none.d', // D_PROTO_LEN: quantize( ) prototype mismatch: 0 args passed, at least 1 expected
  'front-err-proto-raise-none.d', // D_PROTO_LEN: raise( ) prototype mismatch: 0 args passed, 1 expected
  'front-err-proto-rand-arg.d', // D_PROTO_LEN: rand( ) prototype mismatch: 1 arg passed, 0 expected
  'front-err-proto-setopt-int.d', // D_PROTO_ARG: setopt( ) argument #1 is incompatible with prototype:
  'front-err-proto-setopt-many.d', // D_PROTO_LEN: setopt( ) prototype mismatch: 3 args passed, at most 2 expected
  'front-err-proto-setopt-none.d', // D_PROTO_LEN: setopt( ) prototype mismatch: 0 args passed, at least 1 expected
  'front-err-proto-speculate-none.d', // D_PROTO_LEN: speculate( ) prototype mismatch: 0 args passed, 1 expected
  'front-err-proto-stack-str.d', // D_PROTO_ARG: stack( ) argument #1 is incompatible with prototype:
  'front-err-proto-stddev-none.d', // D_PROTO_LEN: stddev( ) prototype mismatch: 0 args passed, 1 expected
  'front-err-proto-strchr-str.d', // D_PROTO_ARG: strchr( ) argument #2 is incompatible with prototype:
  'front-err-proto-strjoin-int.d', // D_PROTO_ARG: strjoin( ) argument #2 is incompatible with prototype:
  'front-err-proto-strjoin-one.d', // D_PROTO_LEN: strjoin( ) prototype mismatch: 1 arg passed, 2 expected
  'front-err-proto-strlen-int.d', // D_PROTO_ARG: strlen( ) argument #1 is incompatible with prototype:
  'front-err-proto-strlen-none.d', // D_PROTO_LEN: strlen( ) prototype mismatch: 0 args passed, 1 expected
  'front-err-proto-substr-many.d', // D_PROTO_LEN: substr( ) prototype mismatch: 4 args passed, at most 3 expected
  'front-err-proto-substr-one.d', // D_PROTO_LEN: substr( ) prototype mismatch: 1 arg passed, at least 2 expected
  'front-err-proto-sum-none.d', // D_PROTO_LEN: sum( ) prototype mismatch: 0 args passed, 1 expected
  'front-err-proto-system-int.d', // D_PRINTF_ARG_FMT: system( ) argument #1 is incompatible with prototype:
  'front-err-proto-system-none.d', // D_PROTO_LEN: system( ) prototype mismatch: 0 args passed, at least 1 expected
  'front-err-proto-trace-many.d', // D_PROTO_LEN: trace( ) prototype mismatch: 2 args passed, 1 expected
  'front-err-proto-trace-none.d', // D_PROTO_LEN: trace( ) prototype mismatch: 0 args passed, 1 expected
  'front-err-proto-tracemem-one.d', // D_PROTO_LEN: tracemem( ) prototype mismatch: 1 arg passed, at least 2 expected
  'front-err-proto-trunc-none.d', // D_PROTO_LEN: trunc( ) prototype mismatch: 0 args passed, at least 1 expected
  'front-err-proto-trunc-str.d', // D_PROTO_ARG: trunc( ) argument #2 is incompatible with prototype:
  'front-err-proto-ustack-str.d', // D_PROTO_ARG: ustack( ) argument #1 is incompatible with prototype:
  'front-err-ptr-and.d', // D_OP_INT: operator & requires operands of integral type
  'front-err-ptr-cmp-int.d', // D_OP_INCOMPAT: operands have incompatible types: "struct task_struct *" == "int"
  'front-err-ptr-cmp-ptr.d', // D_OP_INCOMPAT: operands have incompatible types: "struct task_struct *" == "pid_
  'front-err-ptr-mul.d', // D_OP_ARITH: operator * requires operands of arithmetic type
  'front-err-ptr-plus-ptr.d', // D_OP_INCOMPAT: operands have incompatible types: "struct task_struct *" + "struc
  'front-err-scope-self-in-clause.d', // D_SYNTAX: syntax error near "int"
  'front-err-scope-self-redecl.d', // D_DECL_IDRED: identifier redeclared: x
  'front-err-scope-self-type.d', // D_OP_INCOMPAT: operands have incompatible types: "int" = "string"
  'front-err-scope-this-array-incr.d', // D_ARR_LOCAL: local variables may not be used as associative arrays: a
  'front-err-scope-this-array-read.d', // D_ARR_LOCAL: local variables may not be used as associative arrays: a
  'front-err-scope-this-array.d', // D_ARR_LOCAL: local variables may not be used as associative arrays: a
  'front-err-scope-this-decl-array.d', // D_DECL_LOCASSC: associative arrays may not be declared as local variables: a
  'front-err-scope-this-in-clause.d', // D_SYNTAX: syntax error near "int"
  'front-err-scope-this-int-index.d', // D_DEREF_NONPTR: cannot dereference non-pointer type
  'front-err-scope-this-redecl.d', // D_DECL_IDRED: identifier redeclared: x
  'front-err-scope-this-scalar-index.d', // D_DEREF_NONPTR: cannot dereference non-pointer type
  'front-err-scope-this-type.d', // D_OP_INCOMPAT: operands have incompatible types: "int" = "string"
  'front-err-sizeof-bitfield.d', // D_SIZEOF_BITFIELD: cannot apply sizeof to a bit-field
  'front-err-sizeof-incomplete.d', // D_SIZEOF_TYPE: cannot apply sizeof to an operand of unknown size
  'front-err-sizeof-void.d', // D_SIZEOF_TYPE: cannot apply sizeof to an operand of unknown size
  'front-err-string-int.d', // D_OP_INCOMPAT: operands have incompatible types: "string" != "int"
  'front-err-stringof-struct.d', // D_STRINGOF_TYPE: cannot apply stringof to a value of type struct sched_entity
  'front-err-struct-redecl.d', // D_DECL_TYPERED: type redeclared: struct s
  'front-err-syscall-new-alias.d', // D_PDESC_ZERO: probe description syscall::stat:entry does not match any probes: o
  'front-err-trace-void-cast.d', // D_TRACE_VOID: trace( ) may not be applied to a void expression
  'front-err-trace-void.d', // D_TRACE_VOID: trace( ) may not be applied to a void expression
  'front-err-typedef-redecl.d', // D_DECL_IDRED: identifier redeclared: foo_t
  'front-err-uaddr-notarget.d', // D_PRINTF_ARG_TYPE: printf( ) argument #2 is incompatible with conversion #1 prot
  'front-err-union-redecl.d', // D_DECL_TYPERED: type redeclared: union u
  'front-err-void-ptr-arith.d', // D_OP_INCOMPAT: operands have incompatible types: "void *" + "int"
  'front-err-xlate-arrow.d', // D_OP_PTR: operator -> must be applied to a pointer
  'front-err-xlate-badmember.d', // D_XLATE_MEMB: translator member c is not a member of struct out
  'front-err-xlate-incompat.d', // D_XLATE_INCOMPAT: translator member a definition uses incompatible types: "int"
  'front-err-xlate-incomplete.d', // D_XLATE_SOU: incomplete struct/union/enum struct fwd
  'front-err-xlate-memb.d', // D_XLATE_MEMB: translator member b is not a member of struct o
  'front-err-xlate-member.d', // D_ADDROF_VAR: cannot take address of dynamic variable
  'front-err-xlate-missing.d', // D_ADDROF_VAR: cannot take address of dynamic variable
  'front-err-xlate-noconv.d', // D_XLATE_NOCONV: translator does not define conversion for member: pr_size
  'front-err-xlate-none.d', // D_XLATE_NONE: cannot translate from "string" to "struct o *"
  'front-err-xlate-redecl.d', // D_XLATE_REDECL: translator from int to struct o has already been declared
  'front-err-xlate-redef.d', // D_XLATE_REDECL: translator from struct in * to struct out has already been declared
  'front-err-xlate-sou.d', // D_XLATE_SOU: translator output type must be a struct or union
  'front-err-xlate-type.d', // D_XLATE_INCOMPAT: translator member b definition uses incompatible types: "int" = "string"
  'front-err-xlate-whole.d', // D_ADDROF_VAR: cannot take address of dynamic variable
  'front-fds-file.d', // compiles under dtrace(1) only: needs -c ($target), which dtrace(1) gives it
  'front-libdir.d', // compiles under dtrace(1) only: needs its -L library
  'front-uaddr-target.d', // compiles under dtrace(1) only: needs -c ($target)
  'lang-builtin-err-pset.d', // D_IDENT_UNDEF: failed to resolve pset: built-in variable not supported on this s
  'lang-builtin-err-uregs-bounds.d', // D_UNKNOWN: uregs[]: index out of bounds (42)
  'lang-builtin-err-uregs-var.d', // D_PROTO_ARG: uregs[ ] argument #1 is incompatible with prototype:
  'lang-cpp-inline-ext.d', // D_SYNTAX: expected predicate and/or actions following probe description
  'lang-err-array-as-scalar.d', // D_IDENT_BADREF: associative array 'x' may not be referenced as scalar
  'lang-err-assign-builtin.d', // D_OP_WRITE: operator = can only be applied to a writable variable
  'lang-err-assign-incompat.d', // D_OP_INCOMPAT: operands have incompatible types: "struct s" = "int"
  'lang-err-assign-literal.d', // D_OP_LVAL: operator = requires modifiable lvalue as an operand
  'lang-err-assoc-value-type.d', // D_OP_INCOMPAT: operands have incompatible types: "int" = "string"
  'lang-err-bitnot-string.d', // D_OP_INT: operator ~ requires an operand of integral type
  'lang-err-clause-no-desc.d', // D_SYNTAX: syntax error near "{"
  'lang-err-compare-str-int.d', // D_OP_INCOMPAT: operands have incompatible types: "string" == "int"
  'lang-err-decl-void-var.d', // D_DECL_VOIDOBJ: cannot have void object: v
  'lang-err-desc-too-many-fields.d', // D_PDESC_INVAL: invalid probe description "a:b:c:d:e:f": Overspecified probe desc
  'lang-err-div-zero-const.d', // D_DIV_ZERO: expression contains division by zero
  'lang-err-dynvar-struct-incompat.d', // D_OP_INCOMPAT: operands have incompatible types: "struct pt" = "int"
  'lang-err-exit-noarg.d', // D_PROTO_LEN: exit( ) prototype mismatch: 0 args passed, 1 expected
  'lang-err-exit-string.d', // D_PROTO_ARG: exit( ) argument #1 is incompatible with prototype:
  'lang-err-incr-builtin.d', // D_OP_WRITE: operator ++ can only be applied to a writable variable
  'lang-err-incr-literal.d', // D_OP_LVAL: operator ++ requires modifiable lvalue as an operand
  'lang-err-macro-string-undef.d', // D_MACRO_UNDEF: macro argument $$2 is not defined
  'lang-err-macro-undef.d', // D_MACRO_UNDEF: macro argument $1 is not defined
  'lang-err-member-nonstruct.d', // D_OP_SOU: operator . cannot be applied to type "int"; must be applied to a struc
  'lang-err-mod-zero-const.d', // D_DIV_ZERO: expression contains division by zero
  'lang-err-offsetof-nonstruct.d', // D_OFFSETOF_TYPE: offsetof operand must be a struct or union type
  'lang-err-pdesc-nomatch.d', // D_PDESC_ZERO: probe description nosuchprovider:::entry does not match any probes
  'lang-err-pdesc-two-fields.d', // D_PDESC_ZERO: probe description :dtrace::BEGIN does not match any probes
  'lang-err-printf-arg-type.d', // D_PRINTF_ARG_TYPE: printf( ) argument #2 is incompatible with conversion #1 prot
  'lang-err-printf-extra-arg.d', // D_PRINTF_ARG_EXTRA: printf( ) prototype mismatch: only 1 arguments required by t
  'lang-err-printf-missing-arg.d', // D_PRINTF_ARG_PROTO: printf( ) prototype mismatch: conversion #2 (%d) is missing
  'lang-err-proto-none.d', // D_PROTO_LEN: strlen( ) prototype mismatch: 0 args passed, 1 expected
  'lang-err-proto-too-many.d', // D_PROTO_LEN: strlen( ) prototype mismatch: 2 args passed, 1 expected
  'lang-err-redeclare-var.d', // D_DECL_IDRED: identifier redeclared: x
  'lang-err-self-type-mismatch.d', // D_OP_INCOMPAT: operands have incompatible types: "int" = "string"
  'lang-err-self-unset.d', // D_VAR_UNDEF: self->z has not yet been declared or assigned
  'lang-err-speculate-arg.d', // D_PROTO_ARG: speculate( ) argument #1 is incompatible with prototype:
  'lang-err-string-int-assign.d', // D_OP_INCOMPAT: operands have incompatible types: "string" = "int"
  'lang-err-strjoin-int.d', // D_PROTO_ARG: strjoin( ) argument #1 is incompatible with prototype:
  'lang-err-syntax-empty-expr.d', // D_SYNTAX: syntax error near ";"
  'lang-err-syntax-eof.d', // D_SYNTAX: syntax error near end of input
  'lang-err-this-unset.d', // D_VAR_UNDEF: this->nosuch has not yet been declared or assigned
  'lang-err-trace-noarg.d', // D_PROTO_LEN: trace( ) prototype mismatch: 0 args passed, 1 expected
  'lang-err-unary-minus-string.d', // D_OP_ARITH: operator - requires an operand of arithmetic type
  'lang-err-unknown-func.d', // D_FUNC_UNDEF: undefined function name: nosuchfunc
  'lang-err-unterminated-string.d', // D_STR_NL: newline encountered in string literal
  'lang-macro-sid-pgid.d', // compiles under dtrace(1) only: needs -c ($sid)
  'lang-macro-target-none.d', // compiles under dtrace(1) only: needs -c ($target)
  'lang-store-err-array.d', // D_OP_ARRFUN: operator = may not be applied to operand of type "char [8]"
  'lang-store-err-builtin.d', // D_OP_WRITE: operator = can only be applied to a writable variable
  'lang-store-err-lvalue.d', // D_OP_LVAL: operator ++ requires modifiable lvalue as an operand
  'lang-store-err-sum.d', // D_OP_WRITE: operator = can only be applied to a writable variable
  'lang-store-err-symbol.d', // D_OP_WRITE: operator ++ can only be applied to a writable variable
  'lang-string-charptr-index.d', // D_CAST_INVAL: invalid cast expression: "string" to "char *"
  'lang-string-charptr.d', // D_SYNTAX: syntax error near "char"
  'lang-string-stringof-charp.d', // D_CAST_INVAL: invalid cast expression: "string" to "char *"
  'lang-xlate-basic.d', // D_ADDROF_VAR: cannot take address of dynamic variable
  'lang-xlate-cast-member.d', // D_ADDROF_VAR: cannot take address of dynamic variable
  'lang-xlate-ptr.d', // D_ADDROF_VAR: cannot take address of dynamic variable
  'lang-xlate-self-output.d', // D_ADDROF_VAR: cannot take address of dynamic variable
  'no-match.d', // D_PDESC_ZERO: probe description syscall::nosuchcall:entry does not match any pro
  'opt-err-empty.d', // D_EMPTY: empty D program translation unit
  'opt-err-pragma-cmdline-only.d', // D_PRAGMA_OPTSET: incdir cannot be set from within a D program
  'opt-err-strsize-min.d', // option: strsize=1 is too small
  'spec-err-agg.d', // D_AGG_SPEC: aggregating actions may not follow speculate( )
  'spec-err-commit-drec.d', // D_DREC_COMM: data-recording actions may not follow commit( )
  'spec-err-drec.d', // D_SPEC_DREC: speculate( ) may not follow data-recording action(s)
  'stack-err-expr.d', // D_CG_EXPR: tracing function stack( ) may not be called from a D expression (D pr
  'stack-err-size.d', // D_STACK_SIZE: stack( ) argument #1 must be a non-zero positive integer constant
  'stack-err-sym-proto.d', // D_PROTO_LEN: sym( ) prototype mismatch: 0 args passed, 1 expected
  'stack-err-ustack-frames.d', // D_USTACK_FRAMES: ustack( ) argument #1 must be a non-zero positive integer const
  'stack-err-ustack-strsize.d', // D_USTACK_STRSIZE: ustack( ) argument #2 must be a positive integer constant
  'subr-copyinto-inet-ntoa.d', // compiles under dtrace(1) only: needs -c ($target)
  'subr-err-nargs.d', // D_PROTO_LEN: substr( ) prototype mismatch: 1 arg passed, at least 2 expected
  'subr-err-proto.d', // D_PROTO_ARG: strlen( ) argument #1 is incompatible with prototype:
  'subr-err-unavailable.d', // D_IDENT_UNSUPP: subroutine mutex_owned( ) is not available on Linux: it inspects
  'subr-inet6-addrs.d', // compiles under dtrace(1) only: needs -c ($target)
  'syntax.d', // D_SYNTAX: syntax error near "}"
  'undefined-var.d', // D_IDENT_UNDEF: failed to resolve nosuchvar: Unknown variable name
  'vars-key-mismatch.d', // D_PROTO_LEN: a[ ] prototype mismatch: 1 key passed, 2 expected
  'vars-undef-array.d', // D_VAR_UNDEF: counts has not yet been declared or assigned
  'vars-undef-tls.d', // D_VAR_UNDEF: self->never has not yet been declared or assigned
  'front-err-syntax-assigned-no-peek.d', // D_SYNTAX
  'front-err-syntax-builtin-no-peek.d', // D_SYNTAX
  'front-err-syntax-func-no-peek.d', // D_SYNTAX
  'front-err-syntax-ident-comment.d', // D_SYNTAX
  'front-err-syntax-ident-eoi.d', // D_SYNTAX
  'front-err-syntax-ident-newline.d', // D_SYNTAX
  'front-err-syntax-ident-pred.d', // D_SYNTAX
  'front-err-syntax-ident-rest-of-line.d', // D_SYNTAX
  'front-err-syntax-ident-semicolon.d', // D_SYNTAX
  'front-err-syntax-ident-tab.d', // D_SYNTAX
  'front-err-syntax-keyword-no-peek.d', // D_SYNTAX
  'front-err-syntax-member-no-peek.d', // D_SYNTAX
  'front-err-syntax-string-adjacent.d', // D_SYNTAX
  'front-err-syntax-vmlinux-struct-cast.d', // D_SYNTAX
  'front-err-syntax-vmlinux-struct-sizeof.d', // D_SYNTAX
  'lang-scope-vmlinux-var-decl.d', // D_SYNTAX
  'front-err-agg-anon-null.d', // D_IDENT_UNDEF
  'front-err-agg-avg-two.d', // D_PROTO_LEN
  'front-err-agg-count-arg.d', // D_PROTO_LEN
  'front-err-agg-index-agg.d', // D_KEY_TYPE
  'front-err-agg-key-count-change.d', // D_PROTO_LEN
  'front-err-agg-key-count-fewer.d', // D_PROTO_LEN
  'front-err-agg-key-none-then-one.d', // D_PROTO_LEN
  'front-err-agg-key-one-then-none.d', // D_PROTO_LEN
  'front-err-agg-key-type-change.d', // D_PROTO_ARG
  'front-err-agg-key-type-second.d', // D_PROTO_ARG
  'front-err-agg-key-type-str-int.d', // D_PROTO_ARG
  'front-err-agg-keyed-minus-eq.d', // D_OP_VFPTR
  'front-err-agg-max-noarg.d', // D_PROTO_LEN
  'front-err-agg-mul-eq-declared.d', // D_VAR_UNDEF
  'front-err-agg-null-declared-keys.d', // D_AGG_NULL
  'front-err-agg-null-declared.d', // D_AGG_NULL
  'front-err-agg-null-keyed.d', // D_AGG_NULL
  'front-err-agg-null-stmt.d', // D_IDENT_UNDEF
  'front-err-agg-plus-eq.d', // D_VAR_UNDEF
  'front-err-agg-printf-agg.d', // D_PRINTF_ARG_TYPE
  'front-err-agg-quantize-string.d', // D_AGG_SCALAR
  'front-err-agg-redef-func.d', // D_AGG_REDEF
  'front-err-agg-redef-keyed.d', // D_AGG_REDEF
  'front-err-agg-redef-noerrtags.d', // error
  'front-err-agg-redef-two-clauses.d', // D_AGG_REDEF
  'front-err-agg-stddev-struct.d', // D_AGG_SCALAR
  'front-err-agg-sum-string.d', // D_AGG_SCALAR
  'front-err-agg-trace-agg.d', // D_TRACE_DYN
  'front-err-self-array-decl-clause.d', // D_SYNTAX
  'front-err-this-decl-in-clause.d', // D_SYNTAX
  'front-err-dtraceflt-library.d', // D_IDENT_UNDEF
  'front-err-offsetof-int.d', // D_OFFSETOF_TYPE
  'front-err-offsetof-nomember.d', // D_UNKNOWN
  'front-err-offsetof-union-nomember.d', // D_UNKNOWN
  'lang-str-charptr-from-string.d', // D_CAST_INVAL
];
