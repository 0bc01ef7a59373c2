// The pure parts of syslog forwarding: FW_SYSLOG and its companions, the RFC 5424 text of a
// record, the audit mapping and the bounded buffer. test/api/syslog.test.ts sends to rsyslog.
import { loadSettings } from '../../src/settings';
import { escapeParam, formatRecord } from '../../src/syslog/message';
import { auditRecord } from '../../src/syslog/records';
import { BoundedQueue } from '../../src/syslog/bounded-queue';
import { readSyslogCa } from '../../src/syslog/forwarder';

test('FW_SYSLOG lists udp, tcp and tls targets; anything else stops the start with the item named', () => {
  expect(loadSettings({}).syslog).toEqual([]);
  expect(loadSettings({ FW_SYSLOG: ' udp://Logs.Example.net:514, tcp://10.0.0.9:601,tls://[2001:db8::1]:6514 ' }).syslog).toEqual([
    { protocol: 'udp', host: 'logs.example.net', port: 514, url: 'udp://logs.example.net:514' },
    { protocol: 'tcp', host: '10.0.0.9', port: 601, url: 'tcp://10.0.0.9:601' },
    { protocol: 'tls', host: '2001:db8::1', port: 6514, url: 'tls://[2001:db8::1]:6514' },
  ]);
  for (const bad of ['http://h:514', 'udp://h', 'tcp://h:0', 'tcp://h:70000', 'tls://:514', 'udp://h:514/x', 'udp://user@h:514']) {
    expect(() => loadSettings({ FW_SYSLOG: bad })).toThrow(`FW_SYSLOG: "${bad}" is not udp://host:port, tcp://host:port or tls://host:port`);
  }
  expect(() => loadSettings({ FW_SYSLOG: 'tcp://h:514,tcp://H:514' })).toThrow(/"tcp:\/\/H:514" is listed twice/);
  expect(loadSettings({}).syslogBuffer).toBe(10_000);
  expect(() => loadSettings({ FW_SYSLOG_BUFFER: '0' })).toThrow(/FW_SYSLOG_BUFFER must be an integer from 1 to 1000000/);
  expect(loadSettings({}).syslogTlsVerify).toBe(true);
  expect(loadSettings({ FW_SYSLOG_TLS_VERIFY: 'off' }).syslogTlsVerify).toBe(false);
  expect(() => readSyslogCa('/nonexistent/ca.pem')).toThrow('FW_SYSLOG_CA: cannot read /nonexistent/ca.pem: ENOENT');
  expect(() => readSyslogCa('/etc/hostname')).toThrow('FW_SYSLOG_CA: /etc/hostname holds no PEM certificate');
});

const ORIGIN = { hostname: 'fw1', appName: 'fwd', procId: '42' };

test('a record in RFC 5424: PRI, version, UTC time, header fields, escaped structured data, MSG', () => {
  expect(escapeParam('a"b\\c]d=e')).toBe('a\\"b\\\\c\\]d=e');
  const text = formatRecord({
    facility: 13, severity: 5, time: Date.UTC(2026, 10, 26, 20, 1, 2, 3), msgid: 'AUDIT', sdName: 'audit',
    params: { action: 'user.create', 'bad name="x"]': 'v', role: undefined, n: 3, empty: '' }, msg: 'alice',
  }, ORIGIN);
  expect(text).toBe('<109>1 2026-11-26T20:01:02.003Z fw1 fwd 42 AUDIT [audit@32473 action="user.create" badnamex="v" n="3" empty=""] alice');
  // no MSG: the message ends with the structured data; a long value is cut
  const long = formatRecord({ facility: 16, severity: 6, time: 0, msgid: 'TRAFFIC', sdName: 'traffic', params: { v: 'x'.repeat(5000) }, msg: '' }, ORIGIN);
  expect(long).toMatch(/^<134>1 1970-01-01T00:00:00\.000Z fw1 fwd 42 TRAFFIC \[traffic@32473 v="x{1021}\.\.\."\]$/);
  // a non-ASCII MSG is UTF-8 with its byte order mark
  expect(formatRecord({ facility: 16, severity: 6, time: 0, msgid: 'X', sdName: 'x', params: {}, msg: 'réseau' }, ORIGIN)).toMatch(/\[x@32473\] \ufeffréseau$/);
});

test('an audit entry: log audit facility, notice or warning, who and what in the structured data; texts as the trail keeps them', () => {
  expect(auditRecord({ at: 5, user: 'bob', role: 'operator', action: 'sessions.end', details: 'two\nlines\u202e', reqId: 'r-1', payload: { big: true } })).toEqual({
    facility: 13, severity: 5, time: 5, msgid: 'AUDIT', sdName: 'audit',
    params: { action: 'sessions.end', user: 'bob', role: 'operator', token: undefined, req_id: 'r-1' }, msg: 'twolines',
  });
  expect(auditRecord({ at: 5, user: 'eve', action: 'auth.login-failed', details: 'from 10.0.0.1', reqId: '' })).toMatchObject({ severity: 4, params: { req_id: undefined } });
});

test('the bounded buffer keeps the oldest first and refuses past its capacity', () => {
  const q = new BoundedQueue<number>(3);
  expect([q.push(1), q.push(2), q.push(3), q.push(4)]).toEqual([true, true, true, false]);
  expect([q.shift(), q.size]).toEqual([1, 2]);
  expect(q.push(5)).toBe(true);
  expect([q.shift(), q.shift(), q.shift(), q.shift(), q.size]).toEqual([2, 3, 5, undefined, 0]);
});
