// Stability attributes (dtrace_attribute_t): the facts every stage that speaks of stability shares
// -- providers declare them, DOF carries them, -v prints them and -x amin reads them.

/** DTrace stability levels (dtrace_stability_t), lowest first. */
export const STABILITY = [
  'Internal',
  'Private',
  'Obsolete',
  'External',
  'Unstable',
  'Evolving',
  'Stable',
  'Standard',
] as const;
export type Stability = (typeof STABILITY)[number];

/** DTrace dependency classes (dtrace_class_t), lowest first. */
export const DEPENDENCY_CLASS = ['Unknown', 'CPU', 'Platform', 'Group', 'ISA', 'Common'] as const;
export type DependencyClass = (typeof DEPENDENCY_CLASS)[number];

/** One attribute triple (dtrace_attribute_t). */
export interface Attribute {
  name: Stability;
  data: Stability;
  dependency: DependencyClass;
}

/** A provider's attributes for each element of its probe descriptions (dtrace_pattr_t). */
export interface ProviderAttributes {
  provider: Attribute;
  module: Attribute;
  function: Attribute;
  name: Attribute;
  args: Attribute;
}

/** A shorthand for attribute tables. */
export function attr(name: Stability, data: Stability, dependency: DependencyClass): Attribute {
  return { name, data, dependency };
}

/**
 * -x amin's value as dtrace_str2attr() reads it: up to three '/'-separated names, in any case,
 * for the name stability, the data stability and the dependency class; the ones left out are the
 * highest (Standard/Standard/Common). null when it is not one.
 */
export function parseAttribute(text: string): Attribute | null {
  const parts = text === '' ? [] : text.split('/');
  if (parts.length > 3 || parts.some((p) => p === '')) return null;
  const find = <T extends string>(names: readonly T[], p: string) => names.find((n) => n.toLowerCase() === p.toLowerCase());
  const name = parts[0] === undefined ? 'Standard' : find(STABILITY, parts[0]);
  const data = parts[1] === undefined ? 'Standard' : find(STABILITY, parts[1]);
  const dependency = parts[2] === undefined ? 'Common' : find(DEPENDENCY_CLASS, parts[2]);
  return name && data && dependency ? { name, data, dependency } : null;
}
