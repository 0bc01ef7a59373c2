// Packets across the lab firewall compared with POST /api/eval/batch: each trial is sent by the
// agent of its client namespace; what a server saw (or that nothing arrived) must be what the
// eval answer says.
import type { Client } from '../helpers/daemon';
import { ok } from '../helpers/daemon';
import type { Agent, Observed, Peer, SendReq } from '../helpers/netns';

export interface Trial extends SendReq {
  from: number; // the peer index that sends it
}

export interface EvalAnswer {
  action: 'allow' | 'deny';
  nat: { type: string; translatedIP: string; translatedPort: string; translates?: 'source' | 'destination' } | null;
  policy: { id: number } | null;
}

/** What the receiving server must see, or null when nothing may arrive. */
function expected(t: Trial, a: EvalAnswer): Observed | null {
  if (a.action !== 'allow') return null;
  // a static rule (issue 41) says which address it translates
  const snat = a.nat?.type === 'snat' || a.nat?.translates === 'source';
  const dnat = a.nat !== null && !snat;
  return {
    proto: t.proto,
    src: snat ? a.nat!.translatedIP : t.src,
    sport: t.sport,
    dst: dnat ? a.nat!.translatedIP : t.dst,
    dport: a.nat?.translatedPort ? Number(a.nat.translatedPort) : t.dport,
  };
}

function observed(agents: Map<number, Agent>, token: string): Observed | null {
  for (const a of agents.values()) {
    const o = a.got.get(token);
    if (o) return o;
  }
  return null;
}

async function until(cond: () => boolean, maxMs: number): Promise<void> {
  const end = Date.now() + maxMs;
  while (!cond() && Date.now() < end) await new Promise((res) => setTimeout(res, 100));
}

export interface Planned {
  t: Trial;
  a: EvalAnswer;
  want: Observed | null;
}

/** Evaluates, sends (all clients at once) and compares; the trials sent and the mismatches. */
export async function sendAndCompare(client: Client, peers: Peer[], agents: Map<number, Agent>, all: Trial[]) {
  const answers = await ok(client.post('/api/eval/batch', {
    packets: all.map((t) => ({ 'src-ip': t.src, 'dst-ip': t.dst, protocol: t.proto, 'dst-port': t.dport, 'src-port': t.sport })),
  }));
  const owner = (ip: string) => peers.find((p) => p.address === ip || p.behind === ip)?.index ?? 0;
  // a packet turned back to the namespace it came from never crosses a wire: not a trial
  const plan: Planned[] = all
    .map((t, i) => ({ t, a: answers.body.results[i] as EvalAnswer }))
    .map((x) => ({ ...x, want: expected(x.t, x.a) }))
    .filter((x) => x.want === null || owner(x.want.dst) !== x.t.from);
  for (const p of peers) agents.get(p.index)?.send(plan.filter((x) => x.t.from === p.index).map((x) => x.t));
  // every packet that should arrive has (or a generous limit passed), then a moment more for
  // any that should not
  await until(() => plan.every((x) => x.want === null || observed(agents, x.t.token) !== null), 30000);
  await new Promise((res) => setTimeout(res, 1500));
  for (const a of agents.values()) a.abort();
  const mismatches = plan
    .map((x) => ({ packet: x.t, eval: x.a, want: x.want, got: observed(agents, x.t.token) }))
    .filter((m) => JSON.stringify(m.want) !== JSON.stringify(m.got));
  return { plan, mismatches };
}
