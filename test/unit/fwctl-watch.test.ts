// fwctl watch's line of a node event: an instance that serves another version says so once
// ("node-a serves version 3"; it printed "node-a version version 3").
import { eventLine } from '../../src/cli/commands/watch';

test('a node\'s version event reads "serves version N"; joined keeps its version', () => {
  const base = { id: 7, at: '2026-11-26T10:00:00.000Z', origin: 'node-a', type: 'node' as const, node: 'node-a' };
  expect(eventLine({ ...base, state: 'version', version: 3 })).toMatch(/ node +node-a serves version 3$/);
  expect(eventLine({ ...base, state: 'joined', version: 2, address: '127.0.0.1:8081' })).toMatch(/ node +node-a joined version 2$/);
});
