import { getPrimaryFieldOfPrimaryKey, type RxStorage, type RxStorageInstance } from 'rxdb';
import { filter } from 'rxjs';

type Instance = RxStorageInstance<unknown, unknown, unknown>;

/**
 * `inner` as the desktop's replica process serves it, through a port, with a process that can die
 * (`kill`, `dieAtWrite`): its calls then wait for an answer that never comes — a call under way is
 * carried out (what the process committed stays on the disk), no change event follows — until the
 * port closes (`closePort`), which calls `onGone` and then fails every waiting call and every later
 * one, as RxDB's remote storage does (`remoteReplicaStorage`). `revive` starts a process again on
 * what the disk holds.
 */
export function dyingStorage(inner: RxStorage<unknown, unknown>) {
  const life = {
    dead: false,
    portClosed: false,
    /** The write that kills the process, once armed (`dieAtWrite`). */
    killing: undefined as ((ids: string[], context: string) => boolean) | undefined,
    /** Calls waiting for the dead process: failed when the port closes. */
    waiting: new Set<() => void>(),
  };
  const exited = () => new Error('The replica process exited');
  // Made with the call, so that its stack names the caller: the port closing fails it far from there.
  const unanswered = () => {
    const failure = exited();
    return new Promise<never>((_resolve, reject) => {
      if (life.portClosed) reject(failure);
      else life.waiting.add(() => reject(failure));
    });
  };
  const call = async <T>(run: () => Promise<T>): Promise<T> => {
    if (life.dead) return unanswered();
    const result = await run();
    if (life.dead) return unanswered();
    return result;
  };
  const wrap = (instance: Instance): Instance => {
    const wrapped = Object.create(instance) as Instance;
    const primary = getPrimaryFieldOfPrimaryKey(instance.schema.primaryKey) as string;
    wrapped.bulkWrite = (rows, context) => {
      const ids = rows.map((row) => String((row.document as Record<string, unknown>)[primary]));
      if (life.killing?.(ids, context)) {
        life.killing = undefined;
        life.dead = true;
      }
      return call(() => instance.bulkWrite(rows, context));
    };
    wrapped.findDocumentsById = (ids, withDeleted) => call(() => instance.findDocumentsById(ids, withDeleted));
    wrapped.query = (query) => call(() => instance.query(query));
    wrapped.count = (query) => call(() => instance.count(query));
    wrapped.getAttachmentData = (id, attachmentId, digest) =>
      call(() => instance.getAttachmentData(id, attachmentId, digest));
    if (instance.getChangedDocumentsSince) {
      const since = instance.getChangedDocumentsSince.bind(instance);
      wrapped.getChangedDocumentsSince = (limit, checkpoint) => call(() => since(limit, checkpoint));
    }
    wrapped.cleanup = (minimumDeletedTime) => call(() => instance.cleanup(minimumDeletedTime));
    wrapped.changeStream = () => instance.changeStream().pipe(filter(() => !life.dead));
    wrapped.remove = () => call(() => instance.remove());
    // Closing frees what the test holds; the dead process holds nothing more.
    wrapped.close = () => instance.close();
    return wrapped;
  };
  const storage: RxStorage<unknown, unknown> = {
    ...inner,
    createStorageInstance: (params) =>
      call(async () => wrap((await inner.createStorageInstance(params as never)) as Instance) as never),
  };
  return {
    storage,
    /** The process dies now. */
    kill: () => {
      life.dead = true;
    },
    /** The process dies at the next write matching `matches`, which it never carries out. */
    dieAtWrite: (matches: (ids: string[], context: string) => boolean) => {
      life.killing = matches;
    },
    dead: () => life.dead,
    /** The dead process's port closes: `onGone`, then every call waiting and every later one fails. */
    closePort: (onGone?: () => void) => {
      onGone?.();
      life.portClosed = true;
      for (const fail of life.waiting) fail();
      life.waiting.clear();
    },
    revive: () => {
      life.dead = false;
      life.portClosed = false;
      life.killing = undefined;
    },
  };
}

/** Rejections nobody handled while `run` ran (a dead process's calls failing inside RxDB). */
export async function unhandledDuring(run: () => Promise<void>): Promise<string[]> {
  const unhandled: string[] = [];
  const record = (reason: unknown) => unhandled.push(String((reason as Error)?.stack ?? reason));
  process.on('unhandledRejection', record);
  try {
    await run();
    // Node reports an unhandled rejection after the turn it happened in.
    await new Promise((resolve) => setTimeout(resolve, 50));
  } finally {
    process.off('unhandledRejection', record);
  }
  return unhandled;
}
