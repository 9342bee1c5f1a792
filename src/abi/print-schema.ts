// The print() type schema: how a DOF format string describes the type of the value print() traced,
// since the consumer has no CTF to look it up in. The compiler writes it (src/compiler/print.ts);
// the consumer reads it (src/consumer/print.ts).

/** A type as the consumer needs it to print a value. */
export type TypeNode =
  /** c: a char (printed quoted), as CTF marks char and signed char. */
  | { k: 'int'; n: string; z: number; s: boolean; c?: true }
  | { k: 'float'; n: string; z: number }
  | { k: 'ptr'; n: string }
  | { k: 'string'; z: number }
  | { k: 'array'; n: string; e: TypeNode; c: number; z: number }
  | { k: 'struct'; n: string; i: number }
  | { k: 'enum'; n: string; v: [string, string][] }
  | { k: 'func'; n: string }
  | { k: 'void' };

export interface StructNode {
  union: boolean;
  size: number;
  complete: boolean;
  /** name, bit offset, bit-field width (0 if none), type */
  m: [string, number, number, TypeNode][];
}

export interface TypeDescriptor {
  t: TypeNode;
  s: StructNode[];
}

export const PRINT_FORMAT_PREFIX = 'print`';

/** The format of print()'s first record, the address it was given (the second is the pointee). */
export const PRINT_ADDRESS_FORMAT = 'print`*';
