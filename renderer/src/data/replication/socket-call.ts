import type { SyncAck } from '@shared/sync';
import type { Socket } from 'socket.io-client';

/** Changes made here going to the server (`send`), or the server's coming here (`receive`). */
export type SyncDirection = 'send' | 'receive';

/** Why a pull or push did not go: the server's problem (with the id it was logged under), or no answer. */
export interface SyncTrouble {
  code: string;
  detail: string;
  status?: number;
  requestId?: string;
}

/** A failed acknowledgement, carrying the server's problem. */
export class SyncProblemError extends Error {
  constructor(readonly problem: { status: number; code: string; title: string; detail: string; requestId?: string }) {
    super(`${problem.code}: ${problem.detail}`);
    this.name = 'SyncProblemError';
  }
}

/** How long a call waits for its acknowledgement, and for a connection under way. */
export interface CallTiming {
  timeoutMs: number;
  connectWaitMs: number;
}

/** The trouble a failed call reports; none for a call made while disconnected (that is offline). */
export function troubleOf(error: unknown): SyncTrouble | undefined {
  if (error instanceof SyncProblemError) {
    const { status, code, detail, requestId } = error.problem;
    return status === 0 ? undefined : { code, detail, status, ...(requestId ? { requestId } : {}) };
  }
  return { code: 'replica_error', detail: error instanceof Error ? error.message : String(error) };
}

/** Resolves once the socket is connected, or after `ms` while it is still trying (at once when it is not). */
export function whenConnected(socket: Socket, ms: number): Promise<void> {
  if (socket.connected || !socket.active) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      socket.off('connect', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    socket.on('connect', done);
  });
}

/** The problem of a call made while disconnected: nothing went out. */
export const offlineProblem = () =>
  new SyncProblemError({ status: 0, code: 'offline', title: 'Offline', detail: 'Not connected' });

/** Emits `event` and resolves the acknowledgement's data; a failed one throws `SyncProblemError`. */
export async function callServer<T>(socket: Socket, event: string, payload: unknown, timing: CallTiming): Promise<T> {
  // Failing at once would cost RxDB's whole retry wait, and replication usually starts while connecting.
  await whenConnected(socket, timing.connectWaitMs);
  // Still disconnected: fail, since socket.io would buffer the event and send it again on reconnect.
  if (!socket.connected) {
    throw offlineProblem();
  }
  // socket.io rejects only when no acknowledgement came in time: that is said as a problem of its own.
  const answer = (await socket
    .timeout(timing.timeoutMs)
    .emitWithAck(event, payload)
    .catch(() => {
      throw new SyncProblemError({
        status: 504,
        code: 'no_answer',
        title: 'No answer',
        detail: 'The server did not answer in time.',
      });
    })) as SyncAck<T>;
  if (!answer.ok) throw new SyncProblemError(answer.problem);
  return answer.data;
}
