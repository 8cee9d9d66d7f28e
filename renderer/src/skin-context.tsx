import { identityApi } from '@shared/api/identity';
import { type Skin, type SkinList, skinsApi } from '@shared/api/skins';
import { createContext, useCallback, useContext, useEffect, useState } from 'react';
import { call } from './api';
import { cachedSkin, effectiveSkin, keepSkin } from './skin';

/** The organization's skins as the signed-in user sees them, the one applied, and a way to read them again. */
export interface SkinState {
  list?: SkinList;
  /** The organization's skin (null: none); undefined until read. */
  activeSkinId?: string | null;
  /** The skin applied: the user's, else the organization's; the one kept on this device until read. */
  skin?: Skin;
  /** Reads the skins again (after one was changed, chosen or set for the organization). */
  refresh(): void;
}

const SkinContext = createContext<SkinState>({ refresh() {} });
export const SkinProvider = SkinContext.Provider;
export const useSkin = () => useContext(SkinContext);

/**
 * The skins of the signed-in user (`userId`; none when signed out), read when they sign in, when
 * the window comes back into view and when asked; kept on the device so it opens in its skin.
 */
export function useSkinState(userId: string | undefined): SkinState {
  const [read, setRead] = useState<{ userId: string; list: SkinList; activeSkinId: string | null }>();
  const [version, setVersion] = useState(0);
  const refresh = useCallback(() => setVersion((v) => v + 1), []);
  // biome-ignore lint/correctness/useExhaustiveDependencies: `version` asks for a new read.
  useEffect(() => {
    if (!userId) return;
    let current = true;
    Promise.all([call(skinsApi.listSkins), call(identityApi.getOrganization)])
      .then(([list, organization]) => {
        if (!current) return;
        setRead({ userId, list, activeSkinId: organization.activeSkinId });
        keepSkin(userId, effectiveSkin(list, organization.activeSkinId));
      })
      // Without the server the skin kept on this device stays.
      .catch(() => undefined);
    return () => {
      current = false;
    };
  }, [userId, version]);
  useEffect(() => {
    const inView = () => {
      if (document.visibilityState === 'visible') refresh();
    };
    document.addEventListener('visibilitychange', inView);
    return () => document.removeEventListener('visibilitychange', inView);
  }, [refresh]);
  if (!userId) return { refresh };
  if (read?.userId !== userId) return { skin: cachedSkin(userId), refresh };
  return {
    list: read.list,
    activeSkinId: read.activeSkinId,
    skin: effectiveSkin(read.list, read.activeSkinId),
    refresh,
  };
}
