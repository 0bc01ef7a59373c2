// Eval at an instant (issue 40 item 4): the cost of the first eval at an instant when some
// scheduled rules are off (the document with them disabled is compiled), of the evals after it
// (memo), and of one when every rule is on. N policies lan to wan, one in 100 scheduled.
// node dist/bench/schedules.js [N]
import { emptyDoc } from '../src/config/document';
import { applyChange, type Change } from '../src/config/changes';
import { CompiledConfig } from '../src/eval/compiled';
import { TimedCompiles } from '../src/eval/timed';
import { parsePacket } from '../src/eval/packet';
import type { PolicyObj } from '../src/config/types';

const N = Number(process.argv[2] ?? 10000);
const doc = emptyDoc(['eth0', 'eth1']);
const steps: Change[] = [
  { op: 'update', kind: 'interface', key: 'eth0', body: { ip: '203.0.113.2/24' } },
  { op: 'update', kind: 'interface', key: 'eth1', body: { ip: '10.0.0.1/24' } },
  { op: 'create', kind: 'zone', body: { name: 'wan', type: 'l3', interfaces: ['eth0'] } },
  { op: 'create', kind: 'zone', body: { name: 'lan', type: 'l3', interfaces: ['eth1'] } },
  { op: 'create', kind: 'route', body: { destination: 'default', gateway: '203.0.113.1', interface: 'eth0' } },
  { op: 'create', kind: 'schedule', body: { name: 'office', type: 'recurring', 'time-zone': 'Europe/Berlin', days: ['mon', 'tue', 'wed', 'thu', 'fri'], ranges: ['08:00-18:00'] } },
];
for (const c of steps) applyChange(doc, c);
const policies: PolicyObj[] = [];
for (let i = 0; i < N; i++) {
  policies.push({ id: i + 1, action: i % 2 ? 'allow' : 'deny', srcZone: 'lan', dstZone: 'wan', srcAddr: '', dstAddr: '', services: [], log: false, ...(i % 100 === 0 ? { schedule: 'office' } : {}) });
}
doc.policies = policies;
doc.counters.policy = N;
const base = CompiledConfig.compile(doc);
const timed = new TimedCompiles();
const p = parsePacket({ 'src-ip': '10.0.0.5', 'dst-ip': '198.51.100.7', protocol: 'tcp', 'dst-port': 443 });
const off = Date.parse('2026-12-07T06:59:59Z'), on = Date.parse('2026-12-07T07:00:00Z');
const ms = (t0: bigint) => Number(process.hrtime.bigint() - t0) / 1e6;
let t0 = process.hrtime.bigint();
timed.at(doc, base, off);
const first = ms(t0);
t0 = process.hrtime.bigint();
for (let i = 0; i < 1000; i++) timed.at(doc, base, off).compiled.eval(p);
const memo = ms(t0);
t0 = process.hrtime.bigint();
for (let i = 0; i < 1000; i++) timed.at(doc, base, on).compiled.eval(p);
const allOn = ms(t0);
console.log(`${N} policies (${N / 100} scheduled): first eval at an off instant ${first.toFixed(0)} ms (compile); later evals ${memo.toFixed(0)} us; every rule on ${allOn.toFixed(0)} us`);
