// The entry point of dtrace(1)'s V8 start-up snapshot (scripts/bundle.mjs builds it with
// `node --build-snapshot`; bin/dtrace runs it with --snapshot-blob): the modules already loaded
// and the parser already warmed, so a one-liner starts with only Node's own start-up before it.

import v8 from 'node:v8';
import { start, warmUp } from './start.js';

if (v8.startupSnapshot?.isBuildingSnapshot()) {
  warmUp();
  v8.startupSnapshot.setDeserializeMainFunction(() => {
    // `node --snapshot-blob BLOB -- ARGS`: the arguments follow node's own path.
    void start(process.argv.slice(1));
  });
}
