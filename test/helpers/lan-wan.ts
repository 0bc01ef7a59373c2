// The two-zone set-up several HTTP tests start from, in an open session: eth0 203.0.113.2/24
// in zone wan with the default route, eth1 10.0.0.1/24 in zone lan.
import { ok, type Client } from './daemon';

export async function lanWan(c: Client): Promise<void> {
  await ok(c.put('/api/interfaces/eth0', { ip: '203.0.113.2/24' }));
  await ok(c.put('/api/interfaces/eth1', { ip: '10.0.0.1/24' }));
  await ok(c.post('/api/zones', { name: 'wan', type: 'l3', interfaces: ['eth0'] }));
  await ok(c.post('/api/zones', { name: 'lan', type: 'l3', interfaces: ['eth1'] }));
  await ok(c.post('/api/routes', { destination: 'default', gateway: '203.0.113.1', interface: 'eth0' }));
}
