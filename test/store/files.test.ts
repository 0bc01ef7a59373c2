// The file primitives: JSON-lines parsing with torn tails, group commit, atomic writes.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { GroupAppender, atomicWriteFile, cutPartialLastLine, parseJsonLines } from '../../src/store/files';
import { removeTmpDirs, tmpDir } from './helpers';

afterAll(removeTmpDirs);

describe('parseJsonLines', () => {
  const parse = (s: string | Buffer) => parseJsonLines(Buffer.isBuffer(s) ? s : Buffer.from(s), 'f.log');

  test('complete lines', () => {
    expect(parse('{"a":1}\n[2]\n')).toEqual({ values: [{ a: 1 }, [2]], validBytes: 12, tornBytes: 0 });
    expect(parse('')).toEqual({ values: [], validBytes: 0, tornBytes: 0 });
  });

  test('an unterminated last line is torn, even when it parses', () => {
    expect(parse('{"a":1}\n{"b":')).toEqual({ values: [{ a: 1 }], validBytes: 8, tornBytes: 5 });
    expect(parse('{"a":1}\n{"b":2}')).toEqual({ values: [{ a: 1 }], validBytes: 8, tornBytes: 7 });
  });

  test('a last terminated line that does not parse is torn', () => {
    const buf = Buffer.concat([Buffer.from('{"a":1}\n'), Buffer.alloc(5), Buffer.from('x\n')]);
    expect(parse(buf)).toEqual({ values: [{ a: 1 }], validBytes: 8, tornBytes: 7 });
  });

  test('a bad line followed by more lines is corruption', () => {
    expect(() => parse('{"a":1}\n{oops\n{"b":2}\n')).toThrow(/f\.log is corrupt at line 2/);
  });
});

describe('GroupAppender', () => {
  test('appends that arrive during an fsync share the next one', async () => {
    const file = path.join(await tmpDir(), 'log');
    const handle = fs.promises.open(file, 'a');
    const fh = await handle;
    let syncs = 0;
    const real = fh.datasync.bind(fh);
    fh.datasync = () => {
      syncs++;
      return real();
    };
    const log = new GroupAppender(handle);
    await Promise.all(Array.from({ length: 100 }, (_, i) => log.append(`${i}\n`)));
    await log.close();
    expect(fs.readFileSync(file, 'utf8')).toBe(Array.from({ length: 100 }, (_, i) => `${i}\n`).join(''));
    expect(syncs).toBeLessThanOrEqual(2); // the first alone, the other 99 together
  });

  test('a failed write rejects the batch, the queue and later appends', async () => {
    const file = path.join(await tmpDir(), 'log');
    const fh = await fs.promises.open(file, 'a');
    fh.datasync = () => Promise.reject(new Error('EIO'));
    const failures: Error[] = [];
    const log = new GroupAppender(Promise.resolve(fh), (e) => failures.push(e));
    const results = await Promise.allSettled([log.append('a\n'), log.append('b\n')]);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected']);
    await expect(log.append('c\n')).rejects.toThrow('EIO');
    expect(failures).toHaveLength(1);
    await expect(log.close()).rejects.toThrow('EIO');
  });
});

test('atomicWriteFile replaces the whole file and leaves no temporary file', async () => {
  const dir = await tmpDir();
  const file = path.join(dir, 'meta.json');
  await atomicWriteFile(file, 'one');
  await atomicWriteFile(file, 'two');
  expect(fs.readFileSync(file, 'utf8')).toBe('two');
  expect(fs.readdirSync(dir)).toEqual(['meta.json']);
  expect(fs.statSync(file).mode & 0o777).toBe(0o600);
});

test('cutPartialLastLine', async () => {
  const dir = await tmpDir();
  const file = path.join(dir, 'audit.log');
  expect(await cutPartialLastLine(file)).toBe(0); // missing
  fs.writeFileSync(file, 'a\nb\n');
  expect(await cutPartialLastLine(file)).toBe(0);
  fs.appendFileSync(file, 'c'.repeat(100_000));
  expect(await cutPartialLastLine(file)).toBe(100_000);
  expect(fs.readFileSync(file, 'utf8')).toBe('a\nb\n');
  fs.writeFileSync(file, 'no newline');
  expect(await cutPartialLastLine(file)).toBe(10);
  expect(fs.readFileSync(file, 'utf8')).toBe('');
});
