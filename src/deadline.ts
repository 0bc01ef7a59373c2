// Waiting with a bound: a stop step that depends on a service which may be gone (Redis
// during an outage) must not hold the whole stop.

/**
 * Resolves true when `work` settles within `ms` (rethrowing its error), false when the
 * deadline came first; the work then goes on unobserved (a process that stops drops it).
 */
export async function settledWithin(work: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  try {
    return await Promise.race([work.then(() => true), late]);
  } finally {
    clearTimeout(timer);
  }
}
