// Render a BTF type as a C type name: `struct task_struct *`, `char [16]`,
// `int (*)(void *, int)`, `const char *`, `char *const`.
//
// Works like a C declarator written inside out: each step wraps the declarator
// built so far (the part to the right of the base type) and hands it to the
// type it refers to, until a named base type is reached.

import type { BtfType } from './types.js';

export type TypeGetter = (id: number) => BtfType;

const MAX_DEPTH = 64;

export function renderTypeName(get: TypeGetter, id: number): string {
  return render(get, id, '', 0);
}

function withDecl(base: string, decl: string): string {
  return decl === '' ? base : `${base} ${decl}`;
}

function anonName(keyword: string, name: string): string {
  return name === '' ? `${keyword} (anon)` : `${keyword} ${name}`;
}

/** Skip type tags, which do not show in C names. */
function skipTags(get: TypeGetter, id: number): BtfType {
  let t = get(id);
  for (let i = 0; t.kind === 'type_tag' && i < MAX_DEPTH; i++) t = get(t.target);
  return t;
}

function render(get: TypeGetter, id: number, decl: string, depth: number): string {
  if (depth > MAX_DEPTH) return withDecl('?', decl);
  const t = get(id);
  switch (t.kind) {
    case 'void':
      return withDecl('void', decl);
    case 'int':
    case 'float':
    case 'typedef':
      return withDecl(t.name, decl);
    case 'struct':
    case 'union':
      return withDecl(anonName(t.kind, t.name), decl);
    case 'enum':
    case 'enum64':
      return withDecl(anonName('enum', t.name), decl);
    case 'fwd':
      return withDecl(anonName(t.union ? 'union' : 'struct', t.name), decl);
    case 'ptr': {
      // A pointer to an array or a function needs parentheses: int (*)[4].
      const target = skipTags(get, t.target);
      const inner = '*' + decl;
      const needParens = target.kind === 'array' || target.kind === 'func_proto';
      return render(get, t.target, needParens ? `(${inner})` : inner, depth + 1);
    }
    case 'array':
      return render(get, t.element, `${decl}[${t.count}]`, depth + 1);
    case 'const':
    case 'volatile':
    case 'restrict': {
      const target = skipTags(get, t.target);
      // A qualified pointer puts the qualifier after the star: char *const.
      if (target.kind === 'ptr') return render(get, t.target, decl === '' ? t.kind : `${t.kind} ${decl}`, depth + 1);
      return `${t.kind} ${render(get, t.target, decl, depth + 1)}`;
    }
    case 'type_tag':
      return render(get, t.target, decl, depth + 1);
    case 'func_proto': {
      const params = t.params.map((p) => render(get, p.type, '', depth + 1));
      if (t.variadic) params.push('...');
      const list = params.length === 0 ? 'void' : params.join(', ');
      return render(get, t.returnType, `${decl}(${list})`, depth + 1);
    }
    case 'func':
      return render(get, t.proto, decl === '' ? t.name : decl, depth + 1);
    case 'var':
      return render(get, t.type, decl, depth + 1);
    case 'datasec':
      return withDecl(`section ${t.name}`, decl);
    case 'decl_tag':
      return render(get, t.target, decl, depth + 1);
  }
}
