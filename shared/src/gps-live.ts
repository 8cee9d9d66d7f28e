/**
 * Live positions of the GPS map, sent on the `/sync` socket of users with GPS module access as
 * `gps:positions`: at most one message per second per organization, holding each object's newest
 * accepted position of that second.
 */
export const GPS_POSITIONS_EVENT = 'gps:positions';

export interface GpsLivePosition {
  objectId: string;
  fixTime: string;
  lat: number;
  lon: number;
  speedKmh: number | null;
  course: number | null;
  isLbs: boolean;
  /** The battery level the tracker reported with it, percent (absent or null: none). */
  batteryPercent?: number | null;
}

export interface GpsLivePositions {
  positions: GpsLivePosition[];
}
