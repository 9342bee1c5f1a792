// The direction the stages import in, checked by `npm test` (scripts/check-deps.mjs runs
// dependency-cruiser with these rules). docs/ARCHITECTURE.md explains the layers.
//
// LAYERS lists src/'s folders from the top down: a folder may import from the layers below its
// own, never from a layer above it, and never from another folder of its own layer. Type-only
// imports count too: a stage that needs another's types depends on it as much as on its code.
const LAYERS = [
  ['cli'], // dtrace(1), dtrace-dofdump
  ['api'], // the library API (the package's main entry): handles, typed records, aggregations
  ['usdt'], // dtrace -h/-G: headers and objects for programs' own USDT providers
  ['fleet'], // issue 18: the NATS wire, the agent (dtraced) and the fleet as one device
  ['consumer', 'compiler'], // the consumer drains the device and prints; the compiler writes DOF
  ['device'], // the kernel bridge: it decodes DOF alone and never sees the compiler
  ['providers'], // probes: names, arguments, how they attach
  ['dof'], // the program model and its encoding
  ['dif'], // the instruction set and its tables
  ['options'], // src/options.ts: every option, typed once with its default
  ['btf', 'abi'], // kernel types; record and format facts
  ['sys'], // readers of the machine's files (kernel symbols, ELF) and where those files are
  ['version'], // src/version.ts
];

// src/options.ts and src/version.ts are single files; every other entry is a folder.
const pathOf = (name) => (name === 'options' || name === 'version' ? `^src/${name}\\.ts$` : `^src/${name}/`);

const rules = [];
LAYERS.forEach((layer, i) => {
  const above = LAYERS.slice(0, i).flat();
  for (const name of layer) {
    const forbidden = [...above, ...layer.filter((other) => other !== name)];
    if (forbidden.length === 0) continue;
    rules.push({
      name: `one-way-${name}`,
      comment: `src/${name} may import only from the layers below it (.dependency-cruiser.cjs)`,
      severity: 'error',
      from: { path: pathOf(name) },
      to: { path: forbidden.map(pathOf).join('|') },
    });
  }
});

// The consumer sees the kernel bridge through its interface (src/device/device.ts) only.
rules.push({
  name: 'consumer-through-the-device-interface',
  comment: 'the consumer may use src/device/device.ts, not a platform device',
  severity: 'error',
  from: { path: '^src/consumer/' },
  to: { path: '^src/device/', pathNot: '^src/device/device\\.ts$' },
});

// Every file of src/ belongs to a layer.
rules.push({
  name: 'in-a-layer',
  comment: 'a file of src/ outside every layer: add its folder to LAYERS',
  severity: 'error',
  from: { path: '^src/', pathNot: LAYERS.flat().map(pathOf).join('|') },
  to: {},
});

// File-level cycles are refused, except the ones docs/ARCHITECTURE.md justifies, where a part
// calls back into the whole it is a part of: the code generator and its parts (an expression's
// code needs its sub-expressions' code), the DIF-to-eBPF translator and its parts (a subroutine's
// or variable's code takes the ProbeTranslator to emit its operands' code, registers and faults),
// and the reference DIF machine and its subroutines (which use its memory).
// The translator's parts are named one by one: a new part that takes the ProbeTranslator joins
// this list (and docs/ARCHITECTURE.md's).
const TRANSLATOR_PARTS = [
  'translate', 'aggregate', 'context-task', 'destructive', 'error-probe', 'inet6', 'json', 'registers',
  'speculation', 'strtok', 'subroutines', 'variables',
];
const CYCLES_ALLOWED = `^src/(compiler/|device/linux/(${TRANSLATOR_PARTS.join('|')})\\.ts$|dif/machine(-subr)?\\.ts$)`;
rules.push({
  name: 'no-cycles',
  comment: 'a file-level import cycle',
  severity: 'error',
  from: { pathNot: CYCLES_ALLOWED },
  to: { circular: true },
});
rules.push({
  name: 'no-cycles-beyond-the-whole',
  comment: 'an allowed cycle may not leave the code generator, the translator or the DIF machine',
  severity: 'error',
  from: { path: CYCLES_ALLOWED },
  to: { circular: true, viaOnly: { pathNot: CYCLES_ALLOWED } },
});
// Within the translator, a cycle passes through translate.ts: parts do not call each other back.
rules.push({
  name: 'device-cycles-through-the-translator',
  comment: 'a file-level cycle in src/device/linux that does not pass through translate.ts',
  severity: 'error',
  from: { path: '^src/device/linux/' },
  to: { circular: true, viaNot: '^src/device/linux/translate\\.ts$' },
});

module.exports = {
  forbidden: rules,
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(node_modules|dist|build)/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.js'] },
  },
};
