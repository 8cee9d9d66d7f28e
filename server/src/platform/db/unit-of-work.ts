import type { DomainEvents, EventBus, EventName } from '../events';
import { type Db, type Queryable, withinTransaction } from './db';

/** A domain event recorded by a unit of work, published once the unit has committed. */
export interface RecordedEvent<K extends EventName = EventName> {
  name: K;
  payload: DomainEvents[K];
}

/**
 * Where the events of a unit are written inside its own transaction, so they are delivered even
 * when the process dies right after the commit (durable jobs). Without one, events are in-process only.
 */
export interface Outbox {
  write(tx: Queryable, events: readonly RecordedEvent[]): Promise<void>;
}

/** What a unit of work needs: the database (or an enclosing unit's transaction) and the event bus. */
export interface UnitDeps {
  db: Db;
  events: EventBus;
  outbox?: Outbox;
}

/**
 * One transaction and the domain events it causes. `emit` runs the event's in-transaction hooks
 * at once (their writes commit or roll back with the unit) and publishes it to subscribers only
 * after commit; a unit that fails publishes nothing.
 */
export interface Unit {
  readonly tx: Queryable;
  emit<K extends EventName>(name: K, payload: DomainEvents[K]): Promise<void>;
  /** Runs `callback` once the whole unit has committed (never when it fails), e.g. to wake a worker. */
  afterCommit(callback: () => void): void;
  /**
   * `deps` bound to this unit: services given them run as steps of it (each of their own units a
   * savepoint, undone alone when refused) and their events are published when this unit commits.
   */
  bind<D extends UnitDeps>(deps: D): D;
}

/** Runs `work` as one unit of work. Inside it, use only `unit.tx` (PGlite has one connection). */
export async function inUnit<T>(deps: UnitDeps, work: (unit: Unit) => Promise<T>): Promise<T> {
  const recorded: RecordedEvent[] = [];
  const committed: (() => void)[] = [];
  const result = await deps.db.transaction(async (tx) => {
    const unit: Unit = {
      tx,
      async emit(name, payload) {
        await deps.events.runHooks(name, unit, payload);
        recorded.push({ name, payload } as RecordedEvent);
      },
      afterCommit: (callback) => {
        committed.push(callback);
      },
      bind: (bound) => ({
        ...bound,
        db: withinTransaction(tx, deps.db.engine),
        events: deferredBus(deps.events, recorded, committed),
        // The enclosing unit writes the outbox once, for every event of its steps.
        outbox: undefined,
      }),
    };
    const outcome = await work(unit);
    if (deps.outbox && recorded.length > 0) await deps.outbox.write(tx, recorded);
    return outcome;
  });
  for (const event of recorded) deps.events.publish(event.name, event.payload);
  for (const callback of committed) deps.events.afterCommit(callback);
  return result;
}

/** The bus as a step of a unit sees it: hooks run as usual, publishing waits for the unit's commit. */
function deferredBus(events: EventBus, recorded: RecordedEvent[], committed: (() => void)[]): EventBus {
  return {
    publish: (name, payload) => {
      recorded.push({ name, payload } as RecordedEvent);
    },
    afterCommit: (callback) => {
      committed.push(callback);
    },
    subscribe: (name, handler) => events.subscribe(name, handler),
    hook: (name, hook) => events.hook(name, hook),
    runHooks: (name, unit, payload) => events.runHooks(name, unit, payload),
    idle: () => events.idle(),
  };
}
