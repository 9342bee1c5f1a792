// Clauses that do not multiply: one probe's clauses as a chain of programs.
//
// The verifier's time for one program grows faster than its length (100 string clauses on one
// probe: 78k instructions, about 2 s of kernel time; 200: 156k, about 9 s), and a program past a
// million processed instructions is refused. So a probe whose program would be long is given
// several: its clauses, in DTrace's order, are cut into links of about LINK_INSNS instructions,
// each link a program of its own (prologue, its clauses, the ERROR block), and each link but the
// last ends in a tail call to the next through a program array. The first link is the one
// attached. What clauses share lives in this CPU's scratch memory (clause-locals, the record
// being built) or in maps, which a tail call keeps; exit() in one link stops the later ones'
// clauses through the activity word as within one program. Nothing is added to a short probe's
// program: a probe is chained only when its one program would pass CHAIN_ABOVE instructions
// (before clean-up, which is then left to the links: the one program is not finished).

import * as D from '../../dif/constants.js';
import type { EcbDescription } from '../../dof/program.js';

/** A probe's program longer than this (instructions, before clean-up) is cut into links. */
export const CHAIN_ABOVE = 32768;
/**
 * A link's length: half of CHAIN_ABOVE, so that the verifier's own rewriting (inlined map
 * lookups, ...) keeps every jump in a link within its 16-bit reach ("insn N cannot be patched
 * due to 16-bit range" for 500 count() clauses in a 32k link).
 */
export const LINK_INSNS = 16384;
/** The kernel follows at most 33 tail calls in a row; a dispatcher may have taken one. */
const MAX_LINKS = 32;

/** A program's place in a chain of programs holding one probe's clauses. */
export interface ChainLink {
  progArrayFd: number;
  /** The index of the next link in the program array; none for the last link. */
  next?: number;
  /** A clause of an earlier link has an exit() action. */
  exitBefore: boolean;
}

/** What a chain needs of a clause's plan (the translator's EcbPlan): whether it has exit(). */
export interface ChainPlan {
  desc: EcbDescription;
}

export interface ChainIo<P extends ChainPlan> {
  /** The program for some of the probe's clauses as one link. */
  translate(plans: P[], link: ChainLink): Buffer;
  /** Load one link's program (as any probe's program: a refusal names the clause); its fd. */
  load(insns: Buffer, plans: P[], link: ChainLink): number;
  /** A program array of n entries; its fd. */
  progArray(n: number): number;
  /** Put program fd at index i of the program array. */
  setLink(arrayFd: number, i: number, progFd: number): void;
}

/**
 * Groups of consecutive clauses, each about `budget` instructions long at most (a clause longer
 * than that is a group alone), from each clause's length alone.
 */
export function cutLinks(sizes: number[], budget: number): number[][] {
  const groups: number[][] = [];
  let cur: number[] = [], len = 0;
  sizes.forEach((size, i) => {
    if (cur.length && len + size > budget) groups.push(cur), (cur = []), (len = 0);
    cur.push(i), (len += size);
  });
  if (cur.length) groups.push(cur);
  return groups;
}

/**
 * Load the probe's clauses as a chain, when their one program (each clause's length in it given)
 * was too long (ProbeTranslator.tooLong); the fd of the program to attach, the first link's.
 */
export function loadChain<P extends ChainPlan>(plans: P[], clauseLengths: number[], io: ChainIo<P>): number {
  // Cut by each clause's length in the whole program (before clean-up, which shrinks all alike).
  let budget = LINK_INSNS, groups = cutLinks(clauseLengths, budget);
  while (groups.length > MAX_LINKS) groups = cutLinks(clauseLengths, (budget *= 2));
  const arrayFd = io.progArray(groups.length);
  let first = -1;
  for (let k = 0; k < groups.length; k++) {
    const ps = groups[k].map((i) => plans[i]);
    const exitBefore = groups.slice(0, k).some((g) => g.some((i) => plans[i].desc.actions.some((x) => x.kind === D.DTRACEACT_EXIT)));
    const link = { progArrayFd: arrayFd, next: k + 1 < groups.length ? k + 1 : undefined, exitBefore };
    const fd = io.load(io.translate(ps, link), ps, link);
    if (k === 0) first = fd;
    else io.setLink(arrayFd, k, fd);
  }
  return first;
}
