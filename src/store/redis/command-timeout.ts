// A command times out when Redis has not answered it in time, not when its answer is waiting
// in the socket. ioredis rejects a command from a timer armed when it is sent, and Node's
// loop runs due timers before it reads the sockets: after the main thread was busy for longer
// than the timeout (a big configuration applied, compiled or diffed), every command in flight
// failed with "Command timed out" although Redis had answered at once, and their requests
// answered 503 ERR_SYS_4002. Here the timer only gives the loop one turn: the sockets are read
// (an answer that is there settles its command), then a command still unanswered is rejected.
import { Command } from 'ioredis';

/** ioredis's own field for the timer (it clears it when the command settles): kept, so no timer outlives its command. */
interface TimedCommand {
  _commandTimeoutTimer?: NodeJS.Timeout;
  isResolved: boolean;
  reject(err: Error): void;
}

function rejectAfterReads(this: Command, ms: number): void {
  const command = this as unknown as TimedCommand;
  if (command._commandTimeoutTimer) return;
  command._commandTimeoutTimer = setTimeout(() => {
    // setImmediate runs after the loop's poll phase, which reads what the sockets hold
    setImmediate(() => {
      if (!command.isResolved) command.reject(new Error('Command timed out'));
    });
  }, ms);
}

/** Makes every ioredis command timeout in this process wait for the sockets to be read (calling it again changes nothing). */
export function timeoutAfterReads(): void {
  Command.prototype.setTimeout = rejectAfterReads;
}
