import { skinsApi } from '@shared/api/skins';
import { defineRoute } from '../../platform/http/routes';
import * as skins from './skins.service';

/** Every member reads the skins and chooses their own; administrators define them. */
export function skinsRoutes(deps: skins.SkinsDeps) {
  return [
    defineRoute({
      ...skinsApi.listSkins,
      handler: async ({ auth }) => ({ status: 200, body: await skins.listSkins(deps, auth) }),
    }),
    defineRoute({
      ...skinsApi.chooseSkin,
      handler: async ({ auth, body }) => ({ status: 200, body: await skins.chooseSkin(deps, auth, body.skinId) }),
    }),
    defineRoute({
      ...skinsApi.createSkin,
      access: 'admin',
      handler: async ({ auth, body }) => ({ status: 201, body: await skins.createSkin(deps, auth, body) }),
    }),
    defineRoute({
      ...skinsApi.getSkin,
      handler: async ({ auth, params }) => ({ status: 200, body: await skins.getSkin(deps, auth, params.skinId) }),
    }),
    defineRoute({
      ...skinsApi.updateSkin,
      access: 'admin',
      handler: async ({ auth, params, body }) => ({
        status: 200,
        body: await skins.updateSkin(deps, auth, params.skinId, body),
      }),
    }),
    defineRoute({
      ...skinsApi.deleteSkin,
      access: 'admin',
      handler: async ({ auth, params }) => {
        await skins.deleteSkin(deps, auth, params.skinId);
        return { status: 204 };
      },
    }),
  ];
}
