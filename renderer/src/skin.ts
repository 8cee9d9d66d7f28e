import type { Skin, SkinList, SkinTokens } from '@shared/api/skins';
import { type ThemeConfig, theme } from 'antd';

/** The tokens antd takes as they are; the rest (mode, density, header) choose algorithms and components. */
const PLAIN_TOKENS = [
  'colorPrimary',
  'colorSuccess',
  'colorWarning',
  'colorError',
  'colorInfo',
  'borderRadius',
  'fontSize',
] as const;

/** The top bar's colour without a skin (antd's dark header). */
export const DEFAULT_HEADER = '#001529';

/** The antd theme of a skin's tokens (none: the default look); `motion` follows the system's wish for less. */
export function themeOf(tokens: SkinTokens | undefined, motion: boolean): ThemeConfig {
  const algorithm = [tokens?.mode === 'dark' ? theme.darkAlgorithm : theme.defaultAlgorithm];
  if (tokens?.density === 'compact') algorithm.push(theme.compactAlgorithm);
  const token: Record<string, string | number | boolean> = { motion };
  for (const key of PLAIN_TOKENS) {
    const value = tokens?.[key];
    if (value !== undefined) token[key] = value;
  }
  return {
    algorithm,
    token,
    components: { Layout: { headerBg: tokens?.colorHeader ?? DEFAULT_HEADER } },
  };
}

/** The skin that applies to the user: their own choice, else the organization's, else none. */
export function effectiveSkin(list: SkinList | undefined, activeSkinId: string | null | undefined): Skin | undefined {
  if (!list) return undefined;
  const byId = (id: string | null | undefined) => (id ? list.items.find((skin) => skin.id === id) : undefined);
  return byId(list.chosenSkinId) ?? byId(activeSkinId);
}

const cacheKey = (userId: string) => `orbita.skin.${userId}`;

/** The skin last applied for the user on this device: the window opens in it, also without the network. */
export function cachedSkin(userId: string): Skin | undefined {
  try {
    const kept = globalThis.localStorage?.getItem(cacheKey(userId));
    return kept ? (JSON.parse(kept) as Skin) : undefined;
  } catch {
    return undefined;
  }
}

export function keepSkin(userId: string, skin: Skin | undefined): void {
  if (skin) globalThis.localStorage?.setItem(cacheKey(userId), JSON.stringify(skin));
  else globalThis.localStorage?.removeItem(cacheKey(userId));
}
