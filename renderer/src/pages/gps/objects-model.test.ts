import { FilterSettings, UpdateGpsObjectRequest } from '@shared/api/gps';
import { describe, expect, it } from 'vitest';
import { GPS_SETTINGS, keyTranslation } from '../settings/gps-test-fixtures';
import {
  formFieldOfPointer,
  inheritedValue,
  objectChange,
  objectCounts,
  objectMatches,
  overrideValues,
  refusalWords,
  settingsOfValues,
} from './objects-model';

// The organization's filter values: what the shared schema of filters takes from its settings.
const ORGANIZATION: FilterSettings = FilterSettings.parse(GPS_SETTINGS);
const COURIERS = { id: 'g1', name: 'Couriers', settings: { jitterMeters: 50, gpsLossHours: 6 } };

const t = keyTranslation;

describe('GPS objects and groups', () => {
  it('gives an object its group’s own value, else the organization’s, saying where it comes from', () => {
    expect(inheritedValue('jitterMeters', ORGANIZATION, COURIERS)).toEqual({
      value: 50,
      from: { source: 'group', groupName: 'Couriers' },
    });
    expect(inheritedValue('maxJumpSpeedKmh', ORGANIZATION, COURIERS)).toEqual({
      value: 250,
      from: { source: 'organization' },
    });
    // A group (or an object without one) inherits from the organization.
    expect(inheritedValue('jitterMeters', ORGANIZATION, undefined)).toEqual({
      value: 30,
      from: { source: 'organization' },
    });
  });

  it('fills the overrides form with own values and prefills inherited fields with what they inherit', () => {
    const values = overrideValues({ maxJumpSpeedKmh: 120 }, ORGANIZATION, COURIERS);
    expect(values.maxJumpSpeedKmh).toEqual({ own: true, value: 120 });
    expect(values.jitterMeters).toEqual({ own: false, value: 50 });
    expect(values.recoveryPoints).toEqual({ own: false, value: 3 });
    expect(Object.keys(values)).toHaveLength(Object.keys(ORGANIZATION).length);
  });

  it('sends only the own values, an emptied one as null for the server to refuse at its field', () => {
    const values = overrideValues({ maxJumpSpeedKmh: 120, jitterMeters: 10 }, ORGANIZATION, undefined);
    values.jitterMeters = { own: false, value: 10 };
    values.gpsLossHours = { own: true, value: 8 };
    expect(settingsOfValues(values)).toEqual({ maxJumpSpeedKmh: 120, gpsLossHours: 8 });
    expect(UpdateGpsObjectRequest.parse({ settings: settingsOfValues(values) }).settings).toEqual({
      maxJumpSpeedKmh: 120,
      gpsLossHours: 8,
    });
    values.recoveryPoints = { own: true, value: null };
    expect(settingsOfValues(values).recoveryPoints).toBeNull();
    // Every field inherited: an empty override, which the API takes as "inherit everything".
    const inherited = overrideValues({}, ORGANIZATION, undefined);
    expect(settingsOfValues(inherited)).toEqual({});
  });

  it('sends only what the object form changed, trimmed, and a group taken away as null', () => {
    const object = { name: 'Van 7', kind: 'vehicle' as const, trackerId: 'van-7', groupId: 'g1' };
    expect(objectChange(object, { ...object, name: ' Van 7 ' })).toEqual({});
    expect(objectChange(object, { ...object, name: 'Van 8 ', trackerId: ' van-8', groupId: null })).toEqual({
      name: 'Van 8',
      trackerId: 'van-8',
      groupId: null,
    });
    expect(objectChange({ ...object, groupId: null }, { ...object, kind: 'person' })).toEqual({
      kind: 'person',
      groupId: 'g1',
    });
  });

  it('counts the objects of each group and finds objects by name, tracker or group', () => {
    const counts = objectCounts([{ groupId: 'g1' }, { groupId: 'g1' }, { groupId: null }, { groupId: 'g2' }]);
    expect(counts.get('g1')).toBe(2);
    expect(counts.get('g2')).toBe(1);
    expect(counts.get('g3')).toBeUndefined();
    const van = { name: 'Van 7', trackerId: 'IMEI-3519' };
    expect(objectMatches(van, 'Couriers', '')).toBe(true);
    expect(objectMatches(van, 'Couriers', 'van')).toBe(true);
    expect(objectMatches(van, 'Couriers', 'imei-35')).toBe(true);
    expect(objectMatches(van, 'Couriers', 'courier')).toBe(true);
    expect(objectMatches(van, undefined, 'truck')).toBe(false);
  });

  it('puts a server refusal at its field, in the user’s language with the schema’s bounds', () => {
    expect(formFieldOfPointer('#/settings/jitterMeters')).toEqual(['jitterMeters', 'value']);
    expect(formFieldOfPointer('#/trackerId')).toEqual(['trackerId']);
    const refusal = (pointer: string, code: string) =>
      refusalWords({ location: 'body', pointer, code, detail: 'as the server said' }, t);
    expect(refusal('#/settings/maxJumpSpeedKmh', 'too_small')).toBe('gpsSettings.errors.aboveMin {"min":0}');
    expect(refusal('#/settings/recoveryPoints', 'too_big')).toBe('gpsSettings.errors.tooBig {"max":20}');
    expect(refusal('#/settings/recoveryPoints', 'invalid_type')).toBe('gpsSettings.errors.required');
    expect(refusal('#/trackerId', 'taken')).toBe('gpsObjects.errors.trackerTaken');
    expect(refusal('#/groupId', 'unknown_group')).toBe('gpsObjects.errors.unknownGroup');
    expect(refusal('#/settings', 'unrecognized_keys')).toBe('as the server said');
  });
});
