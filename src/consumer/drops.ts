// The kinds of drop dtrace reports (libdtrace's dtrace_dropkind_t), known by their messages:
// the JSON output's DROP entries carry the kind's number, -x droptags prefixes the message
// with its name as -x errtags does a compiler error's.

/** Each drop message's kind: the words that name it, its number and its tag. */
const DROP_KINDS: { words: RegExp; kind: number; tag: string }[] = [
  { words: / aggregation drop/, kind: 1, tag: 'DTRACEDROP_AGGREGATION' },
  { words: / dynamic variable drop/, kind: 2, tag: 'DTRACEDROP_DYNAMIC' },
  { words: / speculative drop/, kind: 5, tag: 'DTRACEDROP_SPEC' },
  { words: /still busy/, kind: 6, tag: 'DTRACEDROP_SPECBUSY' },
  { words: /no speculative buffer/, kind: 7, tag: 'DTRACEDROP_SPECUNAVAIL' },
  { words: / in ERROR probe enabling/, kind: 9, tag: 'DTRACEDROP_DBLERROR' },
  { words: / drops? on CPU/, kind: 0, tag: 'DTRACEDROP_PRINCIPAL' },
];

/** The kind of a drop message's line (dtrace_dropkind_t), principal when none names it. */
export function dropKind(line: string): number {
  return DROP_KINDS.find((k) => k.words.test(line))?.kind ?? 0;
}

/** -x droptags: "dtrace: [TAG] N ..." for each line of drop messages that has a kind. */
export function tagDrops(text: string): string {
  return text.replace(/^dtrace: (.*)$/gm, (line, rest: string) => {
    const k = DROP_KINDS.find((d) => d.words.test(line));
    return k ? `dtrace: [${k.tag}] ${rest}` : line;
  });
}
