import { isExternalUrl } from '@shared/desktop/bridge';
import { isAppUrl } from './app-protocol';
import type { PermissionRequestHandler, PreventableEvent, WebContentsLike } from './electron-api';

/**
 * Keeps a window on the app's own pages: no new windows, no navigation elsewhere. A web link the
 * page opens goes to the system browser instead (http and https only: a `file:` or custom-scheme
 * URL could start a local program).
 */
export function guardNavigation(webContents: WebContentsLike, options: { openExternal(url: string): void }): void {
  webContents.setWindowOpenHandler(({ url }) => {
    if (isExternalUrl(url)) options.openExternal(url);
    return { action: 'deny' };
  });
  webContents.on('will-navigate', (event: PreventableEvent, url: string) => {
    if (isAppUrl(url)) return;
    event.preventDefault();
    if (isExternalUrl(url)) options.openExternal(url);
  });
  // A redirect is not something the user clicked: refused without opening anything.
  webContents.on('will-redirect', (event: PreventableEvent, url: string) => {
    if (!isAppUrl(url)) event.preventDefault();
  });
}

/** Permissions the app's pages get; every other request (camera, geolocation, …) is refused. */
export const GRANTED_PERMISSIONS: ReadonlySet<string> = new Set([
  'clipboard-sanitized-write',
  'notifications',
  'fullscreen',
]);

/** For `session.setPermissionRequestHandler`: grants GRANTED_PERMISSIONS to the app's own pages only. */
export const permissionRequestHandler: PermissionRequestHandler = (_webContents, permission, callback, details) => {
  callback(GRANTED_PERMISSIONS.has(permission) && isAppUrl(details.requestingUrl ?? ''));
};
