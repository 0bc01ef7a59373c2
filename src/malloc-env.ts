// glibc's malloc settings the daemon is meant to run with, set in its environment before it
// starts (glibc reads them once, at process start; nothing can set them from JavaScript):
// npm start, npm run worker and the Dockerfile set them, and the daemon logs which are missing.
//
// Why: the compile and analysis threads allocate and free tens of MB of typed arrays per
// commit at 100,000 policies. With glibc's defaults each thread gets malloc arenas of its own
// and buffers above the (growing) mmap threshold come from them, so freed memory stays in the
// process: 40 one-policy commits at 100,000 policies took the RSS from 656 to 949 MB, and it
// rested at 693 MB while the V8 heaps held ~190 MB. With two arenas and buffers of 128 KiB or
// more always mapped (given back to the system when freed): 551 to 767 MB, at rest 368
// (docs/performance.md, "glibc malloc").
export const MALLOC_ENV: Readonly<Record<string, string>> = {
  MALLOC_ARENA_MAX: '2',
  MALLOC_MMAP_THRESHOLD_: '131072',
};

/** The settings missing from this process's environment (none off Linux: glibc's only). */
export function missingMallocEnv(env: NodeJS.ProcessEnv = process.env, platform = process.platform): string[] {
  if (platform !== 'linux') return [];
  return Object.keys(MALLOC_ENV).filter((k) => env[k] === undefined);
}
