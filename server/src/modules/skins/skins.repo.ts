import type { SkinTokens } from '@shared/api/skins';
import type { Queryable } from '../../platform/db/db';

export interface SkinRow {
  id: string;
  organization_id: string;
  name: string;
  tokens: SkinTokens;
  created_at: Date;
  updated_at: Date;
}

const COLUMNS = 'id, organization_id, name, tokens, created_at, updated_at';

export async function listSkins(db: Queryable, organizationId: string): Promise<SkinRow[]> {
  const { rows } = await db.query<SkinRow>(
    `SELECT ${COLUMNS} FROM organization_skins WHERE organization_id = $1 ORDER BY lower(name), id`,
    [organizationId],
  );
  return rows;
}

export async function findSkin(db: Queryable, organizationId: string, id: string): Promise<SkinRow | undefined> {
  const { rows } = await db.query<SkinRow>(
    `SELECT ${COLUMNS} FROM organization_skins WHERE organization_id = $1 AND id = $2`,
    [organizationId, id],
  );
  return rows[0];
}

export async function insertSkin(
  db: Queryable,
  skin: { id: string; organizationId: string; name: string; tokens: SkinTokens },
): Promise<SkinRow> {
  const { rows } = await db.query<SkinRow>(
    `INSERT INTO organization_skins (id, organization_id, name, tokens) VALUES ($1, $2, $3, $4) RETURNING ${COLUMNS}`,
    [skin.id, skin.organizationId, skin.name, JSON.stringify(skin.tokens)],
  );
  return rows[0] as SkinRow;
}

export async function updateSkin(
  db: Queryable,
  organizationId: string,
  id: string,
  change: { name: string; tokens: SkinTokens },
): Promise<SkinRow | undefined> {
  const { rows } = await db.query<SkinRow>(
    `UPDATE organization_skins SET name = $3, tokens = $4, updated_at = now()
      WHERE organization_id = $1 AND id = $2 RETURNING ${COLUMNS}`,
    [organizationId, id, change.name, JSON.stringify(change.tokens)],
  );
  return rows[0];
}

/** Locks the skin for a change (undefined: none such in the organization). */
export async function lockSkin(db: Queryable, organizationId: string, id: string): Promise<SkinRow | undefined> {
  const { rows } = await db.query<SkinRow>(
    `SELECT ${COLUMNS} FROM organization_skins WHERE organization_id = $1 AND id = $2 FOR UPDATE`,
    [organizationId, id],
  );
  return rows[0];
}

export async function deleteSkin(db: Queryable, organizationId: string, id: string): Promise<boolean> {
  const { rowCount } = await db.query('DELETE FROM organization_skins WHERE organization_id = $1 AND id = $2', [
    organizationId,
    id,
  ]);
  return (rowCount ?? 0) > 0;
}

/** Whether another skin of the organization has the name (case aside). */
export async function nameTaken(
  db: Queryable,
  organizationId: string,
  name: string,
  except?: string,
): Promise<boolean> {
  const { rowCount } = await db.query(
    `SELECT 1 FROM organization_skins WHERE organization_id = $1 AND lower(name) = lower($2) AND id IS DISTINCT FROM $3`,
    [organizationId, name, except ?? null],
  );
  return (rowCount ?? 0) > 0;
}

export async function findChoice(db: Queryable, organizationId: string, userId: string): Promise<string | null> {
  const { rows } = await db.query<{ skin_id: string }>(
    'SELECT skin_id FROM user_skin_choices WHERE organization_id = $1 AND user_id = $2',
    [organizationId, userId],
  );
  return rows[0]?.skin_id ?? null;
}

/** Sets the user's choice (null: none). */
export async function saveChoice(
  db: Queryable,
  organizationId: string,
  userId: string,
  skinId: string | null,
): Promise<void> {
  if (skinId === null) {
    await db.query('DELETE FROM user_skin_choices WHERE organization_id = $1 AND user_id = $2', [
      organizationId,
      userId,
    ]);
    return;
  }
  await db.query(
    `INSERT INTO user_skin_choices (organization_id, user_id, skin_id) VALUES ($1, $2, $3)
     ON CONFLICT (user_id) DO UPDATE SET skin_id = EXCLUDED.skin_id`,
    [organizationId, userId, skinId],
  );
}
