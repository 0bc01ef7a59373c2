// The packet tracer: what the configuration does to one packet, and the rules that decided
// it highlighted in their tables (the traced signal; the links open them there).
import { useState } from 'preact/hooks';
import { api } from './api';
import { ownSession, traced } from './state';
import type { EvalAnswer, Packet } from './types';
import { describeError, ErrorBox, Field, Link, Page } from './ui';

type Form = Record<'src-ip' | 'dst-ip' | 'protocol' | 'dst-port' | 'src-port' | 'icmp-type' | 'icmp-code' | 'in-interface' | 'config', string>;

function packetOf(f: Form): Packet {
  const proto = f.protocol;
  const p: Packet = { 'src-ip': f['src-ip'].trim(), 'dst-ip': f['dst-ip'].trim(), protocol: /^\d+$/.test(proto) ? Number(proto) : (proto as Packet['protocol']) };
  const port = (v: string) => (/^\d+$/.test(v.trim()) ? Number(v.trim()) : undefined);
  if (f['dst-port'].trim()) p['dst-port'] = port(f['dst-port']) ?? null;
  if (f['src-port'].trim()) p['src-port'] = port(f['src-port']) ?? null;
  if (f['icmp-type'].trim()) p['icmp-type'] = port(f['icmp-type']) ?? null;
  if (f['icmp-code'].trim()) p['icmp-code'] = port(f['icmp-code']) ?? null;
  if (f['in-interface'].trim()) p['in-interface'] = f['in-interface'].trim();
  return p;
}

export function TracerPage() {
  const [f, setF] = useState<Form>({ 'src-ip': '', 'dst-ip': '', protocol: 'tcp', 'dst-port': '', 'src-port': '', 'icmp-type': '', 'icmp-code': '', 'in-interface': '', config: 'running' });
  const [answer, setAnswer] = useState<EvalAnswer | null>(null);
  const [error, setError] = useState<string | null>(null);
  const set = (k: keyof Form) => (v: string) => setF({ ...f, [k]: v });

  const trace = async (e: Event) => {
    e.preventDefault();
    setError(null);
    try {
      const q = f.config === 'candidate' ? '?config=candidate' : '';
      const a = await api<EvalAnswer>('POST', `/api/eval${q}`, packetOf(f));
      setAnswer(a);
      traced.value = { policy: a.policy?.id ?? null, nat: a.nat?.id ?? null, route: a.route?.id ?? null };
    } catch (err) {
      setAnswer(null);
      setError(describeError(err));
    }
  };

  return (
    <Page title="Packet tracer">
      <form class="card" aria-label="Packet" onSubmit={trace}>
        <div class="fields">
          <Field label="Source IP" value={f['src-ip']} onInput={set('src-ip')} required />
          <Field label="Destination IP" value={f['dst-ip']} onInput={set('dst-ip')} required />
          <Field label="Protocol" value={f.protocol} onInput={set('protocol')} options={['tcp', 'udp', 'sctp', 'icmp', 'icmpv6']} />
          <Field label="Destination port" value={f['dst-port']} onInput={set('dst-port')} />
          <Field label="Source port" value={f['src-port']} onInput={set('src-port')} />
          <Field label="ICMP type" value={f['icmp-type']} onInput={set('icmp-type')} />
          <Field label="ICMP code" value={f['icmp-code']} onInput={set('icmp-code')} />
          <Field label="In interface" value={f['in-interface']} onInput={set('in-interface')} />
          <Field label="Configuration" value={f.config} onInput={set('config')} options={ownSession.value ? ['running', 'candidate'] : ['running']} />
        </div>
        <div class="buttons"><button type="submit" class="primary">Trace</button></div>
      </form>
      <ErrorBox text={error} />
      {answer && (
        <section class="card" aria-labelledby="verdict-h" role="status">
          <h2 id="verdict-h">Verdict: <span class={`verdict verdict-${answer.action}`}>{answer.action}</span></h2>
          <dl>
            <dt>Reason</dt><dd>{answer.reason}</dd>
            <dt>Zones</dt><dd>{answer.srcZone ?? '—'} → {answer.dstZone ?? '—'}</dd>
            <dt>Policy</dt><dd>{answer.policy ? <Link href="/policies">policy {answer.policy.id} ({answer.policy.action}{answer.policy.log ? ', logged' : ''})</Link> : 'none (default deny)'}</dd>
            {answer.fqdn?.length ? <><dt>FQDN</dt><dd>{answer.fqdn.map((m) => `${m.field} ${m.address}: ${m.fqdn} resolved to ${m.entry} at ${m.resolvedAt}`).join('; ')}</dd></> : null}
            <dt>NAT</dt><dd>{answer.nat ? <Link href="/nat">NAT rule {answer.nat.id}: {answer.nat.type} to {answer.nat.translatedIP}{answer.nat.translatedPort ? `:${answer.nat.translatedPort}` : ''}</Link> : 'none'}</dd>
            <dt>Route</dt><dd>{answer.route ? <Link href="/routes">{answer.route.id === null ? 'connected' : `route ${answer.route.id}`} to {answer.route.destination}</Link> : 'none'}{answer.egressInterface ? ` via ${answer.egressInterface}` : ''}</dd>
            <dt>Version</dt><dd>{answer.version}</dd>
          </dl>
        </section>
      )}
    </Page>
  );
}
