// json(str, selector) with DTrace's semantics (dtrace_dif_subr, dtrace_json): the selector is
// split into elements ("a.b[2]" is a, b, 2; a leading "[" is dropped), then one pass over at most
// strsize bytes of the text follows them into objects and arrays. The value is returned as text
// in the clause's scratch memory: a string without its quotes (escapes as written), a number,
// true/false/null, or a whole object or array as written; NULL when the text ends, is not JSON
// as the pass expects, or the selector names nothing.
//
// The pass is a state machine, one byte (or one step over the selector) per iteration of a
// single loop. Its state lives in mem, which the verifier does not track, and the loop is
// bounded by may_goto and a step counter in mem: the verifier then checks the body about twice,
// whatever strsize is, instead of once per iteration.

import * as D from '../../dif/constants.js';
import { ALU, type BpfAsm, HELPER, JMP, type Label, R0, R1, R2, R3, R5, R6, R7, R8 } from './bpf-asm.js';
import type { MemLayout, ProbeTranslator } from './translate.js';

/** BPF_JMP | BPF_JCOND: may_goto, taken once the program's loop budget is spent. */

// States: those up to COLLECT read the next byte of the text; the others step over the selector.
const REST = 0, OBJECT = 1, STRING = 2, ESCAPE = 3, UNICODE = 4, COLON = 5, COMMA = 6, IDENT = 7;
const NUMBER = 8, FRAC = 9, EXP = 10, VALUE = 11, COLLECT = 12;
const NEXTELEM = 13, ATOI_WS = 14, ATOI_DIGITS = 15;

/** The variables of one call, in this order in a scratch slot: u32, but the index and its value. */
const VARS = [
  'st', 'cur', 'dd', 'eo', 'nel', 'found', 'isKey', 'collect', 'inArray', 'keyMatch', 'keyPos',
  'unicount', 'braces', 'brackets', 'arrayPos', 'sp', 'neg', 'steps', 'w', 'arrayElem', 'val',
] as const;
type Var = (typeof VARS)[number];
const WIDE: readonly Var[] = ['arrayElem', 'val'];
const varOffset = (name: Var): number => {
  const i = VARS.indexOf(name);
  return WIDE.includes(name) ? 4 * (VARS.length - WIDE.length) + 8 * (i - (VARS.length - WIDE.length)) : 4 * i;
};
const VARS_SIZE = 4 * (VARS.length - WIDE.length) + 8 * WIDE.length;

const ch = (s: string): number => s.charCodeAt(0);

/** The selector and the variables: one per ECB, shared by its json() calls (each needs them only while it runs). */
const areas = new WeakMap<ProbeTranslator, { ecb: number; S: number; base: number }>();
function workArea(t: ProbeTranslator): { S: number; base: number } {
  let w = areas.get(t);
  if (!w || w.ecb !== t.ecbIndex) areas.set(t, (w = { ecb: t.ecbIndex, S: t.scratch(t.env.strsize + 8), base: t.scratch(VARS_SIZE) }));
  return w;
}

/** json() at DIF offset `pc`: the value's address, or NULL, in DIF register `rd`. */
export function emitJson(t: ProbeTranslator, rd: number, pc: number, next: Label): void {
  new JsonCall(t, rd, pc, next).emit();
}

/**
 * The code of one json() call, in steps: read the selector and split it into elements, read
 * the text, then the pass -- one method per state, each placed at its label and jumping to
 * `adv` (consume the byte), `head` (read it again), `none` or a return.
 */
class JsonCall {
  private readonly a: BpfAsm;
  private readonly mem: MemLayout;
  private readonly n: number; // strsize
  private readonly J: number; // the text: n bytes and a NUL (the read spills one byte into cmpB)
  private readonly S: number; // the selector, split in place into NUL-separated elements
  private readonly base: number; // the variables
  private readonly out: number; // the value
  private readonly done: Label;
  private readonly none: Label;

  constructor(private t: ProbeTranslator, private rd: number, private pc: number, private next: Label) {
    this.a = t.a, this.mem = t.env.mem, this.n = t.env.strsize;
    this.J = this.mem.cmpA;
    ({ S: this.S, base: this.base } = workArea(t));
    this.out = t.stringSlot(this.n + 1);
    this.done = this.a.label('json.done'), this.none = this.a.label('json.none');
  }

  private v = (name: Var): number => this.base + varOffset(name);
  private w = (name: Var) => (WIDE.includes(name) ? 8 : 4);
  private ld = (reg: number, name: Var) => this.a.ldx(this.w(name), reg, R8, this.v(name));
  private st = (name: Var, reg: number) => this.a.stx(this.w(name), R8, this.v(name), reg);
  private set = (name: Var, imm: number) => this.a.st(this.w(name), R8, this.v(name), imm);

  emit(): void {
    const { a, set } = this;
    this.read(1, this.S);
    a.aluImm(ALU.SUB, R0, 1);
    a.mov(R6, R0); // selector length
    for (const name of VARS) set(name, 0);
    set('nel', 1);
    this.splitSelector();
    this.read(0, this.J);
    this.pass();
    a.place(this.none);
    a.movImm(R0, 0);
    this.t.putReg(R0, this.rd);
    a.place(this.done);
  }

  /** Read the selector (n characters at most, as dtrace_strlen(elem, size) counts) or the text. */
  private read(argi: number, dst: number): void {
    const { a, mem, n } = this;
    a.mov(R1, R8), a.aluImm(ALU.ADD, R1, dst), a.movImm(R2, n + 1);
    a.ldx(8, R3, R8, mem.tuple + 8 * argi);
    a.call(HELPER.probe_read_kernel_str);
    const ok = a.label('json.read');
    a.jmpImm(JMP.JSGT, R0, 0, ok);
    a.ldx(8, R1, R8, mem.tuple + 8 * argi);
    this.t.fault(D.DTRACEFLT_BADADDR, this.pc, R1, this.next);
    a.place(ok);
  }

  /** A loop bounded by may_goto and `limit` steps; body(again, stop) jumps to again to go on. */
  private machine(limit: number, body: (again: Label, stop: Label) => void): void {
    const { a, ld, st, set } = this;
    const head = a.label('json.loop'), stop = a.label('json.stop');
    set('steps', 0);
    a.place(head);
    a.mayGoto(stop);
    ld(R1, 'steps');
    a.jmpImm(JMP.JGE, R1, limit, stop);
    a.aluImm(ALU.ADD, R1, 1), st('steps', R1);
    body(head, stop);
    a.place(stop);
  }

  /** dst = byte `base + idx` of mem, idx (a register) checked against `bound` first. */
  private byte = (dst: number, at: number, idx: number, bound: number, fail: Label) => {
    const { a } = this;
    a.jmpImm(JMP.JGE, idx, bound, fail);
    a.mov(R5, R8), a.alu(ALU.ADD, R5, idx), a.ldx(1, dst, R5, at);
  };

  /**
   * Split the selector in place: S[w++] = S[r] for r < length, skipping a leading "[" and every
   * "]", and ending an element (a NUL) at each "." or "[".
   */
  private splitSelector(): void {
    const { a, ld, st, set, byte, S, n } = this;
    st('sp', R6); // the length, while the selector is split
    this.machine(n + 2, (again, stop) => {
      ld(R1, 'cur'), ld(R0, 'sp');
      a.jmp(JMP.JGE, R1, R0, stop);
      byte(R2, S, R1, n + 1, stop);
      a.aluImm(ALU.ADD, R1, 1), st('cur', R1);
      const keep = a.label('json.keep'), put = a.label('json.put'), sep = a.label('json.sep');
      a.jmpImm(JMP.JEQ, R2, ch(']'), again);
      a.jmpImm(JMP.JNE, R2, ch('['), keep);
      a.jmpImm(JMP.JEQ, R1, 1, again); // the first character
      a.ja(sep);
      a.place(keep);
      a.jmpImm(JMP.JNE, R2, ch('.'), put);
      a.place(sep);
      ld(R3, 'nel'), a.aluImm(ALU.ADD, R3, 1), st('nel', R3);
      a.movImm(R2, 0);
      a.place(put);
      ld(R3, 'w');
      a.jmpImm(JMP.JGE, R3, n + 1, stop);
      a.mov(R5, R8), a.alu(ALU.ADD, R5, R3), a.stx(1, R5, S, R2);
      a.aluImm(ALU.ADD, R3, 1), st('w', R3);
      a.ja(again);
    });
    ld(R3, 'w');
    const term = a.label('json.term');
    a.jmpImm(JMP.JLT, R3, n + 1, term);
    a.movImm(R3, n);
    a.place(term);
    a.mov(R5, R8), a.alu(ALU.ADD, R5, R3), a.st(1, R5, S, 0);
    set('sp', 0), set('w', 0), set('cur', 0);
  }

  // The pass's labels: set by pass() before the states are placed.
  private head!: Label; // read this byte (again)
  private adv!: Label; // consume the byte and go on
  private ret!: Label; // the value is found
  private retIfLast!: Label; // a string, number or word: the value when the selector ends with it
  private states!: Label[];

  /** The pass over the text. */
  private pass(): void {
    const { a, ld, byte, none, n } = this;
    this.machine(6 * n + 16, (head) => {
      this.head = head;
      this.states = Array.from({ length: 16 }, (_, i) => a.label(`json.s${i}`));
      this.adv = a.label('json.next');
      this.ret = a.label('json.ret'), this.retIfLast = a.label('json.retlast');
      const S_ = this.states;
      ld(R6, 'st');
      a.jmpImm(JMP.JEQ, R6, NEXTELEM, S_[NEXTELEM]!);
      a.jmpImm(JMP.JEQ, R6, ATOI_WS, S_[ATOI_WS]!);
      a.jmpImm(JMP.JEQ, R6, ATOI_DIGITS, S_[ATOI_DIGITS]!);
      // R7 = the next byte of the text; its end, or strsize bytes, and there is no value.
      ld(R1, 'cur');
      byte(R7, this.J, R1, n, none);
      a.jmpImm(JMP.JEQ, R7, 0, none);
      for (let s = REST; s < COLLECT; s++) a.jmpImm(JMP.JEQ, R6, s, S_[s]!);
      a.ja(S_[COLLECT]!);

      this.rest();
      this.object();
      this.string();
      this.escape();
      this.unicode();
      this.colon();
      this.comma();
      this.ident();
      for (const s of [NUMBER, FRAC, EXP]) this.number(s);
      this.value();
      this.collect();
      this.nextElement();
      this.arrayIndex();

      a.place(this.adv);
      ld(R1, 'cur'), a.aluImm(ALU.ADD, R1, 1), this.st('cur', R1);
      a.ja(head);
      this.returnValue();
    });
  }

  private state = (s: number) => this.set('st', s);
  private is = (c: string, target: Label) => this.a.jmpImm(JMP.JEQ, R7, ch(c), target);
  /** isspace(): ' ' and \t..\r */
  private spaceSkip = () => {
    const { a, adv } = this;
    this.is(' ', adv);
    const no = a.label('json.nospace');
    a.jmpImm(JMP.JLT, R7, 9, no);
    a.jmpImm(JMP.JLE, R7, 13, adv);
    a.place(no);
  };

  /** Append R7 to the value; in a key, also follow the comparison with the element. */
  private push = (key: boolean) => {
    const { a, ld, st, set, byte, none, n, out, S } = this;
    ld(R1, 'dd');
    a.jmpImm(JMP.JGE, R1, n + 1, none);
    a.mov(R5, R8), a.alu(ALU.ADD, R5, R1), a.stx(1, R5, out, R7);
    a.aluImm(ALU.ADD, R1, 1), st('dd', R1);
    if (!key) return;
    const skip = a.label('json.nokey'), differ = a.label('json.differ');
    ld(R1, 'isKey'), a.jmpImm(JMP.JEQ, R1, 0, skip);
    ld(R1, 'keyMatch'), a.jmpImm(JMP.JEQ, R1, 0, skip);
    ld(R1, 'eo'), ld(R2, 'keyPos'), a.alu(ALU.ADD, R1, R2);
    byte(R3, S, R1, n + 2, differ);
    a.jmp(JMP.JNE, R3, R7, differ);
    a.aluImm(ALU.ADD, R2, 1), st('keyPos', R2);
    a.ja(skip);
    a.place(differ);
    set('keyMatch', 0);
    a.place(skip);
  };

  /** The selector's next element: the array index, or the key of an object. */
  private descend = (isArray: boolean) => {
    const { a, ld, st, set } = this;
    set('inArray', isArray ? 1 : 0);
    set('dd', 0);
    ld(R1, 'nel'), a.aluImm(ALU.SUB, R1, 1), st('nel', R1);
    this.state(NEXTELEM);
    a.ja(this.adv);
  };

  /** The text is an object, or an array indexed by the first element. */
  private rest(): void {
    const { a, ld, st, set, is, state, adv, none } = this;
    a.place(this.states[REST]!);
    this.spaceSkip();
    const obj = a.label('json.restobj'), arr = a.label('json.restarr');
    is('{', obj);
    is('[', arr);
    a.ja(none);
    a.place(obj);
    state(OBJECT);
    a.ja(adv);
    a.place(arr);
    set('inArray', 1);
    ld(R1, 'eo'), st('sp', R1);
    set('neg', 0), set('val', 0);
    state(ATOI_WS);
    a.ja(adv);
  }

  private object(): void {
    const { a, set, is, state, adv, none } = this;
    a.place(this.states[OBJECT]!);
    this.spaceSkip();
    const key = a.label('json.key');
    is('"', key);
    a.ja(none); // no key, or the object ended without the element
    a.place(key);
    state(STRING);
    set('isKey', 1), set('keyMatch', 1), set('keyPos', 0);
    a.ja(adv);
  }

  private string(): void {
    const { a, ld, set, is, state, push, byte, adv, S, n } = this;
    a.place(this.states[STRING]!);
    const esc = a.label('json.esc'), quote = a.label('json.quote');
    is('\\', esc);
    is('"', quote);
    push(true);
    a.ja(adv);
    a.place(esc);
    push(true);
    state(ESCAPE);
    a.ja(adv);
    a.place(quote);
    const notCollect = a.label('json.notcollect'), notKey = a.label('json.notkey');
    ld(R1, 'collect'), a.jmpImm(JMP.JEQ, R1, 0, notCollect);
    push(false);
    set('collect', 0);
    state(COLLECT);
    a.ja(adv);
    a.place(notCollect);
    ld(R1, 'isKey'), a.jmpImm(JMP.JEQ, R1, 0, notKey);
    // The key names the element when every byte matched and the element ends here too.
    const keyDone = a.label('json.keydone');
    ld(R1, 'keyMatch'), a.jmpImm(JMP.JEQ, R1, 0, keyDone);
    ld(R1, 'eo'), ld(R2, 'keyPos'), a.alu(ALU.ADD, R1, R2);
    byte(R3, S, R1, n + 2, keyDone);
    a.jmpImm(JMP.JNE, R3, 0, keyDone);
    set('found', 1);
    a.place(keyDone);
    set('dd', 0), set('isKey', 0);
    state(COLON);
    a.ja(adv);
    a.place(notKey);
    ld(R1, 'found'), a.jmpImm(JMP.JNE, R1, 0, this.retIfLast);
    set('dd', 0);
    state(COMMA);
    a.ja(adv);
  }

  private escape(): void {
    const { a, set, is, state, push, adv } = this;
    a.place(this.states[ESCAPE]!);
    push(true);
    const u = a.label('json.u');
    is('u', u);
    state(STRING);
    a.ja(adv);
    a.place(u);
    set('unicount', 0);
    state(UNICODE);
    a.ja(adv);
  }

  private unicode(): void {
    const { a, ld, st, state, push, adv, none } = this;
    a.place(this.states[UNICODE]!);
    const hex = a.label('json.hex'), notDigit = a.label('json.notdigit');
    a.jmpImm(JMP.JLT, R7, ch('0'), none);
    a.jmpImm(JMP.JGT, R7, ch('9'), notDigit);
    a.ja(hex);
    a.place(notDigit);
    a.mov(R1, R7), a.aluImm(ALU.OR, R1, 0x20); // lower case
    a.jmpImm(JMP.JLT, R1, ch('a'), none);
    a.jmpImm(JMP.JGT, R1, ch('f'), none);
    a.place(hex);
    push(true);
    ld(R1, 'unicount'), a.aluImm(ALU.ADD, R1, 1), st('unicount', R1);
    a.jmpImm(JMP.JLT, R1, 4, adv);
    state(STRING);
    a.ja(adv);
  }

  private colon(): void {
    const { a, is, state, adv, none } = this;
    a.place(this.states[COLON]!);
    this.spaceSkip();
    const colon = a.label('json.colon');
    is(':', colon);
    a.ja(none);
    a.place(colon);
    state(VALUE);
    a.ja(adv);
  }

  private comma(): void {
    const { a, ld, st, set, is, state, adv, none } = this;
    a.place(this.states[COMMA]!);
    this.spaceSkip();
    const comma = a.label('json.comma'), obj = a.label('json.commaobj');
    is(',', comma);
    a.ja(none);
    a.place(comma);
    ld(R1, 'inArray'), a.jmpImm(JMP.JEQ, R1, 0, obj);
    state(VALUE);
    ld(R1, 'arrayPos'), a.aluImm(ALU.ADD, R1, 1), st('arrayPos', R1);
    ld(R2, 'arrayElem');
    a.jmp(JMP.JNE, R1, R2, adv);
    set('found', 1);
    a.ja(adv);
    a.place(obj);
    state(OBJECT);
    a.ja(adv);
  }

  /** true, false or null, exactly; anything else is not JSON. */
  private ident(): void {
    const { a, ld, set, state, push, adv, none, out } = this;
    a.place(this.states[IDENT]!);
    const word = a.label('json.word');
    a.jmpImm(JMP.JLT, R7, ch('a'), word);
    a.jmpImm(JMP.JGT, R7, ch('z'), word);
    push(false);
    a.ja(adv);
    a.place(word);
    const known = a.label('json.known'), five = a.label('json.five');
    ld(R1, 'dd');
    a.ldx(4, R2, R8, out);
    a.jmpImm(JMP.JEQ, R1, 5, five);
    a.jmpImm(JMP.JNE, R1, 4, none);
    a.jmpImm(JMP.JEQ, R2, 0x65757274, known); // "true"
    a.jmpImm(JMP.JEQ, R2, 0x6c6c756e, known); // "null"
    a.ja(none);
    a.place(five);
    a.jmpImm(JMP.JNE, R2, 0x736c6166, none); // "fals"
    a.ldx(1, R2, R8, out + 4);
    a.jmpImm(JMP.JNE, R2, ch('e'), none);
    a.place(known);
    ld(R1, 'found'), a.jmpImm(JMP.JNE, R1, 0, this.retIfLast);
    set('dd', 0);
    state(COMMA);
    a.ja(this.head); // this byte ends the word and is read again
  }

  /** NUMBER, FRAC and EXP share the digits; only NUMBER takes '.', only EXP takes no 'e'. */
  private number(s: number): void {
    const { a, ld, set, is, state, push, adv, none } = this;
    a.place(this.states[s]!);
    if (s === NUMBER) {
      const notDot = a.label('json.notdot');
      a.jmpImm(JMP.JNE, R7, ch('.'), notDot);
      push(false);
      state(FRAC);
      a.ja(adv);
      a.place(notDot);
      is('x', none);
      is('X', none);
    }
    if (s !== EXP) {
      const exp = a.label('json.exp'), notExp = a.label('json.notexp');
      is('e', exp);
      is('E', exp);
      a.ja(notExp);
      a.place(exp);
      push(false);
      state(EXP);
      a.ja(adv);
      a.place(notExp);
      is('+', none);
      is('-', none);
    }
    const digit = a.label('json.digit'), end = a.label('json.numend');
    is('+', digit);
    is('-', digit);
    a.jmpImm(JMP.JLT, R7, ch('0'), end);
    a.jmpImm(JMP.JGT, R7, ch('9'), end);
    a.place(digit);
    push(false);
    a.ja(adv);
    a.place(end);
    ld(R1, 'found'), a.jmpImm(JMP.JNE, R1, 0, this.retIfLast);
    set('dd', 0);
    state(COMMA);
    a.ja(this.head); // read again
  }

  private value(): void {
    const { a, ld, set, is, state, push, descend, adv, none } = this;
    a.place(this.states[VALUE]!);
    this.spaceSkip();
    const nested = a.label('json.nested'), str = a.label('json.str'), word = a.label('json.value.word');
    const num = a.label('json.num');
    is('{', nested);
    is('[', nested);
    is('"', str);
    const notLower = a.label('json.notlower');
    a.jmpImm(JMP.JLT, R7, ch('a'), notLower);
    a.jmpImm(JMP.JLE, R7, ch('z'), word);
    a.place(notLower);
    is('-', num);
    a.jmpImm(JMP.JLT, R7, ch('0'), none);
    a.jmpImm(JMP.JLE, R7, ch('9'), num);
    a.ja(none);
    a.place(str);
    state(STRING);
    a.ja(adv);
    a.place(word);
    push(false);
    state(IDENT);
    a.ja(adv);
    a.place(num);
    push(false);
    state(NUMBER);
    a.ja(adv);
    a.place(nested);
    // Descend when the selector goes on into it; else skip it, or return it whole.
    const whole = a.label('json.whole'), arr = a.label('json.descarr');
    ld(R1, 'nel'), a.jmpImm(JMP.JLE, R1, 1, whole);
    ld(R1, 'found'), a.jmpImm(JMP.JEQ, R1, 0, whole);
    is('[', arr);
    descend(false);
    a.place(arr);
    descend(true);
    a.place(whole);
    const brace = a.label('json.brace');
    is('{', brace);
    set('brackets', 1);
    push(false);
    state(COLLECT);
    a.ja(adv);
    a.place(brace);
    set('braces', 1);
    push(false);
    state(COLLECT);
    a.ja(adv);
  }

  /** A whole object or array, as written, balanced. */
  private collect(): void {
    const { a, ld, st, set, is, state, push, adv, none } = this;
    a.place(this.states[COLLECT]!);
    push(false);
    const quote = a.label('json.cquote'), check = a.label('json.check');
    is('"', quote);
    for (const [c, name, delta] of [[']', 'brackets', -1], ['}', 'braces', -1], ['{', 'braces', 1], ['[', 'brackets', 1]] as const) {
      const other = a.label('json.other');
      a.jmpImm(JMP.JNE, R7, ch(c), other);
      ld(R1, name);
      if (delta < 0) a.jmpImm(JMP.JEQ, R1, 0, none); // unbalanced
      a.aluImm(ALU.ADD, R1, delta), st(name, R1);
      a.ja(check);
      a.place(other);
    }
    a.place(check);
    ld(R1, 'brackets'), a.jmpImm(JMP.JNE, R1, 0, adv);
    ld(R1, 'braces'), a.jmpImm(JMP.JNE, R1, 0, adv);
    ld(R1, 'found'), a.jmpImm(JMP.JNE, R1, 0, this.ret);
    set('dd', 0);
    state(COMMA);
    a.ja(adv);
    a.place(quote);
    set('collect', 1);
    state(STRING);
    a.ja(adv);
  }

  /** Step to the element after the current one's NUL. */
  private nextElement(): void {
    const { a, ld, st, set, state, byte, head, none, S, n } = this;
    a.place(this.states[NEXTELEM]!);
    const atEnd = a.label('json.elemend');
    ld(R1, 'eo');
    byte(R2, S, R1, n + 2, none);
    a.aluImm(ALU.ADD, R1, 1), st('eo', R1);
    a.jmpImm(JMP.JEQ, R2, 0, atEnd);
    a.ja(head);
    a.place(atEnd);
    const obj = a.label('json.elemobj');
    ld(R2, 'inArray'), a.jmpImm(JMP.JEQ, R2, 0, obj);
    st('sp', R1);
    set('neg', 0), set('val', 0);
    state(ATOI_WS);
    a.ja(head);
    a.place(obj);
    set('found', 0);
    state(OBJECT);
    a.ja(head);
  }

  /** The array index, as dtrace_strtoll(elem, 10, ...) reads it. */
  private arrayIndex(): void {
    const { a, ld, st, set, state, byte, head, none, S, n } = this;
    a.place(this.states[ATOI_WS]!);
    {
      const blank = a.label('json.blank'), minus = a.label('json.minus'), digits = a.label('json.digits');
      ld(R1, 'sp');
      byte(R2, S, R1, n + 2, none);
      a.jmpImm(JMP.JEQ, R2, ch(' '), blank);
      a.jmpImm(JMP.JEQ, R2, ch('\t'), blank);
      a.jmpImm(JMP.JEQ, R2, ch('-'), minus);
      a.jmpImm(JMP.JNE, R2, ch('+'), digits);
      a.aluImm(ALU.ADD, R1, 1), st('sp', R1);
      a.ja(digits);
      a.place(minus);
      set('neg', 1);
      a.aluImm(ALU.ADD, R1, 1), st('sp', R1);
      a.place(digits);
      state(ATOI_DIGITS);
      a.ja(head);
      a.place(blank); // white space before the number
      a.aluImm(ALU.ADD, R1, 1), st('sp', R1);
      a.ja(head);
    }
    a.place(this.states[ATOI_DIGITS]!);
    {
      const end = a.label('json.atoiend');
      ld(R1, 'sp');
      byte(R2, S, R1, n + 2, none);
      a.jmpImm(JMP.JLT, R2, ch('0'), end);
      a.jmpImm(JMP.JGT, R2, ch('9'), end);
      a.aluImm(ALU.ADD, R1, 1), st('sp', R1);
      ld(R3, 'val'), a.aluImm(ALU.MUL, R3, 10), a.aluImm(ALU.SUB, R2, ch('0')), a.alu(ALU.ADD, R3, R2);
      st('val', R3);
      a.ja(head);
      a.place(end);
      ld(R3, 'val');
      const pos = a.label('json.pos');
      ld(R1, 'neg'), a.jmpImm(JMP.JEQ, R1, 0, pos);
      a.aluImm(ALU.NEG, R3, 0);
      a.place(pos);
      st('arrayElem', R3);
      set('arrayPos', 0);
      set('found', 0);
      state(VALUE);
      a.jmpImm(JMP.JNE, R3, 0, head);
      set('found', 1);
      a.ja(head);
    }
  }

  /** A string, number or word is the value only when the selector ends with it. */
  private returnValue(): void {
    const { a, ld, none, n, out, mem } = this;
    a.place(this.retIfLast);
    ld(R1, 'nel'), a.jmpImm(JMP.JGT, R1, 1, none);
    a.place(this.ret);
    ld(R1, 'dd');
    a.jmpImm(JMP.JGE, R1, n + 1, none);
    a.mov(R5, R8), a.alu(ALU.ADD, R5, R1), a.st(1, R5, out, 0);
    a.ldx(8, R0, R8, mem.self), a.aluImm(ALU.ADD, R0, out);
    this.t.putReg(R0, this.rd);
    a.ja(this.done);
  }
}
