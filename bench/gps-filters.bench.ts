import { distanceMeters } from '@shared/gps-geometry';
import { benchApp, benchDatabase, postJson, registerBenchAdmin } from './lib';

/**
 * Filter quality on a labelled synthetic corpus: vehicles driving and parking, with injected spikes,
 * heartbeat echoes, redelivered duplicates, buffered points replayed out of order, parked jitter,
 * cell-tower teleports while parked, invalid, zero and future fixes, and a lock-on trap (a cold-start
 * fix far away after a gap). Our filters are the ingestion itself (each message POSTed to
 * /api/gps/traccar/positions in delivery order, the kept points read back from the track);
 * the baseline applies Traccar's rules (`filter.invalid`, `filter.zero`, `filter.duplicate`,
 * `filter.future` 86,400 s, `filter.maxSpeed` 150 km/h), each point against the last accepted one.
 */

const TRACKERS = 12;
const STEP_SECONDS = 10;
const KNOTS_PER_KMH = 1 / 1.852;

type Kind =
  | 'good'
  | 'late'
  | 'parked'
  | 'spike'
  | 'echo'
  | 'duplicate'
  | 'jitter'
  | 'tower'
  | 'invalid'
  | 'zero'
  | 'future'
  | 'cold_start';

interface Message {
  tracker: string;
  kind: Kind;
  good: boolean;
  fixTime: number;
  lat: number;
  lon: number;
  speedKmh: number;
  accuracy: number;
  valid: boolean;
  outdated: boolean;
  approximate: boolean;
}

/** A seeded generator, so the corpus is the same in every run. */
function random(seed: number) {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

const M_PER_DEG = 111_195;

/** One vehicle's day: drives and stops, and every kind of bad message, in delivery order. */
function trackerMessages(index: number, start: number): Message[] {
  const rand = random(1000 + index);
  const tracker = `bench-${index}`;
  const good: Message[] = [];
  let lat = 55 + index * 0.2;
  let lon = 37 + index * 0.1;
  let heading = rand() * Math.PI * 2;
  let t = start;
  const fix = (kind: Kind, speedKmh: number, extra: Partial<Message> = {}): Message => ({
    tracker,
    kind,
    good: kind === 'good' || kind === 'late' || kind === 'parked',
    fixTime: t,
    lat,
    lon,
    speedKmh,
    accuracy: 5 + rand() * 5,
    valid: true,
    outdated: false,
    approximate: false,
    ...extra,
  });
  const noisy = (m: Message): Message => ({
    ...m,
    lat: m.lat + ((rand() - 0.5) * 4) / M_PER_DEG,
    lon: m.lon + ((rand() - 0.5) * 4) / (M_PER_DEG * Math.cos((m.lat * Math.PI) / 180)),
  });
  const drive = (count: number) => {
    for (let i = 0; i < count; i++) {
      t += STEP_SECONDS * 1000;
      const kmh = 30 + rand() * 60;
      heading += (rand() - 0.5) * 0.3;
      const meters = (kmh / 3.6) * STEP_SECONDS;
      lat += (meters * Math.cos(heading)) / M_PER_DEG;
      lon += (meters * Math.sin(heading)) / (M_PER_DEG * Math.cos((lat * Math.PI) / 180));
      good.push(noisy(fix('good', kmh)));
    }
  };
  /** Parked: the first fix is the stop; the rest scatter within the accuracy radius. */
  const park = (count: number) => {
    t += STEP_SECONDS * 1000;
    good.push(fix('parked', 0));
    for (let i = 1; i < count; i++) {
      t += STEP_SECONDS * 1000;
      const r = rand() * 15;
      const a = rand() * Math.PI * 2;
      good.push(
        fix('jitter', rand() * 2, {
          good: false,
          lat: lat + (r * Math.cos(a)) / M_PER_DEG,
          lon: lon + (r * Math.sin(a)) / (M_PER_DEG * Math.cos((lat * Math.PI) / 180)),
          accuracy: 10 + rand() * 10,
        }),
      );
    }
  };
  drive(60);
  park(40);
  drive(80);
  park(30);
  drive(60);
  // The tracker is off for an hour; its first fix after the cold start is 60 km off.
  t += 3_600_000;
  const coldAngle = rand() * Math.PI * 2;
  good.push(
    fix('cold_start', 40, {
      good: false,
      lat: lat + (60_000 * Math.cos(coldAngle)) / M_PER_DEG,
      lon: lon + (60_000 * Math.sin(coldAngle)) / (M_PER_DEG * Math.cos((lat * Math.PI) / 180)),
    }),
  );
  drive(80);

  // Delivery: live order, then bad messages injected, and one buffered block replayed late.
  const delivered: Message[] = [];
  const live = good.slice();
  // Buffered block: 20 fixes of the second drive arrive after the 30 fixes that follow them.
  const blockStart = 110;
  const block = live.splice(blockStart, 20).map((m) => ({ ...m, kind: 'late' as Kind }));
  live.splice(blockStart + 30, 0, ...block);
  let lastGood: Message | undefined;
  for (const message of live) {
    delivered.push(message);
    if (message.good && message.kind !== 'late') lastGood = message;
    if (!lastGood || message.kind !== 'good') continue;
    const roll = rand();
    const after = (ms: number, extra: Partial<Message>): Message => ({
      ...message,
      good: false,
      fixTime: message.fixTime + ms,
      ...extra,
    });
    if (roll < 0.03) {
      // A spike: 1–50 km off, half a step later.
      const meters = 1000 + rand() * 49_000;
      const a = rand() * Math.PI * 2;
      delivered.push(
        after(5000, {
          kind: 'spike',
          lat: message.lat + (meters * Math.cos(a)) / M_PER_DEG,
          lon: message.lon + (meters * Math.sin(a)) / (M_PER_DEG * Math.cos((message.lat * Math.PI) / 180)),
        }),
      );
    } else if (roll < 0.06) {
      delivered.push({ ...message, kind: 'echo', good: false, outdated: true });
    } else if (roll < 0.09) {
      delivered.push({ ...message, kind: 'duplicate', good: false });
    } else if (roll < 0.1) {
      delivered.push(after(3000, { kind: 'invalid', valid: false }));
    } else if (roll < 0.11) {
      delivered.push(after(3000, { kind: 'zero', lat: 0, lon: 0 }));
    } else if (roll < 0.12) {
      // A clock hours or days ahead.
      delivered.push(after((rand() < 0.5 ? 2 : 49) * 3_600_000, { kind: 'future' }));
    }
  }
  // Cell-tower teleports while parked: towers 1–4 km away with radii of 1–2.5 km, between the parked fixes.
  const withTowers: Message[] = [];
  for (const message of delivered) {
    withTowers.push(message);
    if (message.kind === 'jitter' && rand() < 0.25) {
      const meters = 1000 + rand() * 3000;
      const a = rand() * Math.PI * 2;
      withTowers.push({
        ...message,
        kind: 'tower',
        good: false,
        fixTime: message.fixTime + 4000,
        speedKmh: 0,
        accuracy: 1000 + rand() * 1500,
        approximate: true,
        lat: message.lat + (meters * Math.cos(a)) / M_PER_DEG,
        lon: message.lon + (meters * Math.sin(a)) / (M_PER_DEG * Math.cos((message.lat * Math.PI) / 180)),
      });
    }
  }
  return withTowers;
}

/** Traccar's FilterHandler with invalid, zero, duplicate, future (86,400 s) and maxSpeed (150 km/h) on. */
function traccarKept(messages: readonly Message[], now: number): Set<Message> {
  const kept = new Set<Message>();
  const maxKnots = 150 * KNOTS_PER_KMH;
  let last: Message | undefined;
  for (const p of messages) {
    const invalid = !p.valid || Math.abs(p.lat) > 90 || Math.abs(p.lon) > 180;
    const zero = p.lat === 0 && p.lon === 0;
    const duplicate = last !== undefined && p.fixTime === last.fixTime;
    const future = p.fixTime > now + 86_400_000;
    let maxSpeed = false;
    if (last) {
      const meters = distanceMeters(last, p);
      const seconds = (p.fixTime - last.fixTime) / 1000;
      const knots = (meters / seconds) * 1.943_844;
      maxSpeed = knots > maxKnots || p.speedKmh * KNOTS_PER_KMH > maxKnots;
    }
    if (invalid || zero || duplicate || future || maxSpeed) continue;
    kept.add(p);
    // Traccar's last position is the newest by fix time.
    if (!last || p.fixTime >= last.fixTime) last = p;
  }
  return kept;
}

function trackLength(points: readonly { lat: number; lon: number; fixTime: number }[]) {
  const sorted = [...points].sort((a, b) => a.fixTime - b.fixTime);
  let total = 0;
  for (let i = 1; i < sorted.length; i++) total += distanceMeters(sorted[i - 1] as Message, sorted[i] as Message);
  return total;
}

interface Score {
  goodKept: number;
  good: number;
  badDropped: number;
  bad: number;
  distanceError: number;
  missedBy: Map<Kind, number>;
}

function score(corpus: Message[][], kept: (tracker: Message[]) => Set<Message>): Score {
  const result: Score = { goodKept: 0, good: 0, badDropped: 0, bad: 0, distanceError: 0, missedBy: new Map() };
  let truth = 0;
  let error = 0;
  for (const messages of corpus) {
    const keptSet = kept(messages);
    for (const m of messages) {
      if (m.good) {
        result.good += 1;
        if (keptSet.has(m)) result.goodKept += 1;
        else result.missedBy.set(m.kind, (result.missedBy.get(m.kind) ?? 0) + 1);
      } else {
        result.bad += 1;
        if (!keptSet.has(m)) result.badDropped += 1;
        else result.missedBy.set(m.kind, (result.missedBy.get(m.kind) ?? 0) + 1);
      }
    }
    const real = trackLength(messages.filter((m) => m.good));
    truth += real;
    error += Math.abs(trackLength([...keptSet].filter((m) => !m.outdated)) - real);
  }
  result.distanceError = error / truth;
  return result;
}

function print(name: string, s: Score) {
  const pct = (a: number, b: number) => `${((100 * a) / b).toFixed(2)}%`;
  const missed = [...s.missedBy].map(([kind, n]) => `${kind} ${n}`).join(', ') || 'none';
  console.log(
    `${name}: good points kept ${pct(s.goodKept, s.good)} (${s.goodKept}/${s.good}), bad points dropped ` +
      `${pct(s.badDropped, s.bad)} (${s.badDropped}/${s.bad}), track-distance error ${(100 * s.distanceError).toFixed(2)}%` +
      ` — wrong decisions by kind: ${missed}`,
  );
}

export async function run() {
  const start = Date.now() - 2 * 86_400_000;
  const corpus = Array.from({ length: TRACKERS }, (_, i) => trackerMessages(i, start + i * 60_000));
  const counts = new Map<Kind, number>();
  for (const m of corpus.flat()) counts.set(m.kind, (counts.get(m.kind) ?? 0) + 1);
  console.log(
    `corpus: ${TRACKERS} vehicles, ${corpus.flat().length} messages — ${[...counts].map(([k, n]) => `${k} ${n}`).join(', ')}`,
  );

  const database = await benchDatabase();
  const { app, url } = await benchApp(database);
  try {
    const { accessToken } = await registerBenchAdmin(url);
    const { token } = await postJson(url, '/api/gps/ingestion-token', {}, accessToken);
    const settings = await fetch(`${url}/api/gps/settings`, {
      method: 'PATCH',
      headers: { Authorization: `Bearer ${accessToken}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ maxMessagesPerMinute: 100_000 }),
    });
    if (!settings.ok) throw new Error(`settings answered ${settings.status}`);
    const accepted = new Map<Message, boolean>();
    const objects = new Map<string, string>();
    const started = performance.now();
    // Trackers send in parallel; each one's messages in its delivery order.
    await Promise.all(
      corpus.map(async (messages) => {
        for (const m of messages) {
          const answer = await postJson(
            url,
            '/api/gps/traccar/positions',
            {
              position: {
                fixTime: new Date(m.fixTime).toISOString(),
                latitude: m.lat,
                longitude: m.lon,
                speed: m.speedKmh * KNOTS_PER_KMH,
                accuracy: m.accuracy,
                valid: m.valid,
                outdated: m.outdated,
                attributes: m.approximate ? { approximate: true } : {},
              },
              device: { uniqueId: m.tracker, name: m.tracker },
            },
            token,
          );
          accepted.set(m, answer.accepted);
          objects.set(m.tracker, answer.objectId);
        }
      }),
    );
    const seconds = (performance.now() - started) / 1000;
    console.log(`ingested ${accepted.size} messages in ${seconds.toFixed(1)} s`);
    // What ingestion finally kept (a recovery refuses a reference and reinstates spikes after the fact).
    const tracks = new Map<string, { fixTime: string; lat: number; lon: number }[]>();
    for (const [tracker, objectId] of objects) {
      const from = new Date(start - 86_400_000).toISOString();
      const to = new Date(Date.now() + 5 * 86_400_000).toISOString();
      const response = await fetch(`${url}/api/gps/objects/${objectId}/track?from=${from}&to=${to}`, {
        headers: { Authorization: `Bearer ${accessToken}` },
      });
      tracks.set(tracker, ((await response.json()) as { points: never[] }).points);
    }
    const ours = (messages: Message[]) => {
      const track = tracks.get(messages[0]?.tracker as string) ?? [];
      const stored = new Set(track.map((p) => `${Date.parse(p.fixTime)}|${p.lat}|${p.lon}`));
      // Echoes and duplicates share a kept point's fix time: their own answer says whether they counted.
      return new Set(
        messages.filter((m) =>
          m.kind === 'echo' || m.kind === 'duplicate'
            ? accepted.get(m) === true
            : stored.has(`${m.fixTime}|${m.lat}|${m.lon}`),
        ),
      );
    };
    print('ours', score(corpus, ours));
    print(
      'Traccar rules',
      score(corpus, (messages) => traccarKept(messages, Date.now())),
    );
    console.log('aim: ≥ 99.5% good kept, ≥ 99% bad dropped, ≤ 3% distance error');
  } finally {
    await app.close();
    await database.drop();
  }
}
