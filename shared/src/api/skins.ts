import { z } from 'zod';
import { endpoint } from './endpoint';
import { Color } from './values';

/**
 * A skin's design tokens: what the interface takes from it. Only the primary colour and the mode
 * are required; a colour left out keeps the interface's default.
 */
export const SkinTokens = z
  .object({
    mode: z.enum(['light', 'dark']).meta({ description: 'Light or dark surfaces' }),
    colorPrimary: Color.meta({ description: 'Buttons, links and selections, `#rrggbb`' }),
    colorSuccess: Color.optional(),
    colorWarning: Color.optional(),
    colorError: Color.optional(),
    colorInfo: Color.optional(),
    colorHeader: Color.optional().meta({ description: 'The window’s top bar' }),
    borderRadius: z.int().min(0).max(16).optional().meta({ description: 'Corner radius in pixels' }),
    fontSize: z.int().min(12).max(18).optional().meta({ description: 'Base text size in pixels' }),
    density: z.enum(['comfortable', 'compact']).optional().meta({ description: 'Spacing of controls and lists' }),
  })
  .strict()
  .meta({ id: 'SkinTokens' });
export type SkinTokens = z.infer<typeof SkinTokens>;

const Name = z.string().trim().min(1, 'Enter a name').max(100);

export const SkinRequest = z.object({ name: Name, tokens: SkinTokens }).meta({ id: 'SkinRequest' });
export const UpdateSkinRequest = SkinRequest.partial().meta({ id: 'UpdateSkinRequest' });

export const Skin = z
  .object({
    id: z.uuid(),
    name: z.string(),
    tokens: SkinTokens,
    createdAt: z.iso.datetime(),
    updatedAt: z.iso.datetime(),
  })
  .meta({ id: 'Skin' });
export type Skin = z.infer<typeof Skin>;

export const SkinList = z
  .object({
    items: z.array(Skin),
    chosenSkinId: z
      .uuid()
      .nullable()
      .meta({ description: 'The skin the caller chose for themselves; null: the organization’s (`activeSkinId`)' }),
  })
  .meta({ id: 'SkinList' });
export type SkinList = z.infer<typeof SkinList>;

export const SkinChoiceRequest = z
  .object({ skinId: z.uuid().nullable().meta({ description: 'One of the organization’s skins; null: its own' }) })
  .meta({ id: 'SkinChoiceRequest' });

const SkinParams = z.object({ skinId: z.uuid() });
const TAGS = ['skins'];

/** Organization skins (themes): defined by administrators, applied for the organization or chosen per user. */
export const skinsApi = {
  listSkins: endpoint({
    method: 'get',
    path: '/api/skins',
    operationId: 'listSkins',
    summary: 'The organization’s skins, and the one the caller chose',
    tags: TAGS,
    responses: { 200: { description: 'Skins', schema: SkinList } },
  }),
  createSkin: endpoint({
    method: 'post',
    path: '/api/skins',
    operationId: 'createSkin',
    summary: 'Create a skin (administrators)',
    tags: TAGS,
    request: { body: SkinRequest },
    responses: { 201: { description: 'The skin', schema: Skin } },
  }),
  getSkin: endpoint({
    method: 'get',
    path: '/api/skins/:skinId',
    operationId: 'getSkin',
    summary: 'One skin',
    tags: TAGS,
    request: { params: SkinParams },
    responses: { 200: { description: 'The skin', schema: Skin } },
  }),
  updateSkin: endpoint({
    method: 'patch',
    path: '/api/skins/:skinId',
    operationId: 'updateSkin',
    summary: 'Rename a skin or change its tokens (administrators)',
    tags: TAGS,
    request: { params: SkinParams, body: UpdateSkinRequest },
    responses: { 200: { description: 'The skin', schema: Skin } },
  }),
  deleteSkin: endpoint({
    method: 'delete',
    path: '/api/skins/:skinId',
    operationId: 'deleteSkin',
    summary: 'Delete a skin (administrators): whoever used it goes back to the organization’s, or the default',
    tags: TAGS,
    request: { params: SkinParams },
    responses: { 204: { description: 'Deleted' } },
  }),
  chooseSkin: endpoint({
    method: 'put',
    path: '/api/skins/choice',
    operationId: 'chooseSkin',
    summary: 'Choose a skin for yourself (null: the organization’s)',
    tags: TAGS,
    request: { body: SkinChoiceRequest },
    responses: { 200: { description: 'Skins, with the choice', schema: SkinList } },
  }),
};
