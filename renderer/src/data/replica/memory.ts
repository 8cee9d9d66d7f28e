import type { KeptOnDevice } from '../kept-records';

/** Remembered per user across restarts: what is waiting to be sent, and edits the server did not keep. */
export interface Memory {
  get(key: string): string | null;
  set(key: string, value: string): void;
  remove?(key: string): void;
}

/** Where the device lists the accounts whose copies it may hold (user id → e-mail). */
const COPIES_KEY = 'orbita.copies';

/** The accounts whose copies this device may hold, as `memory` lists them (user id → e-mail). */
export function copiesHeld(memory: Memory): Record<string, string> {
  try {
    const copies: unknown = JSON.parse(memory.get(COPIES_KEY) ?? '{}');
    return copies && typeof copies === 'object' && !Array.isArray(copies) ? (copies as Record<string, string>) : {};
  } catch {
    return {};
  }
}

/** Lists `userId` (signing in as `email`) among the accounts whose copies this device may hold. */
export function noteCopy(memory: Memory, userId: string, email: string): void {
  const copies = copiesHeld(memory);
  if (copies[userId] === email) return;
  memory.set(COPIES_KEY, JSON.stringify({ ...copies, [userId]: email }));
}

/** Takes `userId` off the list, its copy removed. */
function forgetCopy(memory: Memory, userId: string): void {
  const { [userId]: _removed, ...rest } = copiesHeld(memory);
  if (Object.keys(rest).length > 0) memory.set(COPIES_KEY, JSON.stringify(rest));
  else if (memory.remove) memory.remove(COPIES_KEY);
  else memory.set(COPIES_KEY, '{}');
}

/**
 * What a replica remembers beside its database, per user (`orbita.replica.<user id>.<name>`);
 * `pullsMarked`: its pulled documents were looked over once for a missing mark (`markUnrecordedPulls`).
 */
const REMEMBERED = ['pending', 'lost', 'syncedAt', 'pullsMarked', 'sent', 'deferred', 'answers'] as const;

export type RememberedName = (typeof REMEMBERED)[number];

/** Deferred master states keep the key earlier releases wrote. */
function memoryKey(userId: string, name: RememberedName): string {
  return `orbita.replica.${userId}.${name === 'deferred' ? 'setAside' : name}`;
}

/** What is remembered beside `userId`'s copy, once the copy is gone: its keys, its entry in the list. */
export function forgetReplica(userId: string, memory: Memory | undefined): void {
  if (!memory) return;
  for (const name of REMEMBERED) memory.remove?.(memoryKey(userId, name));
  forgetCopy(memory, userId);
}

/** How many changes wait to be sent in `userId`'s copy, as remembered (by whichever tab holds it). */
export function rememberedPendingCount(userId: string, memory: Memory): number {
  try {
    const ids: unknown = JSON.parse(memory.get(memoryKey(userId, 'pending')) ?? '[]');
    return Array.isArray(ids) ? ids.length : 0;
  } catch {
    return 0;
  }
}

/** The values one user's replica remembers beside its database (none without a memory). */
export class RememberedValues {
  constructor(
    private readonly userId: string,
    private readonly memory: Memory | undefined,
  ) {}

  /** Forgets every value and the copy's entry in the list, the copy being gone. */
  forget(): void {
    forgetReplica(this.userId, this.memory);
  }

  /** Whether a value is remembered under `name`. */
  has(name: RememberedName): boolean {
    return Boolean(this.memory?.get(memoryKey(this.userId, name)));
  }

  /** The value remembered under `name`, or `fallback` when none can be read. */
  recall<T>(name: RememberedName, fallback: T): T {
    try {
      const raw = this.memory?.get(memoryKey(this.userId, name));
      return raw ? (JSON.parse(raw) as T) : fallback;
    } catch {
      return fallback;
    }
  }

  /** Remembers `value` under `name`; a store that is full only loses it for the next start. */
  keep(name: RememberedName, value: unknown): void {
    try {
      this.memory?.set(memoryKey(this.userId, name), JSON.stringify(value));
    } catch (error) {
      // A full store (the browser's quota) must not fail the sync that reported it: this session
      // still holds the value, only a restart would not.
      console.warn(`The replica could not remember its ${name} on this device:`, error);
    }
  }

  /**
   * What a collection's replication kept on the device with the replica's other remembered values
   * in earlier releases, under `name` beside the other collections': what its pushes not answered
   * yet sent (`sent`), the master states it deferred for the user's changes (`deferred`) and the
   * answers it was taking into the replica (`answers`). The replication now keeps them with its
   * records in the replica (`KeptRecord`: the window's local storage reaches the disk seconds after
   * a write, so an app killed meanwhile kept the records and lost these); what is found here is
   * taken once when it starts, then cleared.
   */
  keptPerCollection<T extends Record<string, unknown>>(
    name: 'sent' | 'deferred' | 'answers',
    collection: string,
  ): KeptOnDevice<T> | undefined {
    const { memory } = this;
    if (!memory) return undefined;
    const key = memoryKey(this.userId, name);
    const all = (): Record<string, T> => {
      try {
        return JSON.parse(memory.get(key) ?? '{}') as Record<string, T>;
      } catch {
        return {};
      }
    };
    return {
      load: () => all()[collection] ?? ({} as T),
      save: (value: T) => {
        const kept = { ...all(), [collection]: value };
        if (Object.keys(value).length === 0) delete kept[collection];
        try {
          if (Object.keys(kept).length > 0) memory.set(key, JSON.stringify(kept));
          else if (memory.remove) memory.remove(key);
          else memory.set(key, '{}');
        } catch (error) {
          // A full store: this session still holds them, only a restart would not.
          console.warn(`The replica could not remember its ${name} states on this device:`, error);
        }
      },
    };
  }
}
