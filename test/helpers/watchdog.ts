// Child processes of a test (redis-server, daemons, proxies) must not outlive it, even when
// jest kills its worker with SIGKILL (then no 'exit' handler runs). A detached shell per child
// waits for this process to end and kills the child then.
import { spawn, type ChildProcess } from 'node:child_process';
import net from 'node:net';

const owned = new Set<ChildProcess>();
process.on('exit', () => {
  for (const p of owned) p.kill('SIGKILL');
});

/** Makes `child` die with this process, however this process ends. */
export function ownChild(child: ChildProcess): void {
  owned.add(child);
  child.on('exit', () => owned.delete(child));
  killWithThisProcess(child);
}

/**
 * Resolves once something accepts connections on 127.0.0.1:`port`; rejects when `child`
 * exits first or after `ms`, with `output()` (what the child wrote) in the message.
 */
export function waitForPort(port: number, child: ChildProcess, output: () => string, ms = 10_000): Promise<void> {
  return new Promise((resolve, reject) => {
    const deadline = setTimeout(() => fail(new Error(`nothing listens on ${port}: ${output()}`)), ms);
    const poll = setInterval(() => {
      const s = net.connect(port, '127.0.0.1', () => {
        s.end();
        settle();
        resolve();
      });
      s.on('error', () => s.destroy());
    }, 20);
    const onExit = (code: number | null) => fail(new Error(`exited with ${code}: ${output()}`));
    child.once('exit', onExit);
    function settle() {
      clearInterval(poll);
      clearTimeout(deadline);
      child.off('exit', onExit);
    }
    function fail(e: Error) {
      settle();
      reject(e);
    }
  });
}

export function killWithThisProcess(child: ChildProcess): void {
  if (!child.pid) return;
  const watcher = spawn('sh', ['-c', `while kill -0 ${process.pid} 2>/dev/null && kill -0 ${child.pid} 2>/dev/null; do sleep 1; done; kill -9 ${child.pid} 2>/dev/null`], {
    detached: true,
    stdio: 'ignore',
  });
  watcher.unref();
}
