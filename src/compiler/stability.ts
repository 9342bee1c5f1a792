// Stability attributes of a D program, for `dtrace -v`'s report (libdtrace dt_program.c,
// dtrace(1)'s exec_prog): the minimum probe description attributes and the minimum statement
// attributes over the program's clauses.
//
// A description's attributes are its provider's, lowered by those of each element it names
// (empty and glob elements do not count); with no provider or a glob provider, every element is
// Unstable/Unstable/Common (dt_probe_info). A statement's attributes are the minimum over its
// predicate and actions of the attributes of every identifier, type and constant they use: D
// variables are Stable/Stable/Common except curthread (Stable/Private/Common), kernel types and
// symbols are Private/Private/Unknown, args[] has its provider's argument attributes, and a few
// subroutines are Evolving (dt_open.c's tables).

import type * as A from './ast.js';
import type { ProbeDescription } from '../dof/program.js';
import { isGlob } from '../providers/glob.js';
import { attr, DEPENDENCY_CLASS, STABILITY, type Attribute, type ProviderAttributes } from '../abi/stability.js';
import type { ProbeRegistry } from '../providers/registry.js';
import type { TypeScope } from './ctypes.js';
import { DtraceError } from './errors.js';
import { typeName } from './types.js';
import { SUBROUTINE_BY_NAME } from '../dif/subroutines.js';

export type { Attribute };

/** _dtrace_maxattr: where a minimum starts. */
export const MAX_ATTR = attr('Standard', 'Standard', 'Common');
/** _dtrace_defattr: constants, D types, program variables. */
export const DEF_ATTR = attr('Stable', 'Stable', 'Common');
/** _dtrace_typattr and _dtrace_symattr: kernel types and symbols. */
const KERNEL_ATTR = attr('Private', 'Private', 'Unknown');
const CURTHREAD_ATTR = attr('Stable', 'Private', 'Common');
const EVOLVING_ATTR = attr('Evolving', 'Evolving', 'Common');
/** _dtrace_prvdesc: a description naming no provider (or a glob of providers). */
const UNSTABLE_ATTR = attr('Unstable', 'Unstable', 'Common');
const UNSTABLE_PROVIDER: ProviderAttributes = {
  provider: UNSTABLE_ATTR, module: UNSTABLE_ATTR, function: UNSTABLE_ATTR, name: UNSTABLE_ATTR, args: UNSTABLE_ATTR,
};

const AGGREGATING_FUNCTIONS = new Set(['count', 'sum', 'avg', 'min', 'max', 'stddev', 'quantize', 'lquantize', 'llquantize']);

/** The lower of two attributes, element by element (dt_attr_min). */
export function minAttr(a: Attribute, b: Attribute): Attribute {
  const lower = <T extends string>(order: readonly T[], x: T, y: T): T => (order.indexOf(x) <= order.indexOf(y) ? x : y);
  return {
    name: lower(STABILITY, a.name, b.name),
    data: lower(STABILITY, a.data, b.data),
    dependency: lower(DEPENDENCY_CLASS, a.dependency, b.dependency),
  };
}

/** The attribute table of the provider a description names (Unstable without one). */
export function providerAttributes(p: ProbeDescription, registry: ProbeRegistry): ProviderAttributes {
  if (p.provider === '' || isGlob(p.provider)) return UNSTABLE_PROVIDER;
  return registry.provider(p.provider)?.attributes ?? UNSTABLE_PROVIDER;
}

/** A probe description's attributes (dt_probe_info). */
export function descriptionAttributes(p: ProbeDescription, registry: ProbeRegistry): Attribute {
  const pa = providerAttributes(p, registry);
  const named = (s: string) => s !== '' && !isGlob(s);
  let a = pa.provider;
  if (named(p.module)) a = minAttr(a, pa.module);
  if (named(p.function)) a = minAttr(a, pa.function);
  if (named(p.name)) a = minAttr(a, pa.name);
  return a;
}

/** An attribute as DTrace writes it: "Stable/Private/Common". */
export function attributeString(a: Attribute): string {
  return `${a.name}/${a.data}/${a.dependency}`;
}

/** dt_attr_cmp(a, b) < 0: some element of `a` is lower than `b`'s. */
function below(a: Attribute, b: Attribute): boolean {
  return STABILITY.indexOf(a.name) < STABILITY.indexOf(b.name) || STABILITY.indexOf(a.data) < STABILITY.indexOf(b.data) ||
    DEPENDENCY_CLASS.indexOf(a.dependency) < DEPENDENCY_CLASS.indexOf(b.dependency);
}

/**
 * A clause's statement attributes: its actions' and predicate's (dt_cook_clause). With `amin`
 * (-x amin), an identifier, call or type whose attributes are below it is the compile error
 * D_ATTR_MIN, as libdtrace reports it when it assigns a node its attributes.
 */
export function clauseAttributes(c: A.Clause, types: TypeScope, args: Attribute, amin?: Attribute): Attribute {
  const walker = new AttributeWalk(types, args, amin);
  let a = DEF_ATTR;
  if (c.predicate) a = minAttr(a, walker.expr(c.predicate));
  for (const s of c.body ?? []) a = minAttr(a, walker.statement(s));
  return a;
}

class AttributeWalk {
  constructor(private types: TypeScope, private args: Attribute, private amin?: Attribute) {}

  /** A node's attributes, checked against -x amin; `what` names the node as libdtrace does. */
  private check(a: Attribute, what: () => string, at: A.Expression): Attribute {
    if (this.amin && below(a, this.amin))
      throw new DtraceError('D_ATTR_MIN', `attributes for ${what()} (${attributeString(a)}) are less than predefined minimum`, { line: at.line, file: at.file });
    return a;
  }

  statement(s: A.Statement): Attribute {
    if (s.kind === 'ExpressionStatement') return this.expr(s.expression);
    let a = this.expr(s.test);
    for (const t of [...s.consequent, ...(s.alternate ?? [])]) a = minAttr(a, this.statement(t));
    return a;
  }

  expr(e: A.Expression): Attribute {
    switch (e.kind) {
      case 'Identifier':
        if (e.module !== undefined) return this.check(KERNEL_ATTR, () => `symbol ${e.module}\`${e.name}`, e);
        return this.check(e.name === 'curthread' ? CURTHREAD_ATTR : DEF_ATTR, () => `scalar ${e.name}`, e);
      case 'Index':
        if (e.base.kind === 'Identifier' && e.base.name === 'args' && e.base.module === undefined)
          return this.all(e.keys, this.check(minAttr(DEF_ATTR, this.args), () => 'associative array args', e.base));
        return this.all(e.keys, this.expr(e.base));
      case 'Call': {
        const name = e.callee.kind === 'Identifier' ? e.callee.name : '';
        const args = this.all(e.args, DEF_ATTR);
        const kind = SUBROUTINE_BY_NAME.has(name) ? 'function' : AGGREGATING_FUNCTIONS.has(name) ? 'aggregating function' : 'tracing function';
        return minAttr(args, this.check(SUBROUTINE_BY_NAME.get(name)?.evolving ? EVOLVING_ATTR : DEF_ATTR, () => `${kind} ${name}( )`, e));
      }
      case 'Member':
        return this.expr(e.object);
      case 'Cast':
      case 'Xlate':
        return minAttr(this.typeAt(e.type.type, e), this.expr(e.operand));
      case 'SizeofType':
      case 'Offsetof':
        return this.typeAt(e.type.type, e);
      default:
        return this.all(children(e), DEF_ATTR);
    }
  }

  private all(list: A.Expression[], start: Attribute): Attribute {
    let a = start;
    for (const x of list) a = minAttr(a, this.expr(x));
    return a;
  }

  private typeAt(t: A.TypeExpression, at: A.Expression): Attribute {
    return this.check(this.type(t), () => `type ${typeName(this.types.resolve(t))}`, at);
  }

  /** D's own types are Stable; the kernel's are Private (dt_node_type). */
  private type(t: A.TypeExpression): Attribute {
    switch (t.kind) {
      case 'PointerType': return this.type(t.to);
      case 'ArrayType': return this.type(t.of);
      case 'FunctionType': return this.type(t.returns);
      case 'NamedType': {
        const s = t.specifier;
        if (s.kind === 'BuiltinType') return DEF_ATTR;
        if (s.kind === 'TypedefName') return s.module === undefined && this.types.isDTypeName(s.name) ? DEF_ATTR : KERNEL_ATTR;
        if (s.module !== undefined) return KERNEL_ATTR;
        try {
          const r = this.types.resolve(t);
          return (r.kind === 'struct' && r.def.origin === 'D') || (r.kind === 'enum' && r.def.origin === 'D') ? DEF_ATTR : KERNEL_ATTR;
        } catch {
          return DEF_ATTR;
        }
      }
    }
  }
}

/** The sub-expressions of an expression whose attributes are simply combined. */
function children(e: A.Expression): A.Expression[] {
  switch (e.kind) {
    case 'Aggregation': return e.keys ?? [];
    case 'Update': case 'Unary': case 'SizeofExpression': case 'Stringof': return [e.operand];
    case 'Binary': case 'Comma': return [e.left, e.right];
    case 'Conditional': return [e.test, e.consequent, e.alternate];
    case 'Assignment': return [e.target, e.value];
    default: return [];
  }
}

/** What `dtrace -v` reports for one program (-n description or -s script). */
export interface ProgramAttributes {
  descAttr: Attribute;
  stmtAttr: Attribute;
}

function lines(title: string, a: Attribute): string {
  return `\n\t${title}\n\t\tIdentifier Names: ${a.name}\n\t\tData Semantics:   ${a.data}\n\t\tDependency Class: ${a.dependency}\n`;
}

/**
 * The report dtrace(1) prints with -v for one program: `desc` and `name` as in its "matched"
 * notice ("description", "BEGIN" or "script", "x.d"). `statements` is what follows the minimums:
 * "\n" after enabling, the statement blocks under -e.
 */
export function stabilityReport(desc: string, name: string, a: ProgramAttributes, statements: string): string {
  return `\nStability attributes for ${desc} ${name}:\n` +
    lines('Minimum Probe Description Attributes', a.descAttr) +
    lines('Minimum Statement Attributes', a.stmtAttr) + statements;
}

/** One statement's block in `dtrace -ev`'s report: its description and its first probe's info. */
export function statementReport(p: ProbeDescription, probe: { desc: Attribute; args: Attribute; argTypes: string[] } | undefined): string {
  let out = `\n${p.provider}:${p.module}:${p.function}:${p.name}\n`;
  if (!probe) return out;
  out += lines('Probe Description Attributes', probe.desc) + lines('Argument Attributes', probe.args) + '\n\tArgument Types\n';
  probe.argTypes.forEach((t, i) => (out += `\t\targs[${i}]: ${t}\n`));
  if (probe.argTypes.length === 0) out += '\t\tNone\n';
  return out + '\n';
}
