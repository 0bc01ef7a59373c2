// A compiled configuration as one SharedArrayBuffer of Int32Arrays plus plain JSON metadata:
// what CompiledConfig reads back as views. Shared memory, so that the threads that read a
// version's tables (the compile thread that made them, the HTTP thread, the deep-analysis
// and batch-eval threads) all view one copy: at 100,000 policies each copy was tens of MB of
// RSS and a memcpy on the HTTP thread. Nothing writes an image once packed.
import type { NatType } from '../config/types';

export interface IfaceMeta {
  name: string;
  zone: number; // 0: none
  up: boolean;
  /** the first IPv4 and IPv6 address (without prefix; "" when none): what a masquerade translates to */
  addr4: string;
  addr6: string;
  /** issue 41: the link's management shortcuts for packets to the firewall (local.ts's MGMT bits) */
  mgmt: number;
}

export interface RouteMeta {
  id: number | null;
  destination: string;
  egress: number; // index in ifaces
}

export interface NatMeta {
  id: number;
  type: NatType;
  translatedIp: string; // canonical; "" for masquerade
  translatedPort: string;
  outIf: number; // -1: any
  masquerade: boolean;
  /** a static rule's entry (issue 41): which address it translates (compile.ts staticEntries) */
  translates?: 'source' | 'destination';
}

export interface ImageMeta {
  format: 1;
  arrays: Record<string, [number, number]>; // name -> [byte offset, length]
  zones: string[]; // zone i + 1
  ifaces: IfaceMeta[];
  routes: RouteMeta[];
  nat: NatMeta[];
  policies: number;
  buildMs: number;
}

export interface CompiledImage {
  meta: ImageMeta;
  buffer: SharedArrayBuffer;
}

/** Packs named Int32Arrays into one buffer. */
export function packArrays(arrays: Map<string, Int32Array>): { buffer: SharedArrayBuffer; index: Record<string, [number, number]> } {
  let bytes = 0;
  for (const a of arrays.values()) bytes += a.byteLength;
  const buffer = new SharedArrayBuffer(bytes);
  const index: Record<string, [number, number]> = {};
  let off = 0;
  for (const [name, a] of arrays) {
    new Int32Array(buffer, off, a.length).set(a);
    index[name] = [off, a.length];
    off += a.byteLength;
  }
  return { buffer, index };
}

export function arrayOf(image: CompiledImage, name: string): Int32Array {
  const at = image.meta.arrays[name];
  if (!at) throw new Error(`compiled image has no array ${name}`);
  return new Int32Array(image.buffer, at[0], at[1]);
}

/**
 * A masquerade's answer slot (BatchAnswers.natIf): the egress link and the packet's family,
 * since a dual-stack link translates each family to its own address.
 */
export function masqueradeSlot(iface: number, family: 4 | 6): number {
  return iface * 2 + (family === 6 ? 1 : 0);
}

/** The address a masquerade slot translates to. */
export function masqueradeAddress(ifaces: readonly IfaceMeta[], slot: number): string {
  const m = ifaces[slot >> 1];
  return slot & 1 ? m.addr6 : m.addr4;
}
