import { GpsSettings, UpdateGpsSettingsRequest } from '@shared/api/gps';
import { describe, expect, it } from 'vitest';
import {
  changedSettings,
  changeOfValues,
  fieldErrorWords,
  fieldOfPointer,
  numberBounds,
  traccarConfig,
  trackerEndpoints,
  valuesOfSettings,
} from './gps-settings-model';
import { GPS_SETTINGS, keyTranslation } from './gps-test-fixtures';

const SETTINGS = GPS_SETTINGS;
const t = keyTranslation;

describe('GPS settings form', () => {
  it('shows absent sources as "none" and blank, and sends them back as null', () => {
    const values = valuesOfSettings(SETTINGS);
    expect(values.tileSource).toEqual({ kind: 'none', url: '' });
    expect(values.routingEngine.kind).toBe('none');
    expect(values.geocoderUrl).toBe('');
    const change = changeOfValues(values);
    expect(change).toEqual(SETTINGS);
    expect(UpdateGpsSettingsRequest.parse(change)).toEqual(SETTINGS);
  });

  it('sends the chosen tile source, geocoder and routing engine trimmed, and keeps them through a round trip', () => {
    const values = valuesOfSettings(SETTINGS);
    values.tileSource = { kind: 'pmtiles', url: ' https://tiles.example.org/area.pmtiles ' };
    values.geocoderUrl = ' https://nominatim.example.org/reverse ';
    values.routingEngine = { kind: 'valhalla', url: 'http://valhalla:8002', profile: '', maxPoints: null };
    values.jitterMeters = 45;
    const change = changeOfValues(values);
    expect(change.tileSource).toEqual({ kind: 'pmtiles', url: 'https://tiles.example.org/area.pmtiles' });
    expect(change.geocoderUrl).toBe('https://nominatim.example.org/reverse');
    expect(change.routingEngine).toEqual({
      kind: 'valhalla',
      url: 'http://valhalla:8002',
      profile: 'driving',
      maxPoints: 100,
    });
    expect(change.jitterMeters).toBe(45);
    const saved = GpsSettings.parse(change);
    expect(valuesOfSettings(saved)).toEqual({
      ...values,
      tileSource: { kind: 'pmtiles', url: 'https://tiles.example.org/area.pmtiles' },
      geocoderUrl: 'https://nominatim.example.org/reverse',
      routingEngine: { kind: 'valhalla', url: 'http://valhalla:8002', profile: 'driving', maxPoints: 100 },
    });
  });

  it('sends only what the form changed, a source whose keys come in another order being unchanged', () => {
    const loaded: GpsSettings = {
      ...SETTINGS,
      routingEngine: { url: 'http://osrm:5000', maxPoints: 100, kind: 'osrm', profile: 'driving' },
    };
    const values = valuesOfSettings(loaded);
    expect(changedSettings(values, loaded)).toEqual({});
    values.geocoderUrl = 'https://nominatim.example.org/reverse';
    values.recoveryPoints = 4;
    values.routingEngine = { ...values.routingEngine, profile: 'truck' };
    expect(changedSettings(values, loaded)).toEqual({
      geocoderUrl: 'https://nominatim.example.org/reverse',
      recoveryPoints: 4,
      routingEngine: { kind: 'osrm', url: 'http://osrm:5000', profile: 'truck', maxPoints: 100 },
    });
  });

  it('puts a server error at the field its pointer names, a whole source at its kind', () => {
    expect(fieldOfPointer('#/tileSource/url')).toEqual(['tileSource', 'url']);
    expect(fieldOfPointer('#/retentionDays')).toEqual(['retentionDays']);
    expect(fieldOfPointer('#/routingEngine')).toEqual(['routingEngine', 'kind']);
    expect(fieldOfPointer('#/a~1b')).toEqual(['a/b']);
  });

  it('takes each number’s range from the shared schema, an excluded lower bound included', () => {
    expect(numberBounds('offlineTrackHours')).toEqual({ min: 1, max: 168, minExcluded: false, integer: true });
    expect(numberBounds('maxJumpSpeedKmh')).toEqual({ min: 0, max: 5000, minExcluded: true, integer: false });
    expect(numberBounds('jitterMeters')).toEqual({ min: 0, max: 10_000, minExcluded: false, integer: false });
  });

  it('words the server’s refusals in the user’s language with the schema’s bounds, and keeps unknown ones as said', () => {
    const refusal = (pointer: string, code: string) =>
      fieldErrorWords({ location: 'body', pointer, code, detail: 'as the server said' }, t);
    expect(refusal('#/geocoderUrl', 'invalid_format')).toBe('gpsSettings.errors.url');
    expect(refusal('#/retentionDays', 'too_big')).toBe('gpsSettings.errors.tooBig {"max":3650}');
    expect(refusal('#/retentionDays', 'too_small')).toBe('gpsSettings.errors.tooSmall {"min":1}');
    expect(refusal('#/maxJumpSpeedKmh', 'too_small')).toBe('gpsSettings.errors.aboveMin {"min":0}');
    expect(refusal('#/tileSource/url', 'too_big')).toBe('gpsSettings.errors.tooLong');
    expect(refusal('#/routingEngine/kind', 'invalid_value')).toBe('gpsSettings.errors.choose');
    expect(refusal('#/nonsense', 'unrecognized_keys')).toBe('as the server said');
  });

  it('builds the tracker addresses and Traccar’s lines from the server’s address', () => {
    expect(trackerEndpoints('https://orbita.example.org/')).toEqual({
      traccarPositions: 'https://orbita.example.org/api/gps/traccar/positions',
      traccarEvents: 'https://orbita.example.org/api/gps/traccar/events',
      osmAnd: 'https://orbita.example.org/api/gps/osmand',
    });
    const config = traccarConfig('https://orbita.example.org', 'TOKEN');
    expect(config).toContain("<entry key='forward.url'>https://orbita.example.org/api/gps/traccar/positions</entry>");
    expect(config).toContain("<entry key='forward.type'>json</entry>");
    expect(config).toContain("<entry key='event.forward.header'>Authorization: Bearer TOKEN</entry>");
  });
});
