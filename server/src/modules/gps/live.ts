import { GPS_POSITIONS_EVENT, type GpsLivePosition, type GpsLivePositions } from '@shared/gps-live';
import type { Server as SocketServer } from 'socket.io';
import type { EventBus, GpsPositionEvent } from '../../platform/events';
import type { ScheduledTask } from '../../platform/jobs/jobs';
import { moduleRoom } from '../../platform/sync/sync-server';

/** How often the collected positions are sent. */
export const LIVE_INTERVAL_MS = 1_000;

/**
 * The live map's feed: accepted positions collected per organization (each object's newest by
 * fix time) and sent once per interval to the `/sync` sockets of users with GPS module access.
 * A late point never moves an object back on the map.
 */
export class LivePositions {
  private readonly waiting = new Map<string, Map<string, GpsLivePosition>>();

  constructor(private readonly io: SocketServer) {}

  /** Keeps an accepted position until the next send. */
  note(event: GpsPositionEvent) {
    let positions = this.waiting.get(event.organizationId);
    if (!positions) {
      positions = new Map();
      this.waiting.set(event.organizationId, positions);
    }
    const held = positions.get(event.objectId);
    if (held && held.fixTime >= event.fixTime) return;
    const { organizationId: _organization, ...position } = event;
    positions.set(event.objectId, position);
  }

  /** Sends what was collected, one message per organization. */
  send() {
    const namespace = this.io.of('/sync');
    for (const [organizationId, positions] of this.waiting) {
      const message: GpsLivePositions = { positions: [...positions.values()] };
      namespace.to(moduleRoom(organizationId, 'gps')).emit(GPS_POSITIONS_EVENT, message);
    }
    this.waiting.clear();
  }

  /** Subscribes to `gps.position_accepted` and returns the scheduled task that sends each second. */
  attach(events: EventBus): ScheduledTask {
    events.subscribe('gps.position_accepted', (event) => this.note(event));
    return { name: 'gps.live', intervalMs: LIVE_INTERVAL_MS, run: async () => this.send() };
  }
}
