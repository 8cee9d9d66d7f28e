/** What a reverse geocoder answered: the address (null: it knows none there), or why it failed. */
export type ReverseAnswer = { ok: true; address: string | null } | { ok: false; detail: string };

/** Answers kept per geocoder, language and place (rounded to about a metre), for a day. */
const CACHE_LIMIT = 5000;
const CACHE_MS = 86_400_000;
const cache = new Map<string, { address: string | null; at: number }>();

/**
 * The address of a place from a geocoder speaking Nominatim's `/reverse` protocol (`format=jsonv2`,
 * `lat`, `lon`, `accept-language`). `url` is the reverse endpoint itself (e.g. http://nominatim:8080/reverse).
 */
export async function reverseGeocode(
  fetcher: typeof fetch,
  url: string,
  point: { lat: number; lon: number },
  language: string,
): Promise<ReverseAnswer> {
  const key = `${url}|${language}|${point.lat.toFixed(5)}|${point.lon.toFixed(5)}`;
  const kept = cache.get(key);
  if (kept && Date.now() - kept.at < CACHE_MS) {
    // Used again: moves to the end, so the oldest used is dropped first.
    cache.delete(key);
    cache.set(key, kept);
    return { ok: true, address: kept.address };
  }
  let body: { display_name?: unknown; error?: unknown };
  try {
    const request = new URL(url);
    request.searchParams.set('format', 'jsonv2');
    request.searchParams.set('lat', String(point.lat));
    request.searchParams.set('lon', String(point.lon));
    request.searchParams.set('accept-language', language);
    const response = await fetcher(request, {
      headers: { Accept: 'application/json', 'User-Agent': 'Orbita' },
      signal: AbortSignal.timeout(5000),
    });
    if (!response.ok) return { ok: false, detail: `it answered HTTP ${response.status}` };
    body = (await response.json()) as typeof body;
  } catch (caught) {
    return { ok: false, detail: caught instanceof Error ? caught.message : String(caught) };
  }
  // Nominatim answers `{"error": "Unable to geocode"}` for a place with no address (the sea).
  const address = typeof body.display_name === 'string' ? body.display_name : null;
  if (address === null && body.error === undefined) return { ok: false, detail: 'its answer has no display_name' };
  cache.set(key, { address, at: Date.now() });
  if (cache.size > CACHE_LIMIT) cache.delete(cache.keys().next().value as string);
  return { ok: true, address };
}
