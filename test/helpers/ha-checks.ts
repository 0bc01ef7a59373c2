// Assertions of the HA packet tests on the flows of a Prober (test/helpers/ha-lab.ts).
import type { Prober } from './ha-lab';

/** A generous bound against a stuck failover (the speed goal is the benchmark's: bench/ha-failover.ts). */
export const PAUSE_BOUND_MS = 20_000;

/** The flows have echoed, without a reset or a close, since the previous mark; their longest pauses. */
export async function flowsAlive(p: Prober, what: string): Promise<{ tcp: number; udp: number }> {
  const f = await p.mark();
  expect({ what, tcpClosed: f.tcp.closed, tcpError: f.tcp.error }).toEqual({ what, tcpClosed: false, tcpError: '' });
  expect({ what, tcpEchoes: f.tcp.echoes > 0, udpEchoes: f.udp.echoes > 0 }).toEqual({ what, tcpEchoes: true, udpEchoes: true });
  return { tcp: f.tcp.maxGapMs, udp: f.udp.maxGapMs };
}
