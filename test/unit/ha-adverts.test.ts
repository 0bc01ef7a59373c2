// GET /api/ha/status's peer.last_advert (issue 39): the kernel keeps each VRRP sender in a set
// whose element timeout each advert refreshes; the time of the last advert is now less the
// part of the timeout that ran out (src/dataplane/ha-render.ts lastAdverts).
import { ADVERT_KEEP_S, haInputRules, haSets, lastAdverts, nftDurationMs } from '../../src/dataplane/ha-render';
import type { HaConfig } from '../../src/config/ha';

test('nft durations read as ms', () => {
  expect(nftDurationMs('23h59m58s736ms')).toBe(86_398_736);
  expect(nftDurationMs('1d')).toBe(86_400_000);
  expect(nftDurationMs('59m58s752ms')).toBe(3_598_752);
});

test('the last advert of each sender: on the set\'s own timeout, and on an element timeout of its own', () => {
  const listing = `table inet fwdaemon {
	set ha_adverts4 {
		type ipv4_addr
		size 65535
		flags dynamic,timeout
		timeout 1d
		elements = { 10.0.0.3 expires 23h59m58s736ms, 10.0.0.4 timeout 1h expires 59m58s752ms }
	}
}`;
  const now = 1_000_000_000;
  expect(ADVERT_KEEP_S).toBe(86400);
  expect([...lastAdverts(listing, now)]).toEqual([['10.0.0.3', now - 1264], ['10.0.0.4', now - 1248]]);
  expect([...lastAdverts('table inet fwdaemon { set ha_adverts6 { type ipv6_addr } }', now)]).toEqual([]);
  const v6 = `elements = { fe80::1c2:3ff:fe04:506 expires 23h59m59s800ms }`;
  expect([...lastAdverts(v6, now)]).toEqual([['fe80::1c2:3ff:fe04:506', now - 200]]);
});

test('an enabled pair notes each advert received on the links of its virtual addresses', () => {
  const ha = { enabled: true, syncInterface: 'sync', virtualAddresses: [{ interface: 'lan', vrid: 1, addresses: ['10.0.0.1/24'] }] } as unknown as HaConfig;
  expect(haInputRules(ha)).toEqual([
    'iifname "lan" meta nfproto ipv4 meta l4proto 112 update @ha_adverts4 { ip saddr } accept comment "ha: vrrp"',
    'iifname "lan" meta nfproto ipv6 meta l4proto 112 update @ha_adverts6 { ip6 saddr } accept comment "ha: vrrp"',
    'iifname "sync" udp dport 3780 accept comment "ha: conntrackd"',
  ]);
  expect(haSets(ha).map((s) => `${s.name} ${s.type} ${s.flags}`)).toEqual(['ha_adverts4 ipv4_addr dynamic, timeout; timeout 86400s', 'ha_adverts6 ipv6_addr dynamic, timeout; timeout 86400s']);
  expect(haSets({ ...ha, enabled: false })).toEqual([]);
});
