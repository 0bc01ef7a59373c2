// fwctl and groups (issue 27, points 2-3), driving the built binary: fwctl manages the
// configuration as a document (export, plan, apply), so groups are written in the file like
// every other object. A YAML file that lists a group before the groups it holds plans as
// added address and service groups, applies, exports back equal, and fwctl trace follows a
// policy through a nested group as POST /api/eval does; an edit of a group's members plans as
// that field, old and new; a file with a cycle is refused whole (exit 1, the problem placed).
import fs from 'node:fs';
import path from 'node:path';
import { ADMIN, ADMIN_PASSWORD, ok, tempDir, useDaemon } from '../helpers/daemon';
import { fwctl } from '../helpers/fwctl';

const d = useDaemon();
const home = tempDir('fwctl-groups-');
const env = () => ({ XDG_CONFIG_HOME: path.join(home, 'cfg'), HOME: home });
const file = (name: string) => path.join(home, name);

const YAML = `format: fwd-config/1
interfaces:
  - { name: eth0, ip: 10.0.0.1/24, management: [], state: up, zone: lan }
zones:
  - { name: lan, type: l3, color: "", networks: [] }
addresses:
  - { name: web1, ips: [10.0.0.10/32] }
  - { name: web2, ips: [10.0.0.11/32] }
address-groups:
  - { name: all-web, members: [webs], description: every web server }
  - { name: webs, members: [web1, web2], description: "" }
services:
  - { name: https, protocol: tcp, ports: [443] }
  - { name: ping, protocol: icmp, ports: [], icmp-type: 8 }
service-groups:
  - { name: web-svc, members: [https, ping], description: "" }
policies:
  - { action: allow, src-zone: any, dst-zone: any, src-addr: any, dst-addr: all-web, services: [web-svc], log: false }
`;

beforeAll(async () => {
  const r = await fwctl(['login', d.url, '--user', ADMIN], { ...env(), FWCTL_PASSWORD: ADMIN_PASSWORD });
  expect(r.code).toBe(0);
});

test('a YAML file with nested groups: plan, apply, export back, trace through the group', async () => {
  fs.writeFileSync(file('groups.yaml'), YAML);
  const plan = await fwctl(['plan', '-f', file('groups.yaml')], env());
  expect(plan.code).toBe(2);
  expect(plan.stdout).toMatch(/^\+ +address-group +all-web$/m);
  expect(plan.stdout).toMatch(/^\+ +address-group +webs$/m);
  expect(plan.stdout).toMatch(/^\+ +service-group +web-svc$/m);
  const apply = await fwctl(['apply', '-f', file('groups.yaml'), '--yes'], env());
  expect(apply.code).toBe(0);
  const x = (await ok(d.client.get('/api/config/export'))).body;
  expect(x['address-groups']).toEqual([
    { name: 'all-web', members: ['webs'], description: 'every web server' },
    { name: 'webs', members: ['web1', 'web2'], description: '' },
  ]);
  expect(x['service-groups']).toEqual([{ name: 'web-svc', members: ['https', 'ping'], description: '' }]);
  const exported = await fwctl(['export', '--format', 'yaml'], env());
  fs.writeFileSync(file('back.yaml'), exported.stdout);
  expect((await fwctl(['plan', '-f', file('back.yaml')], env())).code).toBe(0);
  for (const [dst, proto, extra] of [['10.0.0.11', 'tcp', ['--dport', '443']], ['10.0.0.12', 'tcp', ['--dport', '443']], ['10.0.0.10', 'icmp', ['--icmp-type', '8']]] as const) {
    const t = await fwctl(['trace', '--src', '192.0.2.1', '--dst', dst, '--proto', proto, ...extra, '--json'], env());
    expect(t.code).toBe(0);
    const packet: Record<string, unknown> = { 'src-ip': '192.0.2.1', 'dst-ip': dst, protocol: proto };
    if (proto === 'tcp') packet['dst-port'] = 443;
    else packet['icmp-type'] = 8;
    const { version: _v, ...want } = (await ok(d.client.post('/api/eval', packet))).body;
    const { version: _w, ...got } = JSON.parse(t.stdout);
    expect(got).toEqual(want);
    expect(got.policy?.id ?? null).toBe(dst === '10.0.0.12' ? null : 1);
  }
});

test('a changed member list plans as that field; a cycle in the file is refused whole', async () => {
  fs.writeFileSync(file('edit.yaml'), YAML.replace('members: [web1, web2]', 'members: [web1]'));
  const plan = await fwctl(['plan', '-f', file('edit.yaml')], env());
  expect(plan.code).toBe(2);
  expect(plan.stdout).toMatch(/^~ +address-group +webs\n +members: \["web1","web2"\] -> \["web1"\]$/m);
  fs.writeFileSync(file('cycle.yaml'), YAML.replace('members: [web1, web2]', 'members: [web1, all-web]'));
  const r = await fwctl(['apply', '-f', file('cycle.yaml'), '--yes'], env());
  expect(r.code).toBe(1);
  expect(r.stderr).toMatch(/ERR_NET_2003/);
  expect(r.stderr).toMatch(/address-groups\[\d\]\.members\[1\]/);
  expect((await ok(d.client.get('/api/address-groups/webs'))).body.members).toEqual(['web1', 'web2']);
});
