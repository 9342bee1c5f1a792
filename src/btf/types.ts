// Typed descriptions of BTF types, as the compiler sees them.
// Kind numbers and record layouts follow include/uapi/linux/btf.h.

/** BTF kind numbers as stored in bits 24..28 of btf_type.info. */
export const BTF_KIND = {
  INT: 1,
  PTR: 2,
  ARRAY: 3,
  STRUCT: 4,
  UNION: 5,
  ENUM: 6,
  FWD: 7,
  TYPEDEF: 8,
  VOLATILE: 9,
  CONST: 10,
  RESTRICT: 11,
  FUNC: 12,
  FUNC_PROTO: 13,
  VAR: 14,
  DATASEC: 15,
  FLOAT: 16,
  DECL_TAG: 17,
  TYPE_TAG: 18,
  ENUM64: 19,
} as const;

export type BtfKindName =
  | 'void'
  | 'int'
  | 'ptr'
  | 'array'
  | 'struct'
  | 'union'
  | 'enum'
  | 'fwd'
  | 'typedef'
  | 'volatile'
  | 'const'
  | 'restrict'
  | 'func'
  | 'func_proto'
  | 'var'
  | 'datasec'
  | 'float'
  | 'decl_tag'
  | 'type_tag'
  | 'enum64';

/** Kind number -> kind name; index 0 is void (type id 0 only). */
export const KIND_NAMES: readonly BtfKindName[] = [
  'void', 'int', 'ptr', 'array', 'struct', 'union', 'enum', 'fwd', 'typedef', 'volatile',
  'const', 'restrict', 'func', 'func_proto', 'var', 'datasec', 'float', 'decl_tag', 'type_tag',
  'enum64',
];

/** BTF_INT_ENCODING bits. */
export const BTF_INT_SIGNED = 1;
export const BTF_INT_CHAR = 2;
export const BTF_INT_BOOL = 4;

export type BtfLinkage = 'static' | 'global' | 'extern';
export const LINKAGES: readonly BtfLinkage[] = ['static', 'global', 'extern'];

interface Base {
  /** Type id within the whole (possibly split) BTF. */
  id: number;
  /** Name ('' when anonymous). */
  name: string;
}

export interface BtfVoid extends Base {
  kind: 'void';
}

export interface BtfInt extends Base {
  kind: 'int';
  /** Storage size in bytes. */
  size: number;
  signed: boolean;
  char: boolean;
  bool: boolean;
  /** Number of value bits (BTF_INT_BITS). */
  bits: number;
  /** Bit offset of the value within the storage (BTF_INT_OFFSET); 0 for ordinary ints. */
  bitOffset: number;
}

export interface BtfPtr extends Base {
  kind: 'ptr';
  target: number;
}

export interface BtfArray extends Base {
  kind: 'array';
  element: number;
  indexType: number;
  count: number;
}

export interface BtfMember {
  name: string;
  type: number;
  /** Offset of the member from the start of its struct/union, in bits. */
  bitOffset: number;
  /** Width of a bitfield in bits, 0 when the member is not a bitfield (kind_flag encoding). */
  bitfieldSize: number;
}

export interface BtfComposite extends Base {
  kind: 'struct' | 'union';
  size: number;
  members: BtfMember[];
}

export interface BtfEnumerator {
  name: string;
  value: bigint;
}

export interface BtfEnum extends Base {
  kind: 'enum' | 'enum64';
  size: number;
  signed: boolean;
  values: BtfEnumerator[];
}

export interface BtfFwd extends Base {
  kind: 'fwd';
  /** True for `union X;`, false for `struct X;`. */
  union: boolean;
}

/** typedef and the qualifiers that only wrap another type. */
export interface BtfRef extends Base {
  kind: 'typedef' | 'volatile' | 'const' | 'restrict';
  target: number;
}

export interface BtfTypeTag extends Base {
  kind: 'type_tag';
  target: number;
  /** kind_flag: the tag is an __attribute__ rather than btf_type_tag. */
  attribute: boolean;
}

export interface BtfFunc extends Base {
  kind: 'func';
  /** Id of the FUNC_PROTO. */
  proto: number;
  linkage: BtfLinkage;
}

export interface BtfParam {
  name: string;
  type: number;
}

export interface BtfFuncProto extends Base {
  kind: 'func_proto';
  returnType: number;
  params: BtfParam[];
  /** Last parameter was the `...` marker (type 0); it is not in params. */
  variadic: boolean;
}

export interface BtfVar extends Base {
  kind: 'var';
  type: number;
  linkage: BtfLinkage;
}

export interface BtfVarSecinfo {
  type: number;
  offset: number;
  size: number;
}

export interface BtfDatasec extends Base {
  kind: 'datasec';
  size: number;
  vars: BtfVarSecinfo[];
}

export interface BtfFloat extends Base {
  kind: 'float';
  size: number;
}

export interface BtfDeclTag extends Base {
  kind: 'decl_tag';
  target: number;
  /** -1 when the tag applies to the type itself, else the member or parameter index. */
  componentIdx: number;
  attribute: boolean;
}

export type BtfType =
  | BtfVoid
  | BtfInt
  | BtfPtr
  | BtfArray
  | BtfComposite
  | BtfEnum
  | BtfFwd
  | BtfRef
  | BtfTypeTag
  | BtfFunc
  | BtfFuncProto
  | BtfVar
  | BtfDatasec
  | BtfFloat
  | BtfDeclTag;

/** Result of a member lookup: where the member lives relative to the outermost struct. */
export interface BtfMemberInfo {
  name: string;
  /** Type id of the member (unresolved: may be a typedef). */
  type: number;
  /** Offset in bits from the start of the outermost struct/union. */
  bitOffset: number;
  /** floor(bitOffset / 8). */
  byteOffset: number;
  /** Bitfield width in bits; 0 when the member is not a bitfield. */
  bitfieldSize: number;
}

/** Every BTF problem (corrupt data, missing type, bad query) is reported with this class. */
export class BtfError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'BtfError';
  }
}
