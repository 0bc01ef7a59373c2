// A compiled configuration as one ArrayBuffer of Int32Arrays plus plain JSON metadata: what
// the compile worker transfers (zero copy) and what CompiledConfig reads back as views.
import type { NatType } from '../config/types';

export interface IfaceMeta {
  name: string;
  zone: number; // 0: none
  up: boolean;
  addr: string; // address without prefix, "" when it has none
  family: 0 | 4 | 6;
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
  buffer: ArrayBuffer;
}

/** Packs named Int32Arrays into one buffer. */
export function packArrays(arrays: Map<string, Int32Array>): { buffer: ArrayBuffer; index: Record<string, [number, number]> } {
  let bytes = 0;
  for (const a of arrays.values()) bytes += a.byteLength;
  const buffer = new ArrayBuffer(bytes);
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
