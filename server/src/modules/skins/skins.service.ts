import type { Skin, SkinList, SkinTokens } from '@shared/api/skins';
import type { AuthContext } from '../../platform/auth/auth-context';
import { inUnit, type UnitDeps } from '../../platform/db/unit-of-work';
import { Problem } from '../../platform/http/problem';
import { newId } from '../../platform/ids';
import * as repo from './skins.repo';

export type SkinsDeps = UnitDeps;

function present(row: repo.SkinRow): Skin {
  return {
    id: row.id,
    name: row.name,
    tokens: row.tokens,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}

const skinNotFound = (id: string) => Problem.of('not_found', `No skin ${id} in your organization.`);
const nameTaken = (name: string) =>
  Problem.of('conflict', `A skin named “${name}” exists already: choose another name.`, {
    errors: [{ location: 'body', pointer: '#/name', detail: 'A skin with this name exists', code: 'taken' }],
  });

/** The unique index on names, when two saves race past the check. */
function uniqueName<T>(name: string | undefined, work: () => Promise<T>): Promise<T> {
  return work().catch((error: unknown) => {
    if ((error as { code?: string }).code === '23505' && name !== undefined) throw nameTaken(name);
    throw error;
  });
}

export async function listSkins(deps: SkinsDeps, auth: AuthContext): Promise<SkinList> {
  const [rows, chosen] = await Promise.all([
    repo.listSkins(deps.db, auth.organizationId),
    repo.findChoice(deps.db, auth.organizationId, auth.userId),
  ]);
  return { items: rows.map(present), chosenSkinId: chosen };
}

export async function getSkin(deps: SkinsDeps, auth: AuthContext, id: string): Promise<Skin> {
  const row = await repo.findSkin(deps.db, auth.organizationId, id);
  if (!row) throw skinNotFound(id);
  return present(row);
}

export async function createSkin(
  deps: SkinsDeps,
  auth: AuthContext,
  input: { name: string; tokens: SkinTokens },
): Promise<Skin> {
  if (await repo.nameTaken(deps.db, auth.organizationId, input.name)) throw nameTaken(input.name);
  const row = await uniqueName(input.name, () =>
    repo.insertSkin(deps.db, { id: newId(), organizationId: auth.organizationId, ...input }),
  );
  return present(row);
}

export async function updateSkin(
  deps: SkinsDeps,
  auth: AuthContext,
  id: string,
  change: { name?: string; tokens?: SkinTokens },
): Promise<Skin> {
  return uniqueName(change.name, () =>
    inUnit(deps, async (unit) => {
      const row = await repo.lockSkin(unit.tx, auth.organizationId, id);
      if (!row) throw skinNotFound(id);
      if (change.name !== undefined && (await repo.nameTaken(unit.tx, auth.organizationId, change.name, id))) {
        throw nameTaken(change.name);
      }
      const updated = await repo.updateSkin(unit.tx, auth.organizationId, id, {
        name: change.name ?? row.name,
        tokens: change.tokens ?? row.tokens,
      });
      return present(updated as repo.SkinRow);
    }),
  );
}

/** Deletes a skin: the organization using it goes back to the default look, users who chose it to the organization's. */
export async function deleteSkin(deps: SkinsDeps, auth: AuthContext, id: string): Promise<void> {
  if (!(await repo.deleteSkin(deps.db, auth.organizationId, id))) throw skinNotFound(id);
}

/** The caller's own skin among the organization's (null: the organization's). */
export async function chooseSkin(deps: SkinsDeps, auth: AuthContext, skinId: string | null): Promise<SkinList> {
  await inUnit(deps, async (unit) => {
    if (skinId !== null && !(await repo.lockSkin(unit.tx, auth.organizationId, skinId))) {
      throw Problem.of('not_found', `No skin ${skinId} in your organization: choose one of the list.`, {
        errors: [{ location: 'body', pointer: '#/skinId', detail: 'No such skin', code: 'not_found' }],
      });
    }
    await repo.saveChoice(unit.tx, auth.organizationId, auth.userId, skinId);
  });
  return listSkins(deps, auth);
}
