import { z } from 'zod';
import { endpoint } from './endpoint';
import { Color } from './values';

/** The prefix of an organization's GPS ingestion token. */
export const GPS_TOKEN_PREFIX = 'gps_';

/** Why the filters refused a point (kept 7 days with the point). */
export const RejectionReason = z
  .enum(['invalid', 'zero', 'future', 'duplicate', 'echo', 'stale', 'spike', 'jitter', 'lbs_inaccurate', 'off_road'])
  .meta({ id: 'GpsRejectionReason' });
export type RejectionReason = z.infer<typeof RejectionReason>;

/**
 * Filter settings, all speeds in km/h. Objects and groups override the organization's
 * (`/api/gps/settings`) field by field.
 */
export const FilterSettings = z
  .object({
    maxJumpSpeedKmh: z.number().positive().max(5000).meta({
      description: 'A point implying a faster move from its time neighbours is a spike',
    }),
    offRoadMeters: z.number().positive().max(100_000).meta({
      description: 'Cell-tower points farther than this from a road are dropped (when a routing engine is set)',
    }),
    jitterMeters: z.number().min(0).max(10_000).meta({
      description: 'While stationary, points within this radius (or their accuracy radius) add no movement',
    }),
    stationarySpeedKmh: z
      .number()
      .min(0)
      .max(100)
      .meta({ description: 'At or below this speed a point is stationary' }),
    futureToleranceSeconds: z
      .int()
      .min(0)
      .max(86_400 * 7)
      .meta({
        description: 'A fix time later than the receipt by more than this is refused as `future`',
      }),
    lbsMaxAccuracyMeters: z.number().positive().max(1_000_000).meta({
      description: 'Cell-tower (and Wi-Fi) points with a wider accuracy radius are refused as `lbs_inaccurate`',
    }),
    lbsAfterGpsSeconds: z.int().min(0).max(86_400).meta({
      description: 'A cell-tower point this soon after a GPS fix (of better accuracy) is refused as `lbs_inaccurate`',
    }),
    recoveryPoints: z.int().min(2).max(20).meta({
      description: 'Consecutive mutually consistent points that overrule a reference they all jump from',
    }),
    gpsLossHours: z
      .number()
      .positive()
      .max(24 * 365)
      .meta({ description: 'GPS loss: no fix for this long' }),
  })
  .meta({ id: 'GpsFilterSettings' });
export type FilterSettings = z.infer<typeof FilterSettings>;

export const PartialFilterSettings = FilterSettings.partial().strict().meta({ id: 'GpsSettingsOverride' });
export type PartialFilterSettings = z.infer<typeof PartialFilterSettings>;

export const RoutingEngine = z
  .object({
    kind: z.enum(['osrm', 'valhalla']),
    url: z.url({ protocol: /^https?$/ }).meta({ description: 'Base address, e.g. http://osrm:5000' }),
    profile: z
      .string()
      .regex(/^[a-z_-]{1,32}$/)
      .default('driving')
      .meta({ description: 'OSRM profile or Valhalla costing' }),
    maxPoints: z.int().min(2).max(10_000).default(100).meta({ description: 'Largest request the engine accepts' }),
  })
  .meta({ id: 'GpsRoutingEngine' });

/** Where the map's tiles come from: an XYZ raster template, a MapLibre style (vector tiles) or a PMTiles archive (raster or vector tiles). */
export const TileSource = z
  .object({
    kind: z.enum(['raster', 'style', 'pmtiles']),
    url: z
      .url({ protocol: /^https?$/ })
      .max(2000)
      .meta({
        description:
          'raster: …/{z}/{x}/{y}.png; style: a style JSON; pmtiles: the archive (its header says raster or vector; vector tiles get a default style)',
      }),
  })
  .meta({ id: 'GpsTileSource' });

/** Most tiles one area pre-download may take. */
export const MAX_TILE_DOWNLOAD = 50_000;

const Longitude = z.number().min(-180).max(180);
const Latitude = z.number().min(-85.06).max(85.06);
const TileZoom = z.int().min(0).max(20);

/** An area whose tiles an administrator pre-downloads for offline use: a bounding box and a zoom range. */
export const TileArea = z
  .object({
    west: Longitude,
    south: Latitude,
    east: Longitude,
    north: Latitude,
    minZoom: TileZoom,
    maxZoom: TileZoom,
  })
  .refine((area) => area.west < area.east, { message: 'The west edge must lie west of the east edge', path: ['east'] })
  .refine((area) => area.south < area.north, {
    message: 'The south edge must lie south of the north edge',
    path: ['north'],
  })
  .refine((area) => area.minZoom <= area.maxZoom, { message: 'The zoom range is reversed', path: ['maxZoom'] })
  .meta({ id: 'GpsTileArea' });
export type TileArea = z.infer<typeof TileArea>;

/** The server's consent to pre-download an area: from the organization's own source only. */
export const TileDownloadPlan = z
  .object({
    source: TileSource,
    tileCount: z.int().meta({ description: 'Tiles of the area over its zoom range' }),
    maxTiles: z.int().meta({ description: 'Most tiles one pre-download may take' }),
  })
  .meta({ id: 'GpsTileDownloadPlan' });
export type TileDownloadPlan = z.infer<typeof TileDownloadPlan>;

/** The organization's GPS settings: filter defaults, trip rules, retention, engines. */
export const GpsSettings = FilterSettings.extend({
  autoCreateObjects: z.boolean().meta({ description: 'An unknown tracker creates an object named after its device' }),
  minTripDistanceMeters: z.number().min(0).max(1_000_000),
  minTripDurationSeconds: z.int().min(0).max(86_400),
  minStopDurationSeconds: z.int().min(0).max(86_400).meta({ description: 'Staying put this long ends a trip' }),
  stopGapSeconds: z
    .int()
    .min(1)
    .max(86_400 * 7)
    .meta({ description: 'No data for this long ends a trip' }),
  retentionDays: z.int().min(1).max(3650),
  maxMessagesPerMinute: z.int().min(1).max(100_000).meta({ description: 'Per tracker; more answers 429' }),
  routingEngine: RoutingEngine.nullable(),
  geocoderUrl: z
    .url({ protocol: /^https?$/ })
    .nullable()
    .meta({
      description:
        'Nominatim’s reverse address (…/reverse; asked with format=jsonv2, lat, lon and the user’s accept-language) for trip and object addresses',
    }),
  tileSource: TileSource.nullable().meta({
    description: 'The organization’s own tile source for the map (null: the bundled low-zoom basemap only)',
  }),
  offlineTrackHours: z
    .int()
    .min(1)
    .max(168)
    .meta({ description: 'How many recent hours of each object’s track the desktop replicas keep for offline use' }),
}).meta({ id: 'GpsSettings' });
export type GpsSettings = z.infer<typeof GpsSettings>;

export const UpdateGpsSettingsRequest = GpsSettings.partial().strict().meta({ id: 'UpdateGpsSettingsRequest' });

export const ObjectKind = z.enum(['vehicle', 'person', 'tracker']).meta({ id: 'GpsObjectKind' });

const Name = z.string().trim().min(1, 'Enter a name').max(200);
const TrackerId = z.string().trim().min(1, 'Enter the tracker’s identifier').max(128);

export const CreateGpsObjectRequest = z
  .object({
    name: Name,
    kind: ObjectKind.default('vehicle'),
    trackerId: TrackerId.meta({ description: 'Traccar’s device.uniqueId or the OsmAnd `id`; unique per organization' }),
    groupId: z.uuid().nullable().optional(),
    settings: PartialFilterSettings.optional(),
  })
  .meta({ id: 'CreateGpsObjectRequest' });

export const UpdateGpsObjectRequest = z
  .object({
    name: Name.optional(),
    kind: ObjectKind.optional(),
    trackerId: TrackerId.optional(),
    groupId: z.uuid().nullable().optional(),
    settings: PartialFilterSettings.optional(),
  })
  .meta({ id: 'UpdateGpsObjectRequest' });

export const LastPosition = z
  .object({
    fixTime: z.iso.datetime(),
    lat: z.number(),
    lon: z.number(),
    speedKmh: z.number().nullable(),
    course: z.number().nullable(),
    isLbs: z.boolean(),
    batteryPercent: z.number().nullable().optional().meta({
      description: 'The battery level the tracker last reported, percent (Traccar `batteryLevel`, OsmAnd `batt`)',
    }),
  })
  .meta({ id: 'GpsLastPosition' });

export const GpsObject = z
  .object({
    id: z.uuid(),
    name: z.string(),
    kind: ObjectKind,
    trackerId: z.string(),
    groupId: z.uuid().nullable(),
    settings: PartialFilterSettings,
    last_seen: z.iso.datetime().nullable().meta({ description: 'Receipt time of the last message' }),
    last_gps_fix_at: z.iso.datetime().nullable().meta({ description: 'Fix time of the last accepted or re-sent fix' }),
    gpsLost: z.boolean().meta({ description: 'No fix for the GPS-loss threshold' }),
    lastPosition: LastPosition.nullable(),
    speedKmh: z.number().nullable().meta({ description: 'Speed of the last position, km/h' }),
    createdAt: z.iso.datetime(),
    updatedAt: z.iso.datetime(),
  })
  .meta({ id: 'GpsObject' });
export type GpsObject = z.infer<typeof GpsObject>;

export const GpsObjectList = z.object({ items: z.array(GpsObject) }).meta({ id: 'GpsObjectList' });

export const GroupRequest = z
  .object({ name: Name, settings: PartialFilterSettings.optional() })
  .meta({ id: 'GpsGroupRequest' });
export const UpdateGroupRequest = GroupRequest.partial().meta({ id: 'UpdateGpsGroupRequest' });
export const GpsGroup = z
  .object({
    id: z.uuid(),
    name: z.string(),
    settings: PartialFilterSettings,
    createdAt: z.iso.datetime(),
    updatedAt: z.iso.datetime(),
  })
  .meta({ id: 'GpsGroup' });
export const GpsGroupList = z.object({ items: z.array(GpsGroup) }).meta({ id: 'GpsGroupList' });

export const IngestionToken = z
  .object({
    exists: z.boolean(),
    prefix: z.string().nullable().meta({ description: 'The first characters, to recognise it' }),
    createdAt: z.iso.datetime().nullable(),
    lastUsedAt: z.iso.datetime().nullable(),
  })
  .meta({ id: 'GpsIngestionToken' });
export const NewIngestionToken = IngestionToken.extend({
  token: z.string().meta({ description: 'The token, shown this once: give it to Traccar or the phones' }),
}).meta({ id: 'GpsNewIngestionToken' });

// Ingestion payloads are read loosely: trackers send many more attributes than we keep.
const Loose = z.record(z.string(), z.unknown());

export const TraccarPosition = z
  .object({
    id: z.union([z.number(), z.string()]).optional(),
    deviceId: z.union([z.number(), z.string()]).optional(),
    fixTime: z.string().optional(),
    deviceTime: z.string().optional(),
    serverTime: z.string().optional(),
    outdated: z.boolean().optional(),
    valid: z.boolean().optional(),
    latitude: z.number(),
    longitude: z.number(),
    altitude: z.number().nullable().optional(),
    speed: z.number().nullable().optional().meta({ description: 'Knots' }),
    course: z.number().nullable().optional(),
    accuracy: z.number().nullable().optional(),
    attributes: Loose.optional(),
    network: Loose.nullable().optional(),
  })
  .loose()
  .meta({ id: 'TraccarPosition' });

export const TraccarDevice = z
  .object({
    id: z.union([z.number(), z.string()]).optional(),
    name: z.string().optional(),
    uniqueId: z.string().min(1).max(128),
  })
  .loose()
  .meta({ id: 'TraccarDevice' });

export const TraccarPositionForward = z
  .object({ position: TraccarPosition, device: TraccarDevice })
  .loose()
  .meta({ id: 'TraccarPositionForward' });

export const TraccarEventForward = z
  .object({
    event: z
      .object({
        id: z.union([z.number(), z.string()]).optional(),
        type: z.string().min(1).max(100),
        eventTime: z.string().optional(),
        serverTime: z.string().optional(),
        geofenceId: z.union([z.number(), z.string()]).nullable().optional(),
        attributes: Loose.optional(),
      })
      .loose(),
    position: TraccarPosition.nullable().optional(),
    device: TraccarDevice,
    geofence: Loose.nullable().optional(),
  })
  .loose()
  .meta({ id: 'TraccarEventForward' });

/** The OsmAnd protocol's fields (query string or form) or its JSON form, as Traccar Client sends them. */
export const OsmAndMessage = z.record(z.string(), z.unknown()).meta({
  id: 'OsmAndMessage',
  description:
    'Query or form fields `id` (or `deviceid`), `lat`, `lon` or `location` (`lat,lon`), `timestamp` (s, ms or ISO), `speed` (knots), `bearing`, `altitude`, `accuracy`, `hdop`, `batt`, `valid`, `cell`; or JSON `{device_id, location: {timestamp, coords: {latitude, longitude, speed (m/s), heading, accuracy, altitude}, battery, is_moving}}`',
});

const QueryField = z.string().optional();

/** The OsmAnd protocol's query fields (Traccar Client); more are accepted and ignored. */
export const OsmAndQuery = z
  .object({
    id: QueryField.meta({ description: 'The device identifier (or `deviceid`)' }),
    deviceid: QueryField,
    lat: QueryField,
    lon: QueryField,
    location: QueryField.meta({ description: '`lat,lon` instead of lat and lon' }),
    timestamp: QueryField.meta({ description: 'Fix time: seconds, milliseconds or ISO 8601' }),
    speed: QueryField.meta({ description: 'Knots' }),
    bearing: QueryField,
    altitude: QueryField,
    accuracy: QueryField.meta({ description: 'Meters' }),
    hdop: QueryField,
    batt: QueryField,
    valid: QueryField,
    cell: QueryField,
    token: QueryField.meta({ description: 'The ingestion token, when not sent as a bearer' }),
  })
  .loose()
  .meta({ id: 'OsmAndQuery' });

export const IngestionResult = z
  .object({
    objectId: z.uuid(),
    accepted: z.boolean(),
    reason: RejectionReason.nullable().meta({ description: 'Why the point was refused (kept 7 days)' }),
  })
  .meta({ id: 'GpsIngestionResult' });

export const TimeRangeQuery = z.object({
  from: z.iso.datetime({ offset: true }).optional().meta({ description: 'Start; by default a day before `to`' }),
  to: z.iso.datetime({ offset: true }).optional().meta({ description: 'End; by default now' }),
});

export const TrackQuery = TimeRangeQuery.extend({
  include: z.enum(['rejected']).optional().meta({ description: '`rejected` adds refused points with their reason' }),
});

export const TrackPoint = z
  .object({
    fixTime: z.iso.datetime(),
    lat: z.number(),
    lon: z.number(),
    speedKmh: z.number().nullable(),
    course: z.number().nullable(),
    accuracy: z.number().nullable(),
    isLbs: z.boolean(),
    reason: RejectionReason.optional().meta({ description: 'Present on refused points only' }),
  })
  .meta({ id: 'GpsTrackPoint' });

export const Track = z
  .object({
    points: z.array(TrackPoint),
    distanceMeters: z.number().meta({ description: 'Along accepted points; stationary jitter adds nothing' }),
  })
  .meta({ id: 'GpsTrack' });

const Place = z.object({ lat: z.number(), lon: z.number(), address: z.string().nullable() });

export const Trip = z
  .object({
    start: z.iso.datetime(),
    end: z.iso.datetime(),
    durationSeconds: z.number(),
    distanceMeters: z.number(),
    maxSpeedKmh: z.number(),
    avgSpeedKmh: z.number(),
    startPlace: Place,
    endPlace: Place,
  })
  .meta({ id: 'GpsTrip' });
export const Stop = z
  .object({
    start: z.iso.datetime(),
    end: z.iso.datetime(),
    durationSeconds: z.number(),
    place: Place,
  })
  .meta({ id: 'GpsStop' });
export const TripList = z.object({ items: z.array(Trip) }).meta({ id: 'GpsTripList' });
export const StopList = z.object({ items: z.array(Stop) }).meta({ id: 'GpsStopList' });

export const ObjectEvent = z
  .object({
    source: z.enum(['orbita', 'traccar']),
    type: z.string().meta({ description: '`geofenceEnter`/`geofenceExit` (ours), or Traccar’s event type' }),
    time: z.iso.datetime(),
    geofenceId: z.uuid().nullable(),
    attributes: z.record(z.string(), z.unknown()),
  })
  .meta({ id: 'GpsObjectEvent' });
export const ObjectEventList = z.object({ items: z.array(ObjectEvent) }).meta({ id: 'GpsObjectEventList' });

const LatLon = z.object({ lat: z.number().min(-90).max(90), lon: z.number().min(-180).max(180) });

export const GeofenceGeometry = z
  .discriminatedUnion('type', [
    z.object({ type: z.literal('circle'), center: LatLon, radiusMeters: z.number() }),
    z.object({ type: z.literal('polygon'), points: z.array(LatLon).min(3).max(5000) }),
    z.object({ type: z.literal('polyline'), points: z.array(LatLon).min(2).max(5000), widthMeters: z.number() }),
  ])
  .meta({ id: 'GeofenceGeometry' });

export const GeofenceRequest = z
  .object({
    name: Name,
    geometry: GeofenceGeometry,
    color: Color.nullable().optional().meta({ description: 'Its colour on the map, `#rrggbb` (null: the default)' }),
  })
  .meta({ id: 'GeofenceRequest' });
export const UpdateGeofenceRequest = GeofenceRequest.partial().meta({ id: 'UpdateGeofenceRequest' });
export const Geofence = z
  .object({
    id: z.uuid(),
    name: z.string(),
    geometry: GeofenceGeometry,
    color: Color.nullable(),
    createdAt: z.iso.datetime(),
    updatedAt: z.iso.datetime(),
  })
  .meta({ id: 'Geofence' });
export const GeofenceList = z.object({ items: z.array(Geofence) }).meta({ id: 'GeofenceList' });

export const RouteStop = z.object({
  geofenceId: z.uuid(),
  expectedAt: z.iso.datetime({ offset: true }).meta({ description: 'When the object is expected inside' }),
  toleranceMinutes: z
    .int()
    .min(0)
    .max(24 * 60)
    .default(15),
});
export const RouteRequest = z
  .object({
    name: Name,
    objectIds: z.array(z.uuid()).max(1000).default([]).meta({ description: 'Objects that drive the route' }),
    stops: z.array(RouteStop).min(1).max(500),
  })
  .meta({ id: 'GpsRouteRequest' });
export const UpdateRouteRequest = RouteRequest.partial().meta({ id: 'UpdateGpsRouteRequest' });
export const GpsRoute = z
  .object({
    id: z.uuid(),
    name: z.string(),
    objectIds: z.array(z.uuid()),
    stops: z.array(z.object({ geofenceId: z.uuid(), expectedAt: z.iso.datetime(), toleranceMinutes: z.number() })),
    createdAt: z.iso.datetime(),
    updatedAt: z.iso.datetime(),
  })
  .meta({ id: 'GpsRoute' });
export const GpsRouteList = z.object({ items: z.array(GpsRoute) }).meta({ id: 'GpsRouteList' });
export const RouteProgress = z
  .object({
    items: z.array(
      z.object({
        objectId: z.uuid(),
        stops: z.array(
          z.object({
            geofenceId: z.uuid(),
            expectedAt: z.iso.datetime(),
            status: z.enum(['visited', 'late', 'skipped', 'pending']),
            enteredAt: z.iso.datetime().nullable(),
          }),
        ),
      }),
    ),
  })
  .meta({ id: 'GpsRouteProgress' });

export const MatchedTrack = z
  .object({
    matched: z.boolean().meta({ description: 'false: the raw track (no engine, or it failed)' }),
    segments: z.array(
      z.object({
        matched: z.boolean(),
        confidence: z.number().nullable(),
        coordinates: z.array(z.object({ lat: z.number(), lon: z.number() })),
        outliers: z.array(z.iso.datetime()).meta({ description: 'Fix times of points the engine could not match' }),
      }),
    ),
    distanceMeters: z.number(),
  })
  .meta({ id: 'GpsMatchedTrack' });

export const ObjectAddress = z
  .object({
    address: z
      .string()
      .nullable()
      .meta({ description: 'The geocoder’s display name of the place (null: it knows none)' }),
    lat: z.number(),
    lon: z.number(),
    fixTime: z.iso.datetime().meta({ description: 'The fix whose place this is' }),
  })
  .meta({ id: 'GpsObjectAddress' });

const ObjectParams = z.object({ objectId: z.uuid() });
const GroupParams = z.object({ groupId: z.uuid() });
const GeofenceParams = z.object({ geofenceId: z.uuid() });
const RouteParams = z.object({ routeId: z.uuid() });
const TAGS = ['gps'];

function crud<C extends z.ZodType, U extends z.ZodType, R extends z.ZodType, L extends z.ZodType, P extends z.ZodType>(
  names: { list: string; create: string; get: string; update: string; remove: string },
  path: `/api/${string}`,
  param: string,
  what: string,
  schemas: { create: C; update: U; one: R; list: L; params: P },
) {
  return {
    list: endpoint({
      method: 'get',
      path,
      operationId: names.list,
      summary: `The organization’s ${what}s`,
      tags: TAGS,
      responses: { 200: { description: `${what}s`, schema: schemas.list } },
    }),
    create: endpoint({
      method: 'post',
      path,
      operationId: names.create,
      summary: `Create a ${what}`,
      tags: TAGS,
      request: { body: schemas.create },
      responses: { 201: { description: `The ${what}`, schema: schemas.one } },
    }),
    get: endpoint({
      method: 'get',
      path: `${path}/:${param}`,
      operationId: names.get,
      summary: `One ${what}`,
      tags: TAGS,
      request: { params: schemas.params },
      responses: { 200: { description: `The ${what}`, schema: schemas.one } },
    }),
    update: endpoint({
      method: 'patch',
      path: `${path}/:${param}`,
      operationId: names.update,
      summary: `Change a ${what}`,
      tags: TAGS,
      request: { params: schemas.params, body: schemas.update },
      responses: { 200: { description: `The ${what}`, schema: schemas.one } },
    }),
    remove: endpoint({
      method: 'delete',
      path: `${path}/:${param}`,
      operationId: names.remove,
      summary: `Delete a ${what}`,
      tags: TAGS,
      request: { params: schemas.params },
      responses: { 204: { description: 'Deleted' } },
    }),
  };
}

export const gpsObjectsApi = {
  listGpsObjects: endpoint({
    method: 'get',
    path: '/api/gps/objects',
    operationId: 'listGpsObjects',
    summary: 'Every object of the organization with its last position and GPS state',
    tags: TAGS,
    responses: { 200: { description: 'Objects', schema: GpsObjectList } },
  }),
  createGpsObject: endpoint({
    method: 'post',
    path: '/api/gps/objects',
    operationId: 'createGpsObject',
    summary: 'Create an object for a tracker',
    tags: TAGS,
    request: { body: CreateGpsObjectRequest },
    responses: { 201: { description: 'The object', schema: GpsObject } },
  }),
  getGpsObject: endpoint({
    method: 'get',
    path: '/api/gps/objects/:objectId',
    operationId: 'getGpsObject',
    summary: 'One object',
    tags: TAGS,
    request: { params: ObjectParams },
    responses: { 200: { description: 'The object', schema: GpsObject } },
  }),
  updateGpsObject: endpoint({
    method: 'patch',
    path: '/api/gps/objects/:objectId',
    operationId: 'updateGpsObject',
    summary: 'Change an object',
    tags: TAGS,
    request: { params: ObjectParams, body: UpdateGpsObjectRequest },
    responses: { 200: { description: 'The object', schema: GpsObject } },
  }),
  deleteGpsObject: endpoint({
    method: 'delete',
    path: '/api/gps/objects/:objectId',
    operationId: 'deleteGpsObject',
    summary: 'Delete an object and its track',
    tags: TAGS,
    request: { params: ObjectParams },
    responses: { 204: { description: 'Deleted' } },
  }),
  getGpsTrack: endpoint({
    method: 'get',
    path: '/api/gps/objects/:objectId/track',
    operationId: 'getGpsTrack',
    summary: 'Accepted points in fix-time order (and refused ones with `include=rejected`)',
    tags: TAGS,
    request: { params: ObjectParams, query: TrackQuery },
    responses: { 200: { description: 'The track', schema: Track } },
  }),
  listGpsTrips: endpoint({
    method: 'get',
    path: '/api/gps/objects/:objectId/trips',
    operationId: 'listGpsTrips',
    summary: 'Trips in a period, by the organization’s trip rules',
    tags: TAGS,
    request: { params: ObjectParams, query: TimeRangeQuery },
    responses: { 200: { description: 'Trips', schema: TripList } },
  }),
  listGpsStops: endpoint({
    method: 'get',
    path: '/api/gps/objects/:objectId/stops',
    operationId: 'listGpsStops',
    summary: 'Stops in a period, by the organization’s trip rules',
    tags: TAGS,
    request: { params: ObjectParams, query: TimeRangeQuery },
    responses: { 200: { description: 'Stops', schema: StopList } },
  }),
  listGpsObjectEvents: endpoint({
    method: 'get',
    path: '/api/gps/objects/:objectId/events',
    operationId: 'listGpsObjectEvents',
    summary: 'Geofence crossings and Traccar’s events of an object in a period',
    tags: TAGS,
    request: { params: ObjectParams, query: TimeRangeQuery },
    responses: { 200: { description: 'Events', schema: ObjectEventList } },
  }),
  getGpsObjectAddress: endpoint({
    method: 'get',
    path: '/api/gps/objects/:objectId/address',
    operationId: 'getGpsObjectAddress',
    summary:
      'The address of the object’s last position from the configured reverse geocoder, in the user’s language (409 `geocoder_not_configured` without one, 502 `geocoder_failed` when it fails)',
    tags: TAGS,
    request: { params: ObjectParams },
    responses: { 200: { description: 'The address', schema: ObjectAddress } },
  }),
  getGpsMatchedTrack: endpoint({
    method: 'get',
    path: '/api/gps/objects/:objectId/matched-track',
    operationId: 'getGpsMatchedTrack',
    summary: 'The track snapped to roads by the routing engine (the raw track with matched: false without one)',
    tags: TAGS,
    request: { params: ObjectParams, query: TimeRangeQuery },
    responses: { 200: { description: 'The matched track', schema: MatchedTrack } },
  }),
};

export const gpsGroupsApi = crud(
  {
    list: 'listGpsGroups',
    create: 'createGpsGroup',
    get: 'getGpsGroup',
    update: 'updateGpsGroup',
    remove: 'deleteGpsGroup',
  },
  '/api/gps/groups',
  'groupId',
  'group',
  { create: GroupRequest, update: UpdateGroupRequest, one: GpsGroup, list: GpsGroupList, params: GroupParams },
);

export const gpsGeofencesApi = crud(
  {
    list: 'listGeofences',
    create: 'createGeofence',
    get: 'getGeofence',
    update: 'updateGeofence',
    remove: 'deleteGeofence',
  },
  '/api/gps/geofences',
  'geofenceId',
  'geofence',
  { create: GeofenceRequest, update: UpdateGeofenceRequest, one: Geofence, list: GeofenceList, params: GeofenceParams },
);

const routesCrud = crud(
  {
    list: 'listGpsRoutes',
    create: 'createGpsRoute',
    get: 'getGpsRoute',
    update: 'updateGpsRoute',
    remove: 'deleteGpsRoute',
  },
  '/api/gps/routes',
  'routeId',
  'route',
  { create: RouteRequest, update: UpdateRouteRequest, one: GpsRoute, list: GpsRouteList, params: RouteParams },
);

export const gpsRoutesApi = {
  ...routesCrud,
  getGpsRouteProgress: endpoint({
    method: 'get',
    path: '/api/gps/routes/:routeId/progress',
    operationId: 'getGpsRouteProgress',
    summary: 'Progress of each of the route’s objects: stops visited, late, skipped or pending',
    tags: TAGS,
    request: { params: RouteParams },
    responses: { 200: { description: 'Progress', schema: RouteProgress } },
  }),
};

export const gpsSettingsApi = {
  getGpsSettings: endpoint({
    method: 'get',
    path: '/api/gps/settings',
    operationId: 'getGpsSettings',
    summary: 'The organization’s GPS settings (filter defaults, trip rules, retention, routing engine)',
    tags: TAGS,
    responses: { 200: { description: 'Settings', schema: GpsSettings } },
  }),
  updateGpsSettings: endpoint({
    method: 'patch',
    path: '/api/gps/settings',
    operationId: 'updateGpsSettings',
    summary: 'Change the organization’s GPS settings (administrators)',
    tags: TAGS,
    request: { body: UpdateGpsSettingsRequest },
    responses: { 200: { description: 'Settings', schema: GpsSettings } },
  }),
  planGpsTileDownload: endpoint({
    method: 'post',
    path: '/api/gps/tile-downloads',
    operationId: 'planGpsTileDownload',
    summary:
      'An administrator’s pre-download of an area’s tiles for offline use: allowed from the organization’s own configured source only (409 `tile_source_not_configured`, 409 `tile_download_forbidden` for public tile servers, 400 `tile_area_too_large`)',
    tags: TAGS,
    request: { body: TileArea },
    responses: { 200: { description: 'The download may go ahead', schema: TileDownloadPlan } },
  }),
  getGpsIngestionToken: endpoint({
    method: 'get',
    path: '/api/gps/ingestion-token',
    operationId: 'getGpsIngestionToken',
    summary: 'The ingestion token’s prefix and last use (administrators)',
    tags: TAGS,
    responses: { 200: { description: 'The token', schema: IngestionToken } },
  }),
  createGpsIngestionToken: endpoint({
    method: 'post',
    path: '/api/gps/ingestion-token',
    operationId: 'createGpsIngestionToken',
    summary: 'A new ingestion token, shown once; the previous one stops working (administrators)',
    tags: TAGS,
    responses: { 201: { description: 'The token', schema: NewIngestionToken } },
  }),
};

const INGESTED = { description: 'Received', schema: IngestionResult };

export const gpsIngestionApi = {
  ingestTraccarPosition: endpoint({
    method: 'post',
    path: '/api/gps/traccar/positions',
    operationId: 'ingestTraccarPosition',
    summary: 'A position forwarded by Traccar (forward.type=json)',
    tags: TAGS,
    request: { body: TraccarPositionForward },
    responses: { 200: INGESTED },
  }),
  ingestTraccarEvent: endpoint({
    method: 'post',
    path: '/api/gps/traccar/events',
    operationId: 'ingestTraccarEvent',
    summary: 'An event forwarded by Traccar (alarms, ignition, overspeed, its geofence crossings)',
    tags: TAGS,
    request: { body: TraccarEventForward },
    responses: { 200: { description: 'Stored', schema: z.object({ objectId: z.uuid() }) } },
  }),
  ingestOsmAnd: endpoint({
    method: 'post',
    path: '/api/gps/osmand',
    operationId: 'ingestOsmAnd',
    summary: 'A position in the OsmAnd protocol (Traccar Client): query, form or JSON',
    tags: TAGS,
    request: { body: OsmAndMessage.optional() },
    responses: { 200: INGESTED },
  }),
  ingestOsmAndByQuery: endpoint({
    method: 'get',
    path: '/api/gps/osmand',
    operationId: 'ingestOsmAndByQuery',
    summary: 'A position in the OsmAnd protocol sent as a query string',
    tags: TAGS,
    request: { query: OsmAndQuery },
    responses: { 200: INGESTED },
  }),
};
