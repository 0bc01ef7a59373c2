// The pure parts of the live half of the data plane: the settings, the layout of the
// conntrack mark, and conntrack's lines as the session table reads them.
import { loadSettings } from '../../src/settings';
import { CUT_MARK, generation, generationMark, hex, policyMark, readMark } from '../../src/dataplane/marks';

/** The mark an accepted connection ends with: the policy's bits, then the stamp chain's generation (or, disjoint bits). */
const acceptMark = (version: number, policyId: number) => hex(Number(policyMark(policyId)) + Number(generationMark(version)));
import { parseEntry } from '../../src/dataplane/conntrack';

test('FW_SESSION_REMATCH is on by default, off on request, refused otherwise; FW_HITS_INTERVAL in seconds', () => {
  expect(loadSettings({}).sessionRematch).toBe(true);
  expect(loadSettings({ FW_SESSION_REMATCH: 'off' }).sessionRematch).toBe(false);
  expect(() => loadSettings({ FW_SESSION_REMATCH: 'sometimes' })).toThrow(/FW_SESSION_REMATCH must be on or off, got "sometimes"/);
  expect(loadSettings({}).hitsIntervalMs).toBe(5000);
  expect(loadSettings({ FW_HITS_INTERVAL: '2' }).hitsIntervalMs).toBe(2000);
  expect(() => loadSettings({ FW_HITS_INTERVAL: '0' })).toThrow(/FW_HITS_INTERVAL must be an integer from 1 to 3600/);
});

test('a mark holds the generation of the accepting version and the policy; generations wrap and never make the cut mark', () => {
  expect(acceptMark(7, 12)).toBe('0x0080000c');
  expect(generationMark(7)).toBe('0x00800000');
  expect(readMark(0x0080000c)).toEqual({ policy: 12, generation: 8, cut: false });
  expect(readMark(0)).toEqual({ policy: null, generation: 0, cut: false });
  expect(readMark(CUT_MARK)).toEqual({ policy: null, generation: 0, cut: true });
  expect(generation(4093)).toBe(4094);
  expect(generation(4094)).toBe(1);
  expect(acceptMark(4093, 0xfffff)).not.toBe('0xffffffff');
  expect(acceptMark(1, 2 ** 20)).toBe('0x00200000'); // an id too large for the mark: unknown
});

test('conntrack lines: TCP with accounting and age, ICMP ids, IPv6 UDP unreplied', () => {
  expect(parseEntry('ipv4     2 tcp      6 431999 ESTABLISHED src=10.1.0.2 dst=10.2.0.2 sport=47001 dport=7001 packets=3 bytes=172 src=10.2.0.2 dst=10.2.0.1 sport=7001 dport=47001 packets=2 bytes=112 [ASSURED] mark=8388609 delta-time=42 use=1 id=3669766318')).toEqual({
    id: 3669766318, family: 4, protocol: 'tcp', protonum: 6, timeout: 431999, state: 'ESTABLISHED',
    original: { src: '10.1.0.2', dst: '10.2.0.2', sport: 47001, dport: 7001, packets: 3, bytes: 172 },
    reply: { src: '10.2.0.2', dst: '10.2.0.1', sport: 7001, dport: 47001, packets: 2, bytes: 112 },
    icmp: null, mark: 8388609, age: 42, assured: true, unreplied: false,
  });
  const icmp = parseEntry('ipv4     2 icmp     1 29 src=10.1.0.2 dst=10.2.0.2 type=8 code=0 id=77 src=10.2.0.2 dst=10.1.0.2 type=0 code=0 id=77 mark=0 use=1 id=123');
  expect(icmp).toEqual(expect.objectContaining({ id: 123, protocol: 'icmp', state: null, icmp: { type: 8, code: 0, id: 77 } }));
  expect(icmp!.original.sport).toBeNull();
  const v6 = parseEntry('ipv6     10 udp      17 29 src=fd01::2 dst=fd02::2 sport=5000 dport=53 [UNREPLIED] src=fd02::2 dst=fd01::2 sport=53 dport=5000 mark=0 use=1 id=9');
  expect(v6).toEqual(expect.objectContaining({ family: 6, protocol: 'udp', unreplied: true, assured: false, age: null }));
  expect(v6!.reply).toEqual({ src: 'fd02::2', dst: 'fd01::2', sport: 53, dport: 5000, packets: 0, bytes: 0 });
  expect(parseEntry('conntrack v1.4.7 (conntrack-tools): 2 flow entries have been shown.')).toBeNull();
});
