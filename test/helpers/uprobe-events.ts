// Uprobe events of another tracer's kind, which tests write into tracefs themselves to show that
// what other tools leave there does not matter to dtrace.
import { readFileSync } from 'node:fs';

export const UPROBE_EVENTS = '/sys/kernel/tracing/uprobe_events';

/** The file offset of an ELF64 executable's entry point (its first PT_LOAD holding it). */
export function entryOffset(file: string): number {
  const b = readFileSync(file);
  const entry = b.readBigUInt64LE(24), phoff = Number(b.readBigUInt64LE(32));
  const phentsize = b.readUInt16LE(54), phnum = b.readUInt16LE(56);
  for (let i = 0; i < phnum; i++) {
    const p = phoff + i * phentsize;
    if (b.readUInt32LE(p) !== 1) continue;
    const offset = b.readBigUInt64LE(p + 8), vaddr = b.readBigUInt64LE(p + 16), filesz = b.readBigUInt64LE(p + 32);
    if (entry >= vaddr && entry < vaddr + filesz) return Number(entry - vaddr + offset);
  }
  throw new Error(`${file}: no PT_LOAD holds the entry point`);
}
