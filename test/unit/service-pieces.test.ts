// Issue 42: the pure pieces of the service integration. The settings file is read as
// systemd's EnvironmentFile= reads it (systemd.exec(5), env-file.c's states); the
// notification variables are taken out of the environment the helpers inherit; pino's lines
// become journal lines with sd-daemon(3) priorities.
import { parseEnvFile } from '../../src/service/env-file';
import { takeNotifyTarget } from '../../src/service/notify';
import { journalLine, journalPriority } from '../../src/journal-format';

describe('parseEnvFile (systemd EnvironmentFile= syntax)', () => {
  test('assignments, comments, blanks around "=", trailing blanks dropped', () => {
    expect(parseEnvFile('# a comment\n; another\n\nA=1\n  B = two words  \nC=\nbad line\n')).toEqual({ A: '1', B: 'two words', C: '' });
  });

  test('double quotes: escapes of " \\ $ `, other backslashes kept, a line continued; single quotes taken as they are', () => {
    const text = 'D="say \\"hi\\" \\$HOME \\n"\nE=\'it\\s $raw\'\nF="one \\\ntwo"\n';
    expect(parseEnvFile(text)).toEqual({ D: 'say "hi" $HOME \\n', E: 'it\\s $raw', F: 'one two' });
  });

  test('unquoted: a backslash escapes the next character or continues the line; a quote inside is a character', () => {
    expect(parseEnvFile('G=a\\ b\\\nc\nH=it\'s "x"\n')).toEqual({ G: 'a bc', H: 'it\'s "x"' });
  });

  test('after a closing quote the value goes on; a name given twice keeps the last; no newline at the end', () => {
    expect(parseEnvFile('I="a" b\nJ=1\nJ=2')).toEqual({ I: 'ab', J: '2' });
  });

  test('what the package writes: base64 secrets, URLs with commas', () => {
    const secret = 'q8F+/xZ0Qw==';
    expect(parseEnvFile(`FW_JWT_SECRET=${secret}\nFW_SYSLOG=udp://192.0.2.1:514,tcp://[2001:db8::1]:601\n`))
      .toEqual({ FW_JWT_SECRET: secret, FW_SYSLOG: 'udp://192.0.2.1:514,tcp://[2001:db8::1]:601' });
  });
});

describe('takeNotifyTarget', () => {
  test('takes NOTIFY_SOCKET and the watchdog out of the environment the helpers inherit', () => {
    const env: NodeJS.ProcessEnv = { NOTIFY_SOCKET: '/run/systemd/notify', WATCHDOG_USEC: '30000000', WATCHDOG_PID: '4242', PATH: '/usr/bin' };
    expect(takeNotifyTarget(env, 4242)).toEqual({ socket: '/run/systemd/notify', watchdogUsec: 30_000_000 });
    expect(env).toEqual({ PATH: '/usr/bin' });
  });

  test('a watchdog meant for another process (WATCHDOG_PID) or without a socket is not ours', () => {
    expect(takeNotifyTarget({ NOTIFY_SOCKET: '/s', WATCHDOG_USEC: '1000', WATCHDOG_PID: '1' }, 4242)).toEqual({ socket: '/s', watchdogUsec: null });
    expect(takeNotifyTarget({ WATCHDOG_USEC: '1000' }, 4242)).toEqual({ socket: null, watchdogUsec: null });
    expect(takeNotifyTarget({ NOTIFY_SOCKET: '/s', WATCHDOG_USEC: 'x' }, 4242)).toEqual({ socket: '/s', watchdogUsec: null });
  });
});

describe('journal lines', () => {
  test('pino levels as sd-daemon(3) priorities: fatal 2, error 3, warn 4, info 6, debug and trace 7', () => {
    expect([60, 50, 40, 30, 20, 10].map(journalPriority)).toEqual([2, 3, 4, 6, 7, 7]);
  });

  test('the message, then the fields as key=value (JSON where needed); time, pid and level left to journald', () => {
    const line = journalLine(`${JSON.stringify({ level: 40, time: 1, pid: 7, port: 8080, host: '127.0.0.1', why: 'two words', err: { a: 1 }, msg: 'line one\nline two' })}\n`);
    expect(line).toBe('<4>line one\\nline two port=8080 host=127.0.0.1 why="two words" err={"a":1}\n');
  });
});
