import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { Actor } from '../../platform/auth/actor';
import { mayManageProfileOf } from '../profile/profile.policy';
import { mayEditRows, mayManageDirectories, mayReadDirectory } from './directories.policy';

const organizationId = randomUUID();
const [places, prices] = [randomUUID(), randomUUID()];
const userId = randomUUID();
const member = (isAdmin: boolean): Actor => ({
  kind: 'user',
  organizationId,
  userId,
  sessionId: randomUUID(),
  isAdmin,
  locale: 'ru',
  roleIds: [],
  modules: [],
});
const bot = (mode: 'read' | 'write' | 'full', tableIds?: string[]): Actor => ({
  kind: 'bot',
  organizationId,
  botId: randomUUID(),
  scopes: { mode, ...(tableIds ? { tableIds } : {}) },
});

const actors: Record<string, Actor> = {
  administrator: member(true),
  member: member(false),
  automation: { kind: 'automation', organizationId, automationId: randomUUID(), chainDepth: 0 },
  'bot reading every directory': bot('read'),
  'bot writing the places': bot('write', [places]),
  'full bot of the places': bot('full', [places]),
  'full bot of every directory': bot('full'),
};

/** actor × directory → [reads rows, edits rows, manages the directory]. */
const expected: [string, string, boolean, boolean, boolean][] = [
  ['administrator', places, true, true, true],
  ['member', places, true, true, false],
  ['automation', prices, true, true, false],
  ['bot reading every directory', prices, true, false, false],
  ['bot writing the places', places, true, true, false],
  ['bot writing the places', prices, false, false, false],
  ['full bot of the places', places, true, true, true],
  ['full bot of the places', prices, false, false, false],
  ['full bot of every directory', prices, true, true, true],
];

describe('directories policy', () => {
  it.each(expected)(
    '%s on directory %s: reads %s, edits rows %s, manages %s',
    (name, directoryId, read, edit, manage) => {
      const actor = actors[name] as Actor;
      expect([
        mayReadDirectory(actor, directoryId),
        mayEditRows(actor, directoryId),
        mayManageDirectories(actor, directoryId),
      ]).toEqual([read, edit, manage]);
    },
  );

  it('lets only administrators and full keys reaching every directory create directories', () => {
    const creators = Object.entries(actors).filter(([, actor]) => mayManageDirectories(actor));
    expect(creators.map(([name]) => name).sort()).toEqual(['administrator', 'full bot of every directory']);
  });
});

describe('profile policy', () => {
  it('lets members manage their own profile values, administrators everyone’s, and no bot or automation', () => {
    const other = randomUUID();
    expect(mayManageProfileOf(member(false), userId)).toBe(true);
    expect(mayManageProfileOf(member(false), other)).toBe(false);
    expect(mayManageProfileOf(member(true), other)).toBe(true);
    expect(mayManageProfileOf(actors.automation as Actor, other)).toBe(false);
    expect(mayManageProfileOf(actors['bot reading every directory'] as Actor, other)).toBe(false);
  });
});
