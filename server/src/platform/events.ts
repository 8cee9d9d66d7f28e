import type { Unit } from './db/unit-of-work';
import type { Logger } from './logging';

/** Who acted, as an event names them: a member, a bot (through its API key) or an automation. */
export type ActorId =
  | { userId: string; botId?: undefined; automationId?: undefined }
  | { botId: string; userId?: undefined; automationId?: undefined }
  | { automationId: string; userId?: undefined; botId?: undefined };

/** Domain events and their payloads. Names follow the specification. */
export interface DomainEvents {
  'task.status_changed': {
    organizationId: string;
    taskId: string;
    formId: string;
    fromStatusId: string;
    toStatusId: string;
    actor: ActorId;
    /** How many automations' moves led to this one (0: a person's or a bot's); bounds automation chains. */
    depth: number;
  };
  'task.assignee_added': {
    organizationId: string;
    taskId: string;
    userId: string;
    source: string;
  };
  'role.members_changed': {
    organizationId: string;
    roleId: string;
  };
  /** A GPS position accepted by the filters (the live map's feed). */
  'gps.position_accepted': GpsPositionEvent;
  /** An object's accepted point, in fix-time order, is inside a geofence its previous one was not. */
  'gps.geofence_entered': GpsGeofenceEvent;
  /** An object's accepted point, in fix-time order, is outside a geofence its previous one was inside. */
  'gps.geofence_exited': GpsGeofenceEvent;
}

export interface GpsPositionEvent {
  organizationId: string;
  objectId: string;
  fixTime: string;
  lat: number;
  lon: number;
  speedKmh: number | null;
  course: number | null;
  isLbs: boolean;
  /** The battery level the message reported, percent (absent or null: none). */
  batteryPercent?: number | null;
}

export interface GpsGeofenceEvent {
  organizationId: string;
  objectId: string;
  geofenceId: string;
  fixTime: string;
  lat: number;
  lon: number;
}

export type EventName = keyof DomainEvents;
type Handler<K extends EventName> = (payload: DomainEvents[K]) => void | Promise<void>;
/** Runs inside the unit of work that emits the event: its writes commit or roll back with it. */
export type InTransactionHook<K extends EventName> = (unit: Unit, payload: DomainEvents[K]) => Promise<void>;

/**
 * The in-process bus modules meet through. Units of work (`inUnit`) run an event's hooks inside
 * their transaction and publish it after commit; subscribers run asynchronously (fire and forget)
 * and a failing subscriber is logged, never felt by the publisher.
 */
export interface EventBus {
  publish<K extends EventName>(name: K, payload: DomainEvents[K]): void;
  subscribe<K extends EventName>(name: K, handler: Handler<K>): () => void;
  /** Registers a hook that runs inside every unit of work emitting `name`; a failing hook fails the unit. */
  hook<K extends EventName>(name: K, hook: InTransactionHook<K>): () => void;
  runHooks<K extends EventName>(name: K, unit: Unit, payload: DomainEvents[K]): Promise<void>;
  /** Runs `callback` now; a step of a unit of work defers it to the unit's commit. */
  afterCommit(callback: () => void): void;
  /** Resolves when every handler started so far has finished (tests, shutdown). */
  idle(): Promise<void>;
}

export function createEventBus(
  logger: Pick<Logger, 'error'>,
  options: {
    /** After each handler has run: what it wrote is looked for now (the sync stream), not at the next poll. */
    afterHandled?: () => void;
  } = {},
): EventBus {
  const handlers = new Map<EventName, Set<Handler<EventName>>>();
  const hooks = new Map<EventName, Set<InTransactionHook<EventName>>>();
  const running = new Set<Promise<void>>();
  return {
    publish(name, payload) {
      for (const handler of handlers.get(name) ?? []) {
        const run = Promise.resolve()
          .then(() => (handler as Handler<typeof name>)(payload))
          .catch((error: unknown) => logger.error({ err: error, event: name }, 'event handler failed'))
          .finally(() => {
            running.delete(run);
            options.afterHandled?.();
          });
        running.add(run);
      }
    },
    subscribe(name, handler) {
      const set = handlers.get(name) ?? new Set();
      set.add(handler as Handler<EventName>);
      handlers.set(name, set);
      return () => set.delete(handler as Handler<EventName>);
    },
    hook(name, hook) {
      const set = hooks.get(name) ?? new Set();
      set.add(hook as InTransactionHook<EventName>);
      hooks.set(name, set);
      return () => set.delete(hook as InTransactionHook<EventName>);
    },
    async runHooks(name, unit, payload) {
      for (const hook of hooks.get(name) ?? []) await (hook as InTransactionHook<typeof name>)(unit, payload);
    },
    afterCommit(callback) {
      callback();
    },
    async idle() {
      while (running.size > 0) await Promise.all([...running]);
    },
  };
}
