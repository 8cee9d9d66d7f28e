/**
 * The tokens a refresh got, handed from the tab that refreshed to the tabs whose turn comes after
 * it. The tabs take turns (Web Locks) and find the session's tokens in localStorage, but a write
 * to localStorage reaches another tab's reads only a moment later: a tab granted its turn just as
 * the last one ended may still read the refresh token that tab used, and present it again — taken
 * for a stolen token once the server has rotated past it, which ends the session everywhere.
 * IndexedDB is read as committed, so the record written before a turn ends is what the next reads.
 *
 * One record: the refresh token replaced and the tokens that replaced it. It holds no more than
 * localStorage does, and goes at sign-out.
 */

interface Tokens {
  accessToken: string;
  refreshToken: string;
}

interface Handover {
  replaced: string;
  tokens: Tokens;
}

const DATABASE = 'orbita.session';
const STORE = 'handover';
const KEY = 'last';

function factory(): IDBFactory | undefined {
  return (globalThis as { indexedDB?: IDBFactory }).indexedDB;
}

function request<T>(made: IDBRequest<T>): Promise<T> {
  return new Promise((resolve, reject) => {
    made.onsuccess = () => resolve(made.result);
    made.onerror = () => reject(made.error);
  });
}

/**
 * Runs `work` in one transaction of a connection opened for it alone, so none stays open to block
 * the removal. Only a write creates the database: a read of none finds nothing.
 */
async function inStore<T>(
  mode: IDBTransactionMode,
  work: (store: IDBObjectStore) => IDBRequest<T>,
): Promise<T | undefined> {
  const indexedDB = factory() as IDBFactory;
  const opening = indexedDB.open(DATABASE, 1);
  let absent = false;
  opening.onupgradeneeded = () => {
    if (mode === 'readwrite') opening.result.createObjectStore(STORE);
    else {
      absent = true;
      opening.transaction?.abort();
    }
  };
  const database = await request(opening).catch((error: unknown) => {
    if (absent) return undefined;
    throw error;
  });
  if (!database) return undefined;
  try {
    const transaction = database.transaction(STORE, mode);
    const done = new Promise<void>((resolve, reject) => {
      transaction.oncomplete = () => resolve();
      transaction.onerror = () => reject(transaction.error);
      transaction.onabort = () => reject(transaction.error);
    });
    const result = await request(work(transaction.objectStore(STORE)));
    await done;
    return result;
  } finally {
    database.close();
  }
}

/** Records that `tokens` replaced the refresh token `replaced`; resolves once committed. */
export async function handOver(replaced: string, tokens: Tokens): Promise<void> {
  if (!factory()) return;
  const record: Handover = { replaced, tokens };
  await inStore('readwrite', (store) => store.put(record, KEY));
}

/** The tokens that replaced `refreshToken`, when the last refresh of this browser replaced it. */
export async function handedOver(refreshToken: string): Promise<Tokens | undefined> {
  if (!factory()) return undefined;
  const record = (await inStore('readonly', (store) => store.get(KEY))) as Handover | undefined;
  return record?.replaced === refreshToken ? record.tokens : undefined;
}

/** Forgets the record (at sign-out: nothing of the session stays); resolves once it is gone. */
export function forgetHandover(): Promise<void> {
  const indexedDB = factory();
  if (!indexedDB) return Promise.resolve();
  return request(indexedDB.deleteDatabase(DATABASE)).then(() => undefined);
}
