// fwctl watch's line of a node event: an instance that serves another version says so once
// ("node-a serves version 3"; it printed "node-a version version 3").
import { eventLine } from '../../src/cli/commands/watch';

test('a node\'s version event reads "serves version N"; joined keeps its version', () => {
  const base = { id: 7, at: '2026-11-26T10:00:00.000Z', origin: 'node-a', type: 'node' as const, node: 'node-a' };
  expect(eventLine({ ...base, state: 'version', version: 3 })).toMatch(/ node +node-a serves version 3$/);
  expect(eventLine({ ...base, state: 'joined', version: 2, address: '127.0.0.1:8081' })).toMatch(/ node +node-a joined version 2$/);
});

test('a list event reads its change, or its failure with the list that stays', () => {
  const base = { id: 9, at: '2026-12-07T21:00:00.000Z', origin: 'node-a', type: 'list' as const, address: 'feed', url: 'https://example.test/l.txt' };
  expect(eventLine({ ...base, state: 'updated', entries: 120, added: 3, removed: 1 })).toMatch(/ list +feed now 120 entries \(\+3 -1\)$/);
  expect(eventLine({ ...base, state: 'failed', entries: 120, added: 0, removed: 0, error: 'HTTP 503 Service Unavailable' }))
    .toMatch(/ list +feed fetch failed: HTTP 503 Service Unavailable \(the last good list of 120 stays\)$/);
});
