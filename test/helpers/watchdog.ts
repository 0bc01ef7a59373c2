// Child processes of a test (redis-server, daemons) must not outlive it, even when jest kills
// its worker with SIGKILL (then no 'exit' handler runs). A detached shell per child waits for
// this process to end and kills the child then.
import { spawn, type ChildProcess } from 'node:child_process';

export function killWithThisProcess(child: ChildProcess): void {
  if (!child.pid) return;
  const watcher = spawn('sh', ['-c', `while kill -0 ${process.pid} 2>/dev/null && kill -0 ${child.pid} 2>/dev/null; do sleep 1; done; kill -9 ${child.pid} 2>/dev/null`], {
    detached: true,
    stdio: 'ignore',
  });
  watcher.unref();
}
