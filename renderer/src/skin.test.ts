import type { SkinList } from '@shared/api/skins';
import { theme } from 'antd';
import { describe, expect, it } from 'vitest';
import { DEFAULT_HEADER, effectiveSkin, themeOf } from './skin';

const skin = (id: string, colorPrimary: string) => ({
  id,
  name: id,
  tokens: { mode: 'light' as const, colorPrimary },
  createdAt: '2026-12-03T10:00:00.000Z',
  updatedAt: '2026-12-03T10:00:00.000Z',
});

describe('skins in the interface', () => {
  it('turn a skin’s tokens into the antd theme: mode and density as algorithms, the header as a component', () => {
    const dark = themeOf(
      { mode: 'dark', colorPrimary: '#7c3aed', colorHeader: '#111827', density: 'compact', borderRadius: 2 },
      false,
    );
    expect(dark.algorithm).toEqual([theme.darkAlgorithm, theme.compactAlgorithm]);
    expect(dark.token).toEqual({ motion: false, colorPrimary: '#7c3aed', borderRadius: 2 });
    expect(dark.components?.Layout?.headerBg).toBe('#111827');
    const none = themeOf(undefined, true);
    expect(none.algorithm).toEqual([theme.defaultAlgorithm]);
    expect(none.token).toEqual({ motion: true });
    expect(none.components?.Layout?.headerBg).toBe(DEFAULT_HEADER);
  });

  it('apply the user’s choice over the organization’s, and nothing for skins no longer listed', () => {
    const list: SkinList = { items: [skin('house', '#16a34a'), skin('own', '#0ea5e9')], chosenSkinId: null };
    expect(effectiveSkin(list, 'house')?.id).toBe('house');
    expect(effectiveSkin({ ...list, chosenSkinId: 'own' }, 'house')?.id).toBe('own');
    expect(effectiveSkin(list, 'gone')).toBeUndefined();
    expect(effectiveSkin(list, null)).toBeUndefined();
    expect(effectiveSkin(undefined, 'house')).toBeUndefined();
  });
});
